// SPDX-License-Identifier: Apache-2.0
// BLS_REQUEST and BLS_RESPONSE (python/PROTOCOL.md "BLS").
#include <cstring>

#include "py_protocol.h"
#include "py_wire.h"

namespace inferd::python {

using namespace wire;  // NOLINT: the codec building blocks

StatusOr<BlsRequestMessage> DecodeBlsRequest(std::span<const uint8_t> payload) {
  Reader reader(payload);
  BlsRequestMessage message;
  message.id = reader.Get<uint64_t>();
  message.model_name = reader.Str16();
  message.model_version = reader.Get<int64_t>();
  message.timeout_us = reader.Get<uint64_t>();
  message.decoupled = (reader.Get<uint8_t>() & 1) != 0;
  const uint32_t parameter_count = reader.Get<uint32_t>();
  // str16 key + kind + the smallest value (a bool).
  INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, parameter_count, 4, "parameter"));
  message.parameters.resize(parameter_count);
  for (WireParameter& parameter : message.parameters) {
    parameter.key = reader.Str16();
    const uint8_t kind = reader.Get<uint8_t>();
    if (kind == static_cast<uint8_t>(WireParameter::Kind::kBool)) {
      parameter.kind = WireParameter::Kind::kBool;
      parameter.bool_value = reader.Get<uint8_t>() != 0;
    } else if (kind == static_cast<uint8_t>(WireParameter::Kind::kInt)) {
      parameter.kind = WireParameter::Kind::kInt;
      parameter.int_value = reader.Get<int64_t>();
    } else if (kind == static_cast<uint8_t>(WireParameter::Kind::kString)) {
      parameter.kind = WireParameter::Kind::kString;
      parameter.string_value = reader.Str32();
    } else {
      return Malformed("parameter '" + std::string(parameter.key) + "' has kind " +
                       std::to_string(kind));
    }
    if (!reader.ok()) return Malformed("BLS_REQUEST parameters are cut short");
  }
  const uint32_t output_count = reader.Get<uint32_t>();
  INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, output_count, 2, "requested output"));
  for (uint32_t i = 0; i < output_count; ++i) message.requested_outputs.push_back(reader.Str16());
  const uint32_t input_count = reader.Get<uint32_t>();
  INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, input_count, kMinTensorBytes, "input"));
  message.inputs.resize(input_count);
  for (WireTensor& input : message.inputs) {
    INFERD_BACKEND_RETURN_IF_ERROR(GetTensor(reader, message.dims_storage, input));
  }
  if (!reader.ok()) return Malformed("BLS_REQUEST is cut short");
  if (!reader.at_end()) return Malformed("trailing bytes after BLS_REQUEST");
  for (size_t i = 0; i < message.inputs.size(); ++i) {
    message.inputs[i].dims = message.dims_storage[i];
  }
  return message;
}

std::vector<uint8_t> EncodeBlsRequest(const BlsRequestMessage& request) {
  std::vector<uint8_t> out;
  Put<uint64_t>(out, request.id);
  PutStr16(out, request.model_name);
  Put<int64_t>(out, request.model_version);
  Put<uint64_t>(out, request.timeout_us);
  Put<uint8_t>(out, request.decoupled ? 1 : 0);
  Put<uint32_t>(out, static_cast<uint32_t>(request.parameters.size()));
  for (const WireParameter& parameter : request.parameters) {
    PutStr16(out, parameter.key);
    Put<uint8_t>(out, static_cast<uint8_t>(parameter.kind));
    switch (parameter.kind) {
      case WireParameter::Kind::kBool:
        Put<uint8_t>(out, parameter.bool_value ? 1 : 0);
        break;
      case WireParameter::Kind::kInt:
        Put<int64_t>(out, parameter.int_value);
        break;
      case WireParameter::Kind::kString:
        Put<uint32_t>(out, static_cast<uint32_t>(parameter.string_value.size()));
        PutBytes(out, parameter.string_value.data(), parameter.string_value.size());
        break;
    }
  }
  Put<uint32_t>(out, static_cast<uint32_t>(request.requested_outputs.size()));
  for (std::string_view name : request.requested_outputs) PutStr16(out, name);
  Put<uint32_t>(out, static_cast<uint32_t>(request.inputs.size()));
  for (const WireTensor& input : request.inputs) PutTensor(out, input);
  return out;
}

BlsResponseEncoder::BlsResponseEncoder(uint64_t id, uint8_t flags) {
  out_.reserve(128);
  Put<uint64_t>(out_, id);
  Put<uint8_t>(out_, flags);
}

void BlsResponseEncoder::SetNone() { Put<uint8_t>(out_, 2); }

void BlsResponseEncoder::SetError(INFERD_ErrorCode code, std::string_view message) {
  Put<uint8_t>(out_, 1);
  Put<uint8_t>(out_, static_cast<uint8_t>(code));
  Put<uint32_t>(out_, static_cast<uint32_t>(message.size()));
  PutBytes(out_, message.data(), message.size());
}

void BlsResponseEncoder::BeginOutputs(uint32_t output_count) {
  Put<uint8_t>(out_, 0);
  Put<uint32_t>(out_, output_count);
}

void BlsResponseEncoder::AddOutput(const WireTensor& output) {
  if (output.location == Location::kRegion || output.byte_size == 0) {
    PutTensor(out_, output);
    return;
  }
  // The descriptor without its data; the data is sent from where it is.
  WireTensor descriptor = output;
  descriptor.byte_size = 0;
  PutTensor(out_, descriptor);
  std::memcpy(out_.data() + out_.size() - sizeof(uint64_t), &output.byte_size, sizeof(uint64_t));
  borrowed_.push_back(Borrowed{out_.size(), output.data, output.byte_size});
}

std::vector<iovec> BlsResponseEncoder::parts() const {
  std::vector<iovec> parts;
  parts.reserve(2 * borrowed_.size() + 1);
  size_t from = 0;
  auto own = [&](size_t to) {
    if (to > from) parts.push_back(iovec{const_cast<uint8_t*>(out_.data()) + from, to - from});
    from = to;
  };
  for (const Borrowed& piece : borrowed_) {
    own(piece.at);
    parts.push_back(iovec{const_cast<uint8_t*>(piece.data), piece.size});
  }
  own(out_.size());
  return parts;
}

std::vector<uint8_t> BlsResponseEncoder::Flatten() const {
  std::vector<uint8_t> flat;
  for (const iovec& part : parts()) PutBytes(flat, part.iov_base, part.iov_len);
  return flat;
}

StatusOr<BlsResponseMessage> DecodeBlsResponse(std::span<const uint8_t> payload) {
  Reader reader(payload);
  BlsResponseMessage message;
  message.id = reader.Get<uint64_t>();
  message.flags = reader.Get<uint8_t>();
  WireResponse& response = message.response;
  const uint8_t has_error = reader.Get<uint8_t>();
  if (has_error == 2) {
    message.has_response = false;
  } else if (has_error != 0) {
    response.has_error = true;
    response.error_code = ToErrorCode(reader.Get<uint8_t>());
    response.error_message = reader.Str32();
  } else {
    const uint32_t output_count = reader.Get<uint32_t>();
    INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, output_count, kMinTensorBytes, "output"));
    response.outputs.resize(output_count);
    for (WireTensor& output : response.outputs) {
      INFERD_BACKEND_RETURN_IF_ERROR(GetTensor(reader, message.dims_storage, output));
    }
    for (size_t i = 0; i < response.outputs.size(); ++i) {
      response.outputs[i].dims = message.dims_storage[i];
    }
  }
  if (!reader.ok()) return Malformed("BLS_RESPONSE is cut short");
  if (!reader.at_end()) return Malformed("trailing bytes after BLS_RESPONSE");
  return message;
}

}  // namespace inferd::python
