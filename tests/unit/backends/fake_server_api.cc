// SPDX-License-Identifier: Apache-2.0
#include "fake_server_api.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace inferd::testing {
namespace {

INFERD_Error* ErrorNew(INFERD_ErrorCode code, const char* message) {
  return new INFERD_Error{code, message};
}

void SignatureAdd(std::vector<INFERD_Signature::Tensor>& list, const char* name,
                  INFERD_DataType datatype, const int64_t* dims, size_t dims_count) {
  list.push_back({name, datatype, std::vector<int64_t>(dims, dims + dims_count)});
}

void SignatureAddInput(INFERD_Signature* s, const char* name, INFERD_DataType datatype,
                       const int64_t* dims, size_t dims_count) {
  SignatureAdd(s->inputs, name, datatype, dims, dims_count);
}

void SignatureAddOutput(INFERD_Signature* s, const char* name, INFERD_DataType datatype,
                        const int64_t* dims, size_t dims_count) {
  SignatureAdd(s->outputs, name, datatype, dims, dims_count);
}

size_t RequestInputCount(const INFERD_Request* request) { return request->inputs.size(); }

void RequestInput(const INFERD_Request* request, size_t index, const char** name,
                  INFERD_DataType* datatype, const int64_t** shape, size_t* shape_count,
                  const void** data, size_t* byte_size) {
  const INFERD_Request::Input& input = request->inputs[index];
  *name = input.name.c_str();
  *datatype = input.datatype;
  *shape = input.shape.data();
  *shape_count = input.shape.size();
  *data = input.data.data() + input.offset;
  *byte_size = input.data.size() - input.offset;
}

size_t RequestOutputCount(const INFERD_Request* request) {
  return request->requested_outputs.size();
}

const char* RequestOutputName(const INFERD_Request* request, size_t index) {
  return request->requested_outputs[index].c_str();
}

INFERD_Error* ResponseAddOutput(INFERD_Request* request, const char* name, INFERD_DataType datatype,
                                const int64_t* shape, size_t shape_count, const void* data,
                                size_t byte_size, INFERD_ReleaseFn release, void* release_context) {
  const auto& wanted = request->requested_outputs;
  if (request->reject_outputs || std::find(wanted.begin(), wanted.end(), name) == wanted.end()) {
    release(release_context);  // the ABI lets the server release right away on error
    return ErrorNew(INFERD_ERROR_INVALID_ARG, (std::string("unexpected output ") + name).c_str());
  }
  std::string bytes(byte_size, '\0');
  if (byte_size > 0) std::memcpy(bytes.data(), data, byte_size);
  request->outputs.push_back({name, datatype, std::vector<int64_t>(shape, shape + shape_count),
                              std::move(bytes), data, false});
  // Released at completion, like a server once the response is sent; the
  // data must stay valid and unchanged until then (checked there).
  request->pending_releases++;
  request->release_fns.push_back({release, release_context});
  return nullptr;
}

void RequestComplete(INFERD_Request* request, INFERD_Error* error) {
  request->completions++;
  request->error.reset(error);
  for (INFERD_Request::Output& output : request->outputs) {
    // The handed-over memory must still hold what was copied.
    output.changed_before_release =
        !output.data.empty() &&
        std::memcmp(output.pointer, output.data.data(), output.data.size()) != 0;
  }
  for (auto& [fn, context] : request->release_fns) {
    fn(context);
    request->pending_releases--;
  }
  request->release_fns.clear();
}

uint64_t NowNanoseconds() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

void RequestReportComputeTimes(INFERD_Request* request, uint64_t start_ns, uint64_t end_ns) {
  request->compute_start_ns = start_ns;
  request->compute_end_ns = end_ns;
}

void SignatureSetMaxBatchSize(INFERD_Signature*, int32_t) {}

const INFERD_ServerApi kApi = {
    sizeof(INFERD_ServerApi),
    INFERD_BACKEND_API_VERSION_MAJOR,
    INFERD_BACKEND_API_VERSION_MINOR,
    &ErrorNew,
    &SignatureAddInput,
    &SignatureAddOutput,
    &RequestInputCount,
    &RequestInput,
    &RequestOutputCount,
    &RequestOutputName,
    &ResponseAddOutput,
    &RequestComplete,
    &NowNanoseconds,
    &RequestReportComputeTimes,
    &SignatureSetMaxBatchSize,
    // ABI 1.3's calls to other models: the backends under test here make none.
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    // ABI 1.4's decoupled responses, correlation id, parameters and
    // cancellation: unused here.
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

}  // namespace

const INFERD_ServerApi* FakeServerApi() { return &kApi; }

std::string EncodeBytes(const std::vector<std::string>& elements) {
  std::string out;
  for (const std::string& element : elements) {
    const auto length = static_cast<uint32_t>(element.size());
    for (int shift = 0; shift < 32; shift += 8)
      out.push_back(static_cast<char>(length >> shift & 0xff));
    out += element;
  }
  return out;
}

std::vector<std::string> DecodeBytes(const std::string& data) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at + 4 <= data.size()) {
    uint32_t length = 0;
    for (int i = 0; i < 4; ++i)
      length |= static_cast<uint32_t>(static_cast<unsigned char>(data[at + i])) << (8 * i);
    at += 4;
    out.push_back(data.substr(at, length));
    at += length;
  }
  return out;
}

}  // namespace inferd::testing
