// SPDX-License-Identifier: Apache-2.0
// A flag a frontend raises when the client of a request went away (HTTP
// connection closed, gRPC call cancelled). Schedulers look at it before
// running a request and answer it with CANCELLED instead; a scheduler that
// queues the request may also ask to be told at once (OnCancel), so that the
// request leaves its queue without waiting for its turn. The requests an
// ensemble or a backend makes on behalf of a request share its token, so
// one cancellation reaches every queue they wait in. Thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <utility>
#include <vector>

#include "base/mutex.h"

namespace inferd::core {

class CancellationToken {
 public:
  // Raises the flag, then runs the callbacks registered with OnCancel (once
  // each, in registration order, on this thread, under no lock). Later
  // calls do nothing.
  void Cancel() {
    std::vector<std::function<void()>> callbacks;
    {
      base::MutexLock lock(&mu_);
      if (cancelled_.exchange(true, std::memory_order_acq_rel)) return;
      callbacks.swap(callbacks_);
    }
    for (auto& callback : callbacks) callback();
  }
  bool IsCancelled() const { return cancelled_.load(std::memory_order_acquire); }

  // Adds a callback for Cancel() to run; runs it now (on this thread) when
  // the token is already cancelled. Every queue a request (or one of its
  // ensemble steps) waits in adds one. The callback must be short and must
  // not block.
  void OnCancel(std::function<void()> callback) {
    {
      base::MutexLock lock(&mu_);
      if (!cancelled_.load(std::memory_order_acquire)) {
        callbacks_.push_back(std::move(callback));
        return;
      }
    }
    callback();
  }

 private:
  base::Mutex mu_;
  std::atomic<bool> cancelled_{false};
  std::vector<std::function<void()>> callbacks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace inferd::core
