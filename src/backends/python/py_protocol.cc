// SPDX-License-Identifier: Apache-2.0
#include "py_protocol.h"

#include <cstring>

#include "py_wire.h"

namespace inferd::python {

using namespace wire;  // NOLINT: the codec building blocks

void EncodeHeader(const Header& header, uint8_t out[kHeaderSize]) {
  std::memset(out, 0, kHeaderSize);
  std::memcpy(out, &header.length, sizeof(header.length));
  out[4] = static_cast<uint8_t>(header.type);
}

Header DecodeHeader(const uint8_t in[kHeaderSize]) {
  Header header;
  std::memcpy(&header.length, in, sizeof(header.length));
  header.type = static_cast<MessageType>(in[4]);
  return header;
}

ExecuteEncoder::ExecuteEncoder(uint32_t request_count, uint64_t output_offset,
                               uint64_t output_size) {
  out_.reserve(256);
  Put<uint32_t>(out_, request_count);
  Put<uint64_t>(out_, output_offset);
  Put<uint64_t>(out_, output_size);
}

void ExecuteEncoder::BeginRequest(uint64_t request_id, uint32_t input_count) {
  Put<uint64_t>(out_, request_id);
  Put<uint32_t>(out_, input_count);
}

void ExecuteEncoder::AddInput(const WireTensor& input) { PutTensor(out_, input); }

void ExecuteEncoder::SetRequestedOutputs(std::span<const std::string_view> names) {
  Put<uint32_t>(out_, static_cast<uint32_t>(names.size()));
  for (std::string_view name : names) PutStr16(out_, name);
}

void ExecuteEncoder::SetContext(std::string_view parameters_json,
                                const WireCorrelationId& correlation_id) {
  Put<uint32_t>(out_, static_cast<uint32_t>(parameters_json.size()));
  PutBytes(out_, parameters_json.data(), parameters_json.size());
  if (!correlation_id.text.empty()) {
    Put<uint8_t>(out_, 2);
    PutStr16(out_, correlation_id.text);
  } else if (correlation_id.numeric != 0) {
    Put<uint8_t>(out_, 1);
    Put<uint64_t>(out_, correlation_id.numeric);
  } else {
    Put<uint8_t>(out_, 0);
  }
}

StatusOr<ExecuteMessage> DecodeExecute(std::span<const uint8_t> payload) {
  Reader reader(payload);
  ExecuteMessage message;
  const uint32_t request_count = reader.Get<uint32_t>();
  message.output_offset = reader.Get<uint64_t>();
  message.output_size = reader.Get<uint64_t>();
  INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, request_count, 8, "request"));
  message.requests.resize(request_count);
  for (ExecuteRequest& request : message.requests) {
    request.request_id = reader.Get<uint64_t>();
    const uint32_t input_count = reader.Get<uint32_t>();
    INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, input_count, kMinTensorBytes, "input"));
    request.inputs.resize(input_count);
    for (WireTensor& input : request.inputs) {
      INFERD_BACKEND_RETURN_IF_ERROR(GetTensor(reader, request.dims_storage, input));
    }
    const uint32_t output_count = reader.Get<uint32_t>();
    INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, output_count, 2, "output"));
    for (uint32_t i = 0; i < output_count; ++i) request.requested_outputs.push_back(reader.Str16());
    request.parameters_json = reader.Str32();
    const uint8_t correlation_kind = reader.Get<uint8_t>();
    if (correlation_kind == 1) {
      request.correlation_id.numeric = reader.Get<uint64_t>();
    } else if (correlation_kind == 2) {
      request.correlation_id.text = reader.Str16();
    } else if (correlation_kind != 0) {
      return Malformed("correlation id kind " + std::to_string(correlation_kind));
    }
    if (!reader.ok()) return Malformed("a request is cut short");
    for (size_t i = 0; i < request.inputs.size(); ++i)
      request.inputs[i].dims = request.dims_storage[i];
  }
  if (!reader.at_end()) return Malformed("trailing bytes after EXECUTE");
  return message;
}

ResultEncoder::ResultEncoder(uint32_t response_count, uint64_t output_bytes_used) {
  Put<uint32_t>(out_, response_count);
  Put<uint64_t>(out_, output_bytes_used);
}

void ResultEncoder::AddError(INFERD_ErrorCode code, std::string_view message) {
  Put<uint8_t>(out_, 1);
  Put<uint8_t>(out_, static_cast<uint8_t>(code));
  Put<uint32_t>(out_, static_cast<uint32_t>(message.size()));
  PutBytes(out_, message.data(), message.size());
}

void ResultEncoder::AddPending() { Put<uint8_t>(out_, 2); }

void ResultEncoder::BeginOutputs(uint32_t output_count) {
  Put<uint8_t>(out_, 0);
  Put<uint32_t>(out_, output_count);
}

void ResultEncoder::AddOutput(const WireTensor& output) { PutTensor(out_, output); }

StatusOr<ResultMessage> DecodeResult(std::span<const uint8_t> payload) {
  Reader reader(payload);
  ResultMessage message;
  const uint32_t response_count = reader.Get<uint32_t>();
  message.output_bytes_used = reader.Get<uint64_t>();
  INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, response_count, 1, "response"));
  message.responses.resize(response_count);
  // Tensors' dims point into dims_storage, which must not reallocate while
  // they are assigned: fix them up at the end.
  std::vector<std::pair<WireTensor*, size_t>> dims_of;
  for (WireResponse& response : message.responses) {
    const uint8_t has_error = reader.Get<uint8_t>();
    if (has_error == 2) {
      response.pending = true;
      continue;
    }
    if (has_error != 0) {
      response.has_error = true;
      response.error_code = ToErrorCode(reader.Get<uint8_t>());
      response.error_message = reader.Str32();
      if (!reader.ok()) return Malformed("an error response is cut short");
      continue;
    }
    const uint32_t output_count = reader.Get<uint32_t>();
    INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, output_count, kMinTensorBytes, "output"));
    response.outputs.resize(output_count);
    for (WireTensor& output : response.outputs) {
      INFERD_BACKEND_RETURN_IF_ERROR(GetTensor(reader, message.dims_storage, output));
      dims_of.emplace_back(&output, message.dims_storage.size() - 1);
    }
  }
  if (!reader.at_end()) return Malformed("trailing bytes after RESULT");
  for (auto& [tensor, index] : dims_of) tensor->dims = message.dims_storage[index];
  return message;
}

ErrorMessage DecodeError(std::span<const uint8_t> payload) {
  ErrorMessage error;
  if (payload.empty()) {
    error.message = "the Python worker reported an error without a message";
    return error;
  }
  error.code = ToErrorCode(payload[0]);
  error.message.assign(reinterpret_cast<const char*>(payload.data()) + 1, payload.size() - 1);
  return error;
}

}  // namespace inferd::python
