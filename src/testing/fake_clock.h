// SPDX-License-Identifier: Apache-2.0
// A Clock that moves only when a test says so. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/clock.h"

namespace inferd::testing {

class FakeClock final : public base::Clock {
 public:
  explicit FakeClock(int64_t start_nanos = 1'000'000'000) : now_(start_nanos) {}
  int64_t NowNanos() const override { return now_.load(std::memory_order_acquire); }
  void Advance(std::chrono::nanoseconds by) {
    now_.fetch_add(by.count(), std::memory_order_acq_rel);
  }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace inferd::testing
