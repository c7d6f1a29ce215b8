// SPDX-License-Identifier: Apache-2.0
// The server's end of the socket to one Python worker: framed messages
// (python/PROTOCOL.md) with a deadline on every receive, and one file
// descriptor passed with REGION. Used by one instance thread at a time.
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
  StatusOr<Message> Receive(std::optional<std::chrono::steady_clock::time_point> deadline,
                            bool* timed_out);

  int fd() const { return fd_; }

 private:
  // Reads exactly `size` bytes, waiting until `deadline`.
  Status ReadExactly(uint8_t* out, size_t size,
                     std::optional<std::chrono::steady_clock::time_point> deadline,
                     bool* timed_out);
  // Waits until readable (or `deadline`), then reads what is there, up to
  // `capacity` bytes; at least one.
  StatusOr<size_t> ReadSome(uint8_t* out, size_t capacity,
                            std::optional<std::chrono::steady_clock::time_point> deadline,
                            bool* timed_out);

  int fd_;
  // The first read of each answer: its header and, usually, all of it.
  std::array<uint8_t, 4096> first_read_{};
};

}  // namespace inferd::python
