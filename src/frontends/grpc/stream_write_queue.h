// SPDX-License-Identifier: Apache-2.0
// The order in which one ModelStreamInfer stream writes its answers, as
// Triton's: the answer of a request to an ordinary model (and a refusal)
// leaves in the order the requests arrived, so it waits for the answers
// of earlier such requests; a decoupled model's responses leave as they
// come. It also counts the bytes waiting, so that the stream can stop
// reading requests while its client does not read answers (gRPC allows one
// write at a time). Not thread-safe: the stream's mutex guards it. No I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>

#include "grpc_service.pb.h"

namespace inferd::frontends::grpc {

class StreamWriteQueue {
 public:
  using Message = inference::ModelStreamInferResponse;

  // Reserves the next place in arrival order; FillOrdered fills it.
  uint64_t ReserveOrdered();
  // The answer for `place` (nullopt: nothing to write); it and the answers
  // after it whose earlier places are all filled become writable.
  void FillOrdered(uint64_t place, std::optional<Message> message);
  // A response that leaves as it comes (a decoupled model's).
  void Push(Message message);

  // The next message to write, taken out of the queue; nullopt when none is
  // writable yet.
  std::optional<Message> Next();
  // Drops every message and every reserved place (the stream was
  // cancelled: nobody reads them).
  void Clear();

  // Nothing to write and no place waiting to be filled.
  bool Idle() const {
    return writable_.empty() && waiting_.empty() && next_place_ == next_release_;
  }
  // Bytes of the messages held (writable or waiting for an earlier place).
  size_t queued_bytes() const { return queued_bytes_; }

 private:
  void Release();

  std::deque<Message> writable_;
  // Filled places not yet released, by place; nullopt: nothing to write.
  std::map<uint64_t, std::optional<Message>> waiting_;
  uint64_t next_place_ = 0;    // the next place ReserveOrdered hands out
  uint64_t next_release_ = 0;  // the earliest place not yet released
  size_t queued_bytes_ = 0;
};

}  // namespace inferd::frontends::grpc
