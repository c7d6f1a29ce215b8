// SPDX-License-Identifier: Apache-2.0
// BLS ("business logic scripting") on the server side: the requests a
// Python model sends to other models while its instance waits for the
// worker's answer (python/PROTOCOL.md "BLS"). Each BLS_REQUEST becomes an
// INFERD_InferRequest on the server's public path (ServerInferAsync, or
// ServerInferAsyncDecoupled for exec(decoupled=True)), child of the request
// being executed; its completions, on some other server thread, are handed
// to the instance thread, which alone writes to the worker's socket and
// answers with a BLS_RESPONSE each.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "inferd/backend.h"
#include "py_protocol.h"
#include "shm_region.h"
#include "worker_channel.h"

namespace inferd::python {

// Carries BLS completions from the threads that run them to the instance
// thread, and wakes it (an eventfd polled beside the worker's socket). One
// per instance, co-owned by every completion in flight: a completion that
// comes after its EXECUTE ended, after the worker died or after the
// instance was deleted touches only this object and frees what it carries.
class BlsMailbox {
 public:
  struct Completion {
    uint64_t id = 0;                           // the worker's call id
    INFERD_InferResponse* response = nullptr;  // owned
    INFERD_Error* error = nullptr;             // owned
    // kFlagFinal on a call's last completion (a decoupled call has many).
    uint8_t flags = kFlagFinal;
  };

  static StatusOr<std::shared_ptr<BlsMailbox>> Create(const INFERD_ServerApi& api);
  ~BlsMailbox();  // frees whatever is still queued
  BlsMailbox(const BlsMailbox&) = delete;
  BlsMailbox& operator=(const BlsMailbox&) = delete;

  int wake_fd() const { return fd_; }
  // Accepts completions of a new exchange from now on; returns its number.
  uint64_t Open();
  // Accepts none any more, and frees those queued.
  void Close();
  // Any thread: queues the completion of a call of exchange `epoch`, or
  // frees it when that exchange is over.
  void Post(uint64_t epoch, Completion completion);
  // Instance thread: everything queued; resets the wake descriptor.
  std::vector<Completion> Take();
  void Free(Completion& completion) const;

 private:
  BlsMailbox(const INFERD_ServerApi& api, int fd) : api_(api), fd_(fd) {}
  void Reset();  // clears the wake descriptor; REQUIRES mu_ held

  const INFERD_ServerApi& api_;  // static server data
  const int fd_;
  std::mutex mu_;
  uint64_t epoch_ = 0;
  bool open_ = false;
  bool signalled_ = false;  // the wake descriptor was written since the last Reset
  std::vector<Completion> queue_;
};

// What one exchange (the conversation about one EXECUTE, or INIT) needs.
struct BlsContext {
  const INFERD_ServerApi* api = nullptr;
  INFERD_Server* server = nullptr;      // null: BLS is unavailable
  std::shared_ptr<BlsMailbox> mailbox;  // null: BLS is unavailable
  std::string unavailable;              // why, when it is
  WorkerChannel* channel = nullptr;
  std::shared_ptr<ShmRegion> region;  // the region the worker has mapped, or null
  // The EXECUTE's output range, where the worker places BLS inputs; null
  // when there is none (INIT, no region).
  std::shared_ptr<RegionBlock> output_range;
  const INFERD_Request* parent = nullptr;  // inherits cancellation and deadline
};

// The BLS calls of one exchange. Lives on the instance thread; the calls it
// made may complete after it is gone (their memory is owned by the
// completion, the mailbox and the region blocks, never by this object).
class BlsExchange {
 public:
  using Clock = std::chrono::steady_clock;

  explicit BlsExchange(BlsContext context);
  ~BlsExchange();  // later completions are dropped; BLS output blocks freed
  BlsExchange(const BlsExchange&) = delete;
  BlsExchange& operator=(const BlsExchange&) = delete;

  // A BLS_REQUEST: sends the request to its model, or answers at once with
  // an error (unknown model, bad inputs: the model sees an error response).
  // A non-OK status means the worker broke the protocol or is gone.
  Status OnRequest(std::vector<uint8_t> payload);
  // Answers the calls whose completions arrived (the mailbox woke us).
  Status Deliver();
  // Answers the calls whose timeout passed with DEADLINE_EXCEEDED, even
  // though their model may still be executing them.
  Status ExpireDue();
  std::optional<Clock::time_point> NextExpiry() const;

  int wake_fd() const { return context_.mailbox != nullptr ? context_.mailbox->wake_fd() : -1; }
  size_t outstanding() const { return calls_.size(); }
  // How far into the output range the worker's BLS inputs reach (the
  // worker reports it in output_bytes_used too; this is the server's own
  // account, so that a block a target still reads is never freed early).
  uint64_t input_high_mark() const { return high_mark_; }
  // BLS tensor bytes that travelled inline for want of room in the region.
  uint64_t inline_bytes() const { return inline_bytes_; }

 private:
  struct Call {
    std::string model;
    uint64_t timeout_us = 0;
    std::optional<Clock::time_point> expiry;
    bool decoupled = false;  // exec(decoupled=True)
  };

  Status Submit(const BlsRequestMessage& message, const std::shared_ptr<const void>& payload);
  Status Answer(uint64_t id, const Call& call, const BlsMailbox::Completion& completion);
  Status SendError(uint64_t id, INFERD_ErrorCode code, std::string_view message,
                   uint8_t flags = kFlagFinal);

  BlsContext context_;
  uint64_t epoch_ = 0;
  std::map<uint64_t, Call> calls_;  // outstanding, by the worker's call id
  std::vector<std::pair<uint64_t, uint64_t>> output_blocks_;  // offset, size
  uint64_t high_mark_ = 0;
  uint64_t inline_bytes_ = 0;
};

}  // namespace inferd::python
