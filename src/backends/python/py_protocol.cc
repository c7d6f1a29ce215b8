// SPDX-License-Identifier: Apache-2.0
#include "py_protocol.h"

#include <bit>
#include <cstring>
#include <type_traits>

namespace inferd::python {
namespace {

// Little-endian on every platform inferd builds for (x86-64, aarch64); the
// static_assert keeps a big-endian port from silently breaking the wire.
static_assert(std::endian::native == std::endian::little, "the worker protocol is little-endian");

template <typename T>
void Put(std::vector<uint8_t>& out, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}

void PutBytes(std::vector<uint8_t>& out, const void* data, size_t size) {
  if (size == 0) return;
  const auto* bytes = static_cast<const uint8_t*>(data);
  out.insert(out.end(), bytes, bytes + size);
}

void PutStr16(std::vector<uint8_t>& out, std::string_view text) {
  Put<uint16_t>(out, static_cast<uint16_t>(text.size()));
  PutBytes(out, text.data(), text.size());
}

void PutTensor(std::vector<uint8_t>& out, const WireTensor& tensor) {
  PutStr16(out, tensor.name);
  Put<uint8_t>(out, static_cast<uint8_t>(tensor.datatype));
  Put<uint8_t>(out, static_cast<uint8_t>(tensor.dims.size()));
  for (int64_t dim : tensor.dims) Put<int64_t>(out, dim);
  Put<uint8_t>(out, static_cast<uint8_t>(tensor.location));
  Put<uint64_t>(out, tensor.byte_size);
  if (tensor.location == Location::kRegion) {
    Put<uint64_t>(out, tensor.offset);
  } else {
    PutBytes(out, tensor.data, tensor.byte_size);
  }
}

// Reads a payload front to back; every read is bounds-checked and the first
// failure sticks (later reads return zeros), so decoders check ok() once per
// item rather than after every field.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}

  template <typename T>
  T Get() {
    T value{};
    if (!Need(sizeof(T))) return value;
    std::memcpy(&value, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  const uint8_t* Bytes(uint64_t size) {
    if (!Need(size)) return nullptr;
    const uint8_t* data = in_.data() + at_;
    at_ += size;
    return data;
  }
  std::string_view Str16() { return Str(Get<uint16_t>()); }
  std::string_view Str32() { return Str(Get<uint32_t>()); }

  bool ok() const { return ok_; }
  bool at_end() const { return at_ == in_.size(); }
  size_t remaining() const { return in_.size() - at_; }

 private:
  bool Need(uint64_t size) {
    if (!ok_ || size > in_.size() - at_) ok_ = false;
    return ok_;
  }
  std::string_view Str(uint64_t size) {
    const uint8_t* data = Bytes(size);
    return data == nullptr ? std::string_view()
                           : std::string_view(reinterpret_cast<const char*>(data), size);
  }

  std::span<const uint8_t> in_;
  size_t at_ = 0;
  bool ok_ = true;
};

// Bytes from the peer become enum values only when they name one: an
// out-of-range value in an enum object is undefined behaviour.
INFERD_DataType ToDataType(uint8_t value) {
  return value <= INFERD_TYPE_BF16 ? static_cast<INFERD_DataType>(value) : INFERD_TYPE_INVALID;
}
INFERD_ErrorCode ToErrorCode(uint8_t value) {
  return value <= INFERD_ERROR_DEADLINE_EXCEEDED ? static_cast<INFERD_ErrorCode>(value)
                                                 : INFERD_ERROR_UNKNOWN;
}

Status Malformed(const std::string& what) {
  return Status::Internal("malformed message from the Python worker: " + what);
}

// Decodes one tensor; its dims go to a new entry of `dims_storage`.
Status GetTensor(Reader& reader, std::vector<std::vector<int64_t>>& dims_storage,
                 WireTensor& tensor) {
  tensor.name = reader.Str16();
  tensor.datatype = ToDataType(reader.Get<uint8_t>());
  const uint8_t ndim = reader.Get<uint8_t>();
  std::vector<int64_t>& dims = dims_storage.emplace_back();
  for (uint8_t i = 0; i < ndim && reader.ok(); ++i) dims.push_back(reader.Get<int64_t>());
  const uint8_t location = reader.Get<uint8_t>();
  tensor.byte_size = reader.Get<uint64_t>();
  if (!reader.ok()) return Malformed("a tensor is cut short");
  if (location == static_cast<uint8_t>(Location::kRegion)) {
    tensor.location = Location::kRegion;
    tensor.offset = reader.Get<uint64_t>();
  } else if (location == static_cast<uint8_t>(Location::kInline)) {
    tensor.location = Location::kInline;
    tensor.data = reader.Bytes(tensor.byte_size);
  } else {
    return Malformed("tensor '" + std::string(tensor.name) + "' has location " +
                     std::to_string(location));
  }
  if (!reader.ok()) return Malformed("tensor '" + std::string(tensor.name) + "' is cut short");
  return Status();
}

// Counts come from the peer: a count larger than the bytes left could hold
// is malformed before anything is reserved for it.
Status CheckCount(const Reader& reader, uint64_t count, size_t min_item_bytes, const char* what) {
  if (!reader.ok() || count > reader.remaining() / min_item_bytes) {
    return Malformed(std::string("bad ") + what + " count");
  }
  return Status();
}

// str16 + datatype + ndim + location + byte_size: the smallest tensor.
constexpr size_t kMinTensorBytes = 2 + 1 + 1 + 1 + 8;

}  // namespace

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

void ExecuteEncoder::BeginRequest(uint32_t input_count) { Put<uint32_t>(out_, input_count); }

void ExecuteEncoder::AddInput(const WireTensor& input) { PutTensor(out_, input); }

void ExecuteEncoder::SetRequestedOutputs(std::span<const std::string_view> names) {
  Put<uint32_t>(out_, static_cast<uint32_t>(names.size()));
  for (std::string_view name : names) PutStr16(out_, name);
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
    const uint32_t input_count = reader.Get<uint32_t>();
    INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, input_count, kMinTensorBytes, "input"));
    request.inputs.resize(input_count);
    for (WireTensor& input : request.inputs) {
      INFERD_BACKEND_RETURN_IF_ERROR(GetTensor(reader, request.dims_storage, input));
    }
    const uint32_t output_count = reader.Get<uint32_t>();
    INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, output_count, 2, "output"));
    for (uint32_t i = 0; i < output_count; ++i) request.requested_outputs.push_back(reader.Str16());
    if (!reader.ok()) return Malformed("requested outputs are cut short");
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

StatusOr<BlsRequestMessage> DecodeBlsRequest(std::span<const uint8_t> payload) {
  Reader reader(payload);
  BlsRequestMessage message;
  message.id = reader.Get<uint64_t>();
  message.model_name = reader.Str16();
  message.model_version = reader.Get<int64_t>();
  message.timeout_us = reader.Get<uint64_t>();
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

BlsResponseEncoder::BlsResponseEncoder(uint64_t id) {
  out_.reserve(128);
  Put<uint64_t>(out_, id);
}

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
  WireResponse& response = message.response;
  const uint8_t has_error = reader.Get<uint8_t>();
  if (has_error != 0) {
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
