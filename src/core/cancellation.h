// SPDX-License-Identifier: Apache-2.0
// A flag a frontend raises when the client of a request went away (HTTP
// connection closed, gRPC call cancelled). Schedulers look at it before
// running a request and answer it with CANCELLED instead. Thread-safe.
#pragma once

#include <atomic>

namespace inferd::core {

class CancellationToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_release); }
  bool IsCancelled() const { return cancelled_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> cancelled_{false};
};

}  // namespace inferd::core
