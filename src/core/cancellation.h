// SPDX-License-Identifier: Apache-2.0
// A flag a frontend raises when the client of a request went away (HTTP
// connection closed, gRPC call cancelled). Schedulers look at it before
// running a request and answer it with CANCELLED instead; a scheduler that
// queues the request may also ask to be told at once (OnCancel), so that the
// request leaves its queue without waiting for its turn. Thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <utility>

#include "base/mutex.h"

namespace inferd::core {

class CancellationToken {
 public:
  // Raises the flag, then runs the callback registered with OnCancel (once,
  // on this thread, under no lock). Later calls do nothing.
  void Cancel() {
    std::function<void()> callback;
    {
      base::MutexLock lock(&mu_);
      if (cancelled_.exchange(true, std::memory_order_acq_rel)) return;
      callback = std::move(callback_);
    }
    if (callback) callback();
  }
  bool IsCancelled() const { return cancelled_.load(std::memory_order_acquire); }

  // Sets what Cancel() runs; runs it now (on this thread) when the token is
  // already cancelled. One callback per token: a second call replaces the
  // first. The callback must be short and must not block.
  void OnCancel(std::function<void()> callback) {
    {
      base::MutexLock lock(&mu_);
      if (!cancelled_.load(std::memory_order_acquire)) {
        callback_ = std::move(callback);
        return;
      }
    }
    callback();
  }

 private:
  base::Mutex mu_;
  std::atomic<bool> cancelled_{false};
  std::function<void()> callback_ ABSL_GUARDED_BY(mu_);
};

}  // namespace inferd::core
