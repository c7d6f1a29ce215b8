// SPDX-License-Identifier: Apache-2.0
#include "base/clock.h"

#include <chrono>

namespace inferd::base {
namespace {

class SteadyClock final : public Clock {
 public:
  int64_t NowNanos() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

const Clock& Clock::Real() {
  static const SteadyClock* const clock = new SteadyClock();
  return *clock;
}

uint64_t WallClockMillis() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace inferd::base
