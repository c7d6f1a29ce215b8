// SPDX-License-Identifier: Apache-2.0
// RESPONSE, IS_CANCELLED and CANCELLED: the response socket's messages
// (python/PROTOCOL.md "Response senders").
#include <cstring>

#include "py_protocol.h"
#include "py_wire.h"

namespace inferd::python {

using namespace wire;  // NOLINT: the codec building blocks

namespace {

// RESPONSE kinds.
constexpr uint8_t kOutputs = 0;
constexpr uint8_t kError = 1;
constexpr uint8_t kNone = 2;

}  // namespace

StatusOr<ResponseMessage> DecodeResponse(std::span<const uint8_t> payload) {
  Reader reader(payload);
  ResponseMessage message;
  message.request_id = reader.Get<uint64_t>();
  const uint8_t flags = reader.Get<uint8_t>();
  const uint8_t kind = reader.Get<uint8_t>();
  message.pool_block = reader.Get<uint64_t>();
  if (!reader.ok()) return Malformed("RESPONSE is cut short");
  message.final = (flags & kFlagFinal) != 0;
  WireResponse& response = message.response;
  if (kind == kNone) {
    if (!message.final) return Malformed("a RESPONSE without a response must carry the final flag");
    message.has_response = false;
  } else if (kind == kError) {
    response.has_error = true;
    response.error_code = ToErrorCode(reader.Get<uint8_t>());
    response.error_message = reader.Str32();
  } else if (kind == kOutputs) {
    const uint32_t output_count = reader.Get<uint32_t>();
    INFERD_BACKEND_RETURN_IF_ERROR(CheckCount(reader, output_count, kMinTensorBytes, "output"));
    response.outputs.resize(output_count);
    for (WireTensor& output : response.outputs) {
      INFERD_BACKEND_RETURN_IF_ERROR(GetTensor(reader, message.dims_storage, output));
    }
    for (size_t i = 0; i < response.outputs.size(); ++i) {
      response.outputs[i].dims = message.dims_storage[i];
    }
  } else {
    return Malformed("RESPONSE kind " + std::to_string(kind));
  }
  if (!reader.ok()) return Malformed("RESPONSE is cut short");
  if (!reader.at_end()) return Malformed("trailing bytes after RESPONSE");
  return message;
}

std::vector<uint8_t> EncodeResponse(const ResponseMessage& message) {
  std::vector<uint8_t> out;
  Put<uint64_t>(out, message.request_id);
  Put<uint8_t>(out, message.final ? kFlagFinal : 0);
  const WireResponse& response = message.response;
  Put<uint8_t>(out, !message.has_response ? kNone : response.has_error ? kError : kOutputs);
  Put<uint64_t>(out, message.pool_block);
  if (!message.has_response) return out;
  if (response.has_error) {
    Put<uint8_t>(out, static_cast<uint8_t>(response.error_code));
    Put<uint32_t>(out, static_cast<uint32_t>(response.error_message.size()));
    PutBytes(out, response.error_message.data(), response.error_message.size());
    return out;
  }
  Put<uint32_t>(out, static_cast<uint32_t>(response.outputs.size()));
  for (const WireTensor& output : response.outputs) PutTensor(out, output);
  return out;
}

StatusOr<uint64_t> DecodeIsCancelled(std::span<const uint8_t> payload) {
  if (payload.size() != sizeof(uint64_t)) return Malformed("IS_CANCELLED is not 8 bytes");
  uint64_t id = 0;
  std::memcpy(&id, payload.data(), sizeof(id));
  return id;
}

std::vector<uint8_t> EncodeCancelled(uint64_t request_id, bool cancelled) {
  std::vector<uint8_t> out;
  Put<uint64_t>(out, request_id);
  Put<uint8_t>(out, cancelled ? 1 : 0);
  return out;
}

}  // namespace inferd::python
