// SPDX-License-Identifier: Apache-2.0
// The messages between the Python backend and a Python worker process
// (python/PROTOCOL.md): message types, the frame header, and the binary
// EXECUTE / RESULT / BLS_REQUEST / BLS_RESPONSE / RESPONSE payloads. Pure
// encoding and decoding over byte buffers, no I/O, so every rule is
// unit-tested without a process. (Definitions: py_protocol.cc,
// py_bls_protocol.cc, py_response_protocol.cc.)
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend_status.h"
#include "inferd/backend.h"

namespace inferd::python {

using backend_util::Status;
using backend_util::StatusOr;

enum class MessageType : uint8_t {
  // server → worker
  kInit = 1,
  kRegion = 2,
  kExecute = 3,
  kFinalize = 4,
  kAutoComplete = 5,
  kBlsResponse = 6,
  kResponseSocket = 7,  // the response socket's descriptor attached
  kResponsePool = 8,    // u64 size; the pool's descriptor attached
  kCancelled = 9,       // on the response socket
  // worker → server
  kReady = 101,
  kError = 102,
  kResult = 103,
  kFinalized = 104,
  kConfig = 105,
  kBlsRequest = 106,
  kResponse = 107,     // on the response socket
  kIsCancelled = 108,  // on the response socket
};

// RESPONSE and BLS_RESPONSE flags (Triton's TRITONSERVER_RESPONSE_COMPLETE_FINAL).
inline constexpr uint8_t kFlagFinal = 1;

inline constexpr size_t kHeaderSize = 8;
// A payload larger than this is a protocol error, not an allocation.
inline constexpr uint64_t kMaxPayloadBytes = uint64_t{1} << 32;

struct Header {
  uint32_t length = 0;
  MessageType type = MessageType::kError;
};
void EncodeHeader(const Header& header, uint8_t out[kHeaderSize]);
Header DecodeHeader(const uint8_t in[kHeaderSize]);

enum class Location : uint8_t { kRegion = 0, kInline = 1 };

// One tensor as EXECUTE and RESULT describe it. On encode, `data` is the
// inline bytes (location kInline) and ignored otherwise; on decode, `data`
// points into the decoded payload (which must outlive it).
struct WireTensor {
  std::string_view name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::span<const int64_t> dims;
  Location location = Location::kInline;
  uint64_t byte_size = 0;
  uint64_t offset = 0;            // kRegion
  const uint8_t* data = nullptr;  // kInline
};

// ---- EXECUTE (server → worker) ------------------------------------------------

// Appends EXECUTE's payload piece by piece: Begin, then per request
// BeginRequest, its inputs, its requested outputs.
// The sequence correlation id of a request (RequestCorrelationId).
struct WireCorrelationId {
  uint64_t numeric = 0;
  std::string_view text;  // a string id when not empty
};

class ExecuteEncoder {
 public:
  ExecuteEncoder(uint32_t request_count, uint64_t output_offset, uint64_t output_size);
  // `request_id` names the request in RESPONSE messages.
  void BeginRequest(uint64_t request_id, uint32_t input_count);
  void AddInput(const WireTensor& input);
  void SetRequestedOutputs(std::span<const std::string_view> names);
  // Ends the request: its parameters (a JSON object) and correlation id.
  void SetContext(std::string_view parameters_json, const WireCorrelationId& correlation_id);
  std::vector<uint8_t>& payload() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

// The decoded form, for tests (the server never decodes EXECUTE).
struct ExecuteRequest {
  uint64_t request_id = 0;
  std::vector<WireTensor> inputs;
  std::vector<std::string_view> requested_outputs;
  std::string_view parameters_json;
  WireCorrelationId correlation_id;
  std::vector<std::vector<int64_t>> dims_storage;
};
struct ExecuteMessage {
  uint64_t output_offset = 0;
  uint64_t output_size = 0;
  std::vector<ExecuteRequest> requests;
};
StatusOr<ExecuteMessage> DecodeExecute(std::span<const uint8_t> payload);

// ---- RESULT (worker → server) ------------------------------------------------

struct WireResponse {
  // RESULT: the request's response senders answer it (RESPONSE messages).
  bool pending = false;
  bool has_error = false;
  INFERD_ErrorCode error_code = INFERD_ERROR_INTERNAL;
  std::string_view error_message;
  std::vector<WireTensor> outputs;
};
struct ResultMessage {
  uint64_t output_bytes_used = 0;
  std::vector<WireResponse> responses;
  // Backing store for every WireTensor::dims (copied: the payload is not
  // aligned for int64_t).
  std::vector<std::vector<int64_t>> dims_storage;
};
// Checks every count, length and bound against the payload; a malformed
// RESULT is an error, never an out-of-bounds read.
StatusOr<ResultMessage> DecodeResult(std::span<const uint8_t> payload);

// For tests and for the worker side's mirror: RESULT's encoding.
class ResultEncoder {
 public:
  ResultEncoder(uint32_t response_count, uint64_t output_bytes_used);
  void AddError(INFERD_ErrorCode code, std::string_view message);
  void AddPending();
  void BeginOutputs(uint32_t output_count);
  void AddOutput(const WireTensor& output);
  std::vector<uint8_t>& payload() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

// ---- RESPONSE (worker → server, on the response socket) ---------------------

struct ResponseMessage {
  uint64_t request_id = 0;
  bool final = false;
  bool has_response = true;  // false: the final flag alone
  // The response-pool block the tensors lie in (location 0), or kNoPoolBlock.
  uint64_t pool_block = 0;
  WireResponse response;
  std::vector<std::vector<int64_t>> dims_storage;
};
inline constexpr uint64_t kNoPoolBlock = ~uint64_t{0};
// Views into `payload`, which must outlive the message.
StatusOr<ResponseMessage> DecodeResponse(std::span<const uint8_t> payload);
// For tests: RESPONSE's encoding (the worker's side, mirrored).
std::vector<uint8_t> EncodeResponse(const ResponseMessage& message);

// IS_CANCELLED (worker → server): the request id; CANCELLED (server →
// worker): the id and whether the request is cancelled.
StatusOr<uint64_t> DecodeIsCancelled(std::span<const uint8_t> payload);
std::vector<uint8_t> EncodeCancelled(uint64_t request_id, bool cancelled);

// ---- BLS_REQUEST (worker → server) -------------------------------------------

// A request parameter as the worker sends it (correlation_id and flags
// arrive as sequence_id / sequence_start / sequence_end).
struct WireParameter {
  enum class Kind : uint8_t { kBool = 0, kInt = 1, kString = 2 };
  std::string_view key;
  Kind kind = Kind::kBool;
  bool bool_value = false;
  int64_t int_value = 0;
  std::string_view string_value;
};

struct BlsRequestMessage {
  uint64_t id = 0;
  std::string_view model_name;
  int64_t model_version = -1;  // <= 0: the newest ready version
  uint64_t timeout_us = 0;     // 0: none of its own
  bool decoupled = false;      // exec(decoupled=True): every response of the target
  std::vector<WireParameter> parameters;
  std::vector<std::string_view> requested_outputs;
  std::vector<WireTensor> inputs;
  std::vector<std::vector<int64_t>> dims_storage;
};
// Views into `payload`, which must outlive the message.
StatusOr<BlsRequestMessage> DecodeBlsRequest(std::span<const uint8_t> payload);

// For tests: BLS_REQUEST's encoding (the worker's side, mirrored).
std::vector<uint8_t> EncodeBlsRequest(const BlsRequestMessage& request);

// ---- BLS_RESPONSE (server → worker) ------------------------------------------

// Builds a BLS_RESPONSE whose inline output data is referenced, not copied:
// parts() interleaves the encoded descriptors with the callers' bytes, for
// one sendmsg (the data must stay valid until it is sent).
class BlsResponseEncoder {
 public:
  // `flags`: kFlagFinal on the call's last response (every response of a
  // call that is not decoupled).
  BlsResponseEncoder(uint64_t id, uint8_t flags);
  void SetError(INFERD_ErrorCode code, std::string_view message);
  // The final flag without a response (a decoupled target sent it alone).
  void SetNone();
  void BeginOutputs(uint32_t output_count);
  void AddOutput(const WireTensor& output);
  std::vector<iovec> parts() const;
  // The whole payload in one buffer (tests).
  std::vector<uint8_t> Flatten() const;

 private:
  struct Borrowed {
    size_t at;  // position in out_ the data follows
    const uint8_t* data;
    size_t size;
  };
  std::vector<uint8_t> out_;
  std::vector<Borrowed> borrowed_;
};

struct BlsResponseMessage {
  uint64_t id = 0;
  uint8_t flags = 0;
  bool has_response = true;  // false: SetNone
  WireResponse response;
  std::vector<std::vector<int64_t>> dims_storage;
};
// For tests: BLS_RESPONSE decoded (the worker decodes it in production).
StatusOr<BlsResponseMessage> DecodeBlsResponse(std::span<const uint8_t> payload);

// ---- ERROR (worker → server) -------------------------------------------------

struct ErrorMessage {
  INFERD_ErrorCode code = INFERD_ERROR_INTERNAL;
  std::string message;
};
ErrorMessage DecodeError(std::span<const uint8_t> payload);

}  // namespace inferd::python
