// SPDX-License-Identifier: Apache-2.0
// Time as the server measures it: a monotonic clock in nanoseconds, behind
// an interface so that schedulers and statistics can be driven by a fake
// clock in tests (time comes from an injected Clock, so tests control it).
#pragma once

#include <cstdint>

namespace inferd::base {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic nanoseconds since an arbitrary epoch; never goes backwards.
  virtual int64_t NowNanos() const = 0;

  // The process-wide real clock (std::chrono::steady_clock). Never destroyed.
  static const Clock& Real();
};

// Milliseconds since the Unix epoch, for fields that the protocol reports as
// wall-clock time (statistics' last_inference).
uint64_t WallClockMillis();

}  // namespace inferd::base
