// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/infer_call.h"

#include <chrono>

#include "gtest/gtest.h"

namespace inferd::frontends::grpc {
namespace {

using std::chrono::system_clock;
using namespace std::chrono_literals;

const system_clock::time_point kWallNow = system_clock::time_point() + 1000h;
constexpr int64_t kClockNow = 5'000'000'000;  // 5 s after the steady clock's epoch

TEST(DeadlineNanosTest, InfiniteDeadlineIsNone) {
  EXPECT_EQ(DeadlineNanos(system_clock::time_point::max(), kWallNow, kClockNow), 0);
}

TEST(DeadlineNanosTest, FutureDeadlineMovesToTheSteadyClock) {
  EXPECT_EQ(DeadlineNanos(kWallNow + 250ms, kWallNow, kClockNow), kClockNow + 250'000'000);
}

TEST(DeadlineNanosTest, PassedDeadlineIsInThePastButNeverNone) {
  EXPECT_EQ(DeadlineNanos(kWallNow - 1s, kWallNow, kClockNow), kClockNow - 1'000'000'000);
  EXPECT_EQ(DeadlineNanos(kWallNow - 10s, kWallNow, kClockNow), 1);
}

TEST(DeadlineNanosTest, DeadlineYearsAwayIsNone) {
  EXPECT_EQ(DeadlineNanos(kWallNow + 24h * 365 * 3, kWallNow, kClockNow), 0);
}

}  // namespace
}  // namespace inferd::frontends::grpc
