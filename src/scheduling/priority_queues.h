// SPDX-License-Identifier: Apache-2.0
// The queues of the dynamic batcher: one FIFO per priority level (1 is
// served first), each with its queue policy (capacity, timeout, REJECT or
// DELAY) and a "delayed" list for requests that timed out under DELAY.
// Not thread-safe: the batcher guards it with its mutex.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <vector>

#include "absl/status/status.h"
#include "backends/abi/backend_request.h"
#include "scheduling/batching_config.h"

namespace inferd::scheduling {

struct QueuedRequest {
  std::unique_ptr<INFERD_Request> request;
  int64_t rows = 1;              // the request's batch size (1 for non-batching models)
  int64_t timeout_deadline = 0;  // queue-policy deadline (ns); 0 = none
  int64_t client_deadline = 0;   // the client's own deadline (ns); 0 = none
  // The earliest of the two deadlines, as registered in PriorityQueues.
  int64_t WakeAt() const;
};

// Where a request sits: its level and whether it is in the delayed list.
struct QueuePosition {
  size_t level = 0;
  bool delayed = false;
};

class PriorityQueues {
 public:
  explicit PriorityQueues(const BatchingConfig& config);

  // The level index (0-based) that a request asking for `priority` joins.
  size_t LevelFor(uint64_t priority) const;
  // The queue-policy deadline for a request entering `level` at `now`.
  int64_t TimeoutDeadline(size_t level, uint64_t request_timeout_micros, int64_t now) const;
  // Unavailable "Exceeds maximum queue size" when `level` is full.
  absl::Status CheckCapacity(size_t level) const;

  void Push(size_t level, QueuedRequest entry);
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The earliest deadline (timeout or client) of any queued request; 0 = none.
  int64_t EarliestDeadline() const;

  // Service order: level 1's queue, then level 1's delayed list, then level 2...
  // Returns the position of the next entry, or nullopt when all are empty.
  bool NextPosition(QueuePosition& position) const;
  QueuedRequest& Front(const QueuePosition& position);
  QueuedRequest PopFront(const QueuePosition& position);
  // Puts an entry back at the front of where it came from (undoing PopFront,
  // in reverse order).
  void PushFront(const QueuePosition& position, QueuedRequest entry);
  // Moves a timed-out entry of a DELAY queue to its level's delayed list;
  // it has no timeout there any more.
  void Delay(size_t level, QueuedRequest entry);
  bool DelaysOnTimeout(size_t level) const;

  // Removes every entry whose deadline is at or before `now` from anywhere in
  // the queues (REJECT timeouts, cancelled or past client deadline) into
  // `removed`, and moves DELAY timeouts to the delayed lists. O(size).
  void Sweep(int64_t now, std::vector<QueuedRequest>& removed);

 private:
  struct Level {
    QueuePolicy policy;
    std::deque<QueuedRequest> queue;
    std::deque<QueuedRequest> delayed;
  };
  std::deque<QueuedRequest>& Deque(const QueuePosition& position);
  void Register(const QueuedRequest& entry);
  void Unregister(const QueuedRequest& entry);

  std::vector<Level> levels_;
  size_t default_level_ = 0;
  size_t size_ = 0;
  std::multiset<int64_t> deadlines_;  // WakeAt() of every entry that has one
};

}  // namespace inferd::scheduling
