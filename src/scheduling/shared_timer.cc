// SPDX-License-Identifier: Apache-2.0
#include "scheduling/shared_timer.h"

#include <chrono>

namespace inferd::scheduling {

SharedTimer::SharedTimer(const base::Clock& clock) : clock_(clock), thread_([this] { Run(); }) {}

SharedTimer::~SharedTimer() {
  {
    base::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

void SharedTimer::Schedule(TimerClient* client, int64_t at_nanos) {
  base::MutexLock lock(&mu_);
  auto [it, inserted] = due_.emplace(client, at_nanos);
  if (!inserted) {
    if (it->second <= at_nanos) return;  // an earlier call is already pending
    order_.erase({it->second, client});
    it->second = at_nanos;
  }
  order_.emplace(at_nanos, client);
}

void SharedTimer::Cancel(TimerClient* client) {
  base::MutexLock lock(&mu_);
  if (auto it = due_.find(client); it != due_.end()) {
    order_.erase({it->second, client});
    due_.erase(it);
  }
  auto not_running = [this, client]()
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return running_ != client; };
  mu_.Await(not_running);
}

void SharedTimer::Run() {
  base::MutexLock lock(&mu_);
  for (;;) {
    if (stopping_) return;
    if (order_.empty()) {
      auto woken = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !order_.empty(); };
      mu_.Await(woken);
      continue;
    }
    const auto [when, client] = *order_.begin();
    const int64_t now = clock_.NowNanos();
    if (when > now) {
      // Wake early when an earlier call is scheduled or on shutdown.
      auto changed = [this, when]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || order_.empty() || order_.begin()->first < when;
      };
      mu_.AwaitWithTimeout(changed, std::chrono::nanoseconds(when - now));
      continue;
    }
    order_.erase(order_.begin());
    due_.erase(client);
    running_ = client;
    mu_.Unlock();
    client->OnDeadline();  // never under the lock: it takes the scheduler's
    mu_.Lock();
    running_ = nullptr;
  }
}

}  // namespace inferd::scheduling
