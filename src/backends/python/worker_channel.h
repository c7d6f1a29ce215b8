// SPDX-License-Identifier: Apache-2.0
// The server's end of the socket to one Python worker: framed messages
// (python/PROTOCOL.md) with a deadline on every receive, and one file
// descriptor passed with REGION. Used by one instance thread at a time: BLS
// completions from other threads reach that thread through a wake
// descriptor (py_bls.h) instead of writing here themselves, so sends never
// need a lock and a slow worker never blocks a server thread.
#pragma once

#include <sys/uio.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "py_protocol.h"

namespace inferd::python {

class WorkerChannel {
 public:
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;

  explicit WorkerChannel(int fd) : fd_(fd) {}  // takes ownership of `fd`
  ~WorkerChannel();
  WorkerChannel(const WorkerChannel&) = delete;
  WorkerChannel& operator=(const WorkerChannel&) = delete;

  // Sends one message whose payload is the concatenation of `parts`, with
  // `pass_fd` attached when >= 0. An error means the worker is gone.
  Status Send(MessageType type, std::span<const iovec> parts, int pass_fd = -1);
  Status Send(MessageType type, std::span<const uint8_t> payload);

  struct Message {
    MessageType type = MessageType::kError;
    std::vector<uint8_t> payload;
  };
  // Waits for the next message until `deadline` (nullopt: forever). On an
  // error the worker is unusable: it closed its end (exited), sent a
  // malformed frame, or did not answer in time (*timed_out is then true).
  StatusOr<Message> Receive(Deadline deadline, bool* timed_out);

  // The same, but also returns (kWoken) when `wake_fd` becomes readable,
  // and returns kTimedOut at the deadline without breaking the channel. A
  // message half read stays buffered for the next call, as do bytes of
  // messages after it: the worker may send several in a row (BLS_REQUESTs,
  // then RESULT).
  enum class Event { kMessage, kWoken, kTimedOut };
  struct Received {
    Event event = Event::kMessage;
    Message message;  // kMessage
  };
  StatusOr<Received> ReceiveOrWake(Deadline deadline, int wake_fd);

  int fd() const { return fd_; }

 private:
  // Moves buffered bytes into the message being assembled; true when it is
  // complete.
  bool TakeBuffered();
  // Waits for the socket (or `wake_fd`) until `deadline`, then reads what
  // is there, at most `capacity` bytes into `out`; 0 bytes read with kWoken
  // or kTimedOut.
  StatusOr<Event> ReadSome(uint8_t* out, size_t capacity, Deadline deadline, int wake_fd,
                           size_t* got);

  int fd_;
  // The message being assembled: its header, then its payload.
  std::array<uint8_t, kHeaderSize> header_{};
  size_t header_have_ = 0;
  Message partial_;
  size_t payload_have_ = 0;
  // Bytes read past the end of the message being assembled.
  std::array<uint8_t, 4096> buffer_{};
  size_t buffer_begin_ = 0;
  size_t buffer_end_ = 0;
};

}  // namespace inferd::python
