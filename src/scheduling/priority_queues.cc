// SPDX-License-Identifier: Apache-2.0
#include "scheduling/priority_queues.h"

#include <algorithm>

namespace inferd::scheduling {

int64_t QueuedRequest::WakeAt() const {
  if (timeout_deadline == 0) return client_deadline;
  if (client_deadline == 0) return timeout_deadline;
  return std::min(timeout_deadline, client_deadline);
}

PriorityQueues::PriorityQueues(const BatchingConfig& config) {
  // priority_levels 0 means one queue with the default policy.
  const size_t count = std::max<uint64_t>(config.priority_levels, 1);
  levels_ = std::vector<Level>(count);  // not resize: deque<move-only> cannot relocate
  for (size_t i = 0; i < count; ++i) {
    auto it = config.priority_queue_policy.find(i + 1);
    levels_[i].policy =
        it != config.priority_queue_policy.end() ? it->second : config.default_queue_policy;
  }
  if (config.priority_levels > 0 && config.default_priority_level >= 1 &&
      config.default_priority_level <= config.priority_levels) {
    default_level_ = config.default_priority_level - 1;
  }
}

size_t PriorityQueues::LevelFor(uint64_t priority) const {
  // 0, or a level the model does not have, means the default level.
  if (priority == 0 || priority > levels_.size()) return default_level_;
  return static_cast<size_t>(priority - 1);
}

int64_t PriorityQueues::TimeoutDeadline(size_t level, uint64_t request_timeout_micros,
                                        int64_t now) const {
  const auto& policy = levels_[level].policy;
  uint64_t timeout = policy.default_timeout_micros;
  // Triton's rule: a request's own timeout may only shorten a non-zero default.
  if (policy.allow_timeout_override && request_timeout_micros != 0 &&
      request_timeout_micros < timeout) {
    timeout = request_timeout_micros;
  }
  if (timeout == 0) return 0;
  return now + static_cast<int64_t>(std::min<uint64_t>(timeout, INT64_MAX / 2000) * 1000);
}

absl::Status PriorityQueues::CheckCapacity(size_t level) const {
  const auto& l = levels_[level];
  const uint32_t capacity = l.policy.max_queue_size;
  if (capacity != 0 && l.queue.size() + l.delayed.size() >= capacity) {
    return absl::UnavailableError("Exceeds maximum queue size");
  }
  return absl::OkStatus();
}

void PriorityQueues::Register(const QueuedRequest& entry) {
  if (const int64_t at = entry.WakeAt(); at != 0) deadlines_.insert(at);
}

void PriorityQueues::Unregister(const QueuedRequest& entry) {
  if (const int64_t at = entry.WakeAt(); at != 0) {
    if (auto it = deadlines_.find(at); it != deadlines_.end()) deadlines_.erase(it);
  }
}

void PriorityQueues::Push(size_t level, QueuedRequest entry) {
  Register(entry);
  levels_[level].queue.push_back(std::move(entry));
  ++size_;
}

int64_t PriorityQueues::EarliestDeadline() const {
  return deadlines_.empty() ? 0 : *deadlines_.begin();
}

bool PriorityQueues::NextPosition(QueuePosition& position) const {
  for (size_t i = 0; i < levels_.size(); ++i) {
    if (!levels_[i].queue.empty()) {
      position = {i, false};
      return true;
    }
    if (!levels_[i].delayed.empty()) {
      position = {i, true};
      return true;
    }
  }
  return false;
}

std::deque<QueuedRequest>& PriorityQueues::Deque(const QueuePosition& position) {
  Level& level = levels_[position.level];
  return position.delayed ? level.delayed : level.queue;
}

QueuedRequest& PriorityQueues::Front(const QueuePosition& position) {
  return Deque(position).front();
}

QueuedRequest PriorityQueues::PopFront(const QueuePosition& position) {
  auto& deque = Deque(position);
  QueuedRequest entry = std::move(deque.front());
  deque.pop_front();
  Unregister(entry);
  --size_;
  return entry;
}

void PriorityQueues::PushFront(const QueuePosition& position, QueuedRequest entry) {
  Register(entry);
  Deque(position).push_front(std::move(entry));
  ++size_;
}

bool PriorityQueues::DelaysOnTimeout(size_t level) const {
  return levels_[level].policy.delay_on_timeout;
}

void PriorityQueues::Delay(size_t level, QueuedRequest entry) {
  entry.timeout_deadline = 0;  // served after the unexpired requests, however long that takes
  Register(entry);
  levels_[level].delayed.push_back(std::move(entry));
  ++size_;
}

void PriorityQueues::Sweep(int64_t now, std::vector<QueuedRequest>& removed) {
  for (size_t i = 0; i < levels_.size(); ++i) {
    for (bool delayed : {false, true}) {
      auto& deque = delayed ? levels_[i].delayed : levels_[i].queue;
      std::deque<QueuedRequest> kept;
      std::vector<QueuedRequest> to_delay;
      for (auto& entry : deque) {
        const bool client_gone = entry.request->IsCancelled() ||
                                 (entry.client_deadline != 0 && entry.client_deadline <= now);
        const bool timed_out = entry.timeout_deadline != 0 && entry.timeout_deadline <= now;
        if (!client_gone && !timed_out) {
          kept.push_back(std::move(entry));
          continue;
        }
        Unregister(entry);
        --size_;
        if (!client_gone && DelaysOnTimeout(i)) {
          to_delay.push_back(std::move(entry));
        } else {
          removed.push_back(std::move(entry));
        }
      }
      deque = std::move(kept);
      for (auto& entry : to_delay) Delay(i, std::move(entry));
    }
  }
}

}  // namespace inferd::scheduling
