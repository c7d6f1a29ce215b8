// SPDX-License-Identifier: Apache-2.0
#include "backends/abi/server_api.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "backends/abi/backend_request.h"
#include "base/clock.h"
#include "core/status_mapping.h"

namespace inferd::backends {
namespace {

INFERD_Error* ErrorNew(INFERD_ErrorCode code, const char* message) {
  return new INFERD_Error{core::StatusFromBackendError(code, message == nullptr ? "" : message)};
}

void AddTensor(std::vector<SignatureTensor>& into, const char* name, INFERD_DataType datatype,
               const int64_t* dims, size_t dims_count) {
  into.push_back(SignatureTensor{name == nullptr ? "" : name, static_cast<core::DataType>(datatype),
                                 core::Shape(dims, dims + dims_count)});
}

void SignatureAddInput(INFERD_Signature* signature, const char* name, INFERD_DataType datatype,
                       const int64_t* dims, size_t dims_count) {
  AddTensor(signature->inputs, name, datatype, dims, dims_count);
}

void SignatureAddOutput(INFERD_Signature* signature, const char* name, INFERD_DataType datatype,
                        const int64_t* dims, size_t dims_count) {
  AddTensor(signature->outputs, name, datatype, dims, dims_count);
}

void SignatureSetMaxBatchSize(INFERD_Signature* signature, int32_t max_batch_size) {
  signature->max_batch_size = max_batch_size < 0 ? 0 : max_batch_size;
}

size_t RequestInputCount(const INFERD_Request* request) { return request->request().inputs.size(); }

void RequestInput(const INFERD_Request* request, size_t index, const char** name,
                  INFERD_DataType* datatype, const int64_t** shape, size_t* shape_count,
                  const void** data, size_t* byte_size) {
  const auto& tensor = request->request().inputs.at(index);
  *name = tensor.name.c_str();
  *datatype = static_cast<INFERD_DataType>(tensor.datatype);
  *shape = tensor.shape.data();
  *shape_count = tensor.shape.size();
  *data = tensor.data.data;
  *byte_size = tensor.data.size;
}

size_t RequestOutputCount(const INFERD_Request* request) { return request->output_names().size(); }

const char* RequestOutputName(const INFERD_Request* request, size_t index) {
  return request->output_names().at(index).c_str();
}

INFERD_Error* ResponseAddOutput(INFERD_Request* request, const char* name, INFERD_DataType datatype,
                                const int64_t* shape, size_t shape_count, const void* data,
                                size_t byte_size, INFERD_ReleaseFn release, void* release_context) {
  // Own the backend's memory first, so it is released on every path.
  std::shared_ptr<const void> owner(data, [release, release_context](const void*) {
    if (release != nullptr) release(release_context);
  });
  core::Buffer buffer{static_cast<const char*>(data), byte_size, std::move(owner)};
  auto status = request->AddOutput(name == nullptr ? "" : name, datatype, shape, shape_count,
                                   std::move(buffer));
  return status.ok() ? nullptr : NewError(status);
}

void RequestComplete(INFERD_Request* request, INFERD_Error* error) {
  std::unique_ptr<INFERD_Request> owned(request);  // the backend hands it back here
  owned->Complete(TakeError(error));
}

uint64_t NowNanoseconds() { return static_cast<uint64_t>(base::Clock::Real().NowNanos()); }

void RequestReportComputeTimes(INFERD_Request* request, uint64_t compute_start_ns,
                               uint64_t compute_end_ns) {
  request->SetComputeTimes(static_cast<int64_t>(compute_start_ns),
                           static_cast<int64_t>(compute_end_ns));
}

constexpr INFERD_ServerApi kApi = {
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
};

}  // namespace

const INFERD_ServerApi* ServerApi() { return &kApi; }

absl::Status TakeError(INFERD_Error* error) {
  if (error == nullptr) return absl::OkStatus();
  std::unique_ptr<INFERD_Error> owned(error);
  return owned->status.ok() ? absl::UnknownError("backend returned an error with an OK code")
                            : owned->status;
}

INFERD_Error* NewError(const absl::Status& status) { return new INFERD_Error{status}; }

}  // namespace inferd::backends
