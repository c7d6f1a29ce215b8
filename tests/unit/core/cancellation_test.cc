// SPDX-License-Identifier: Apache-2.0
#include "core/cancellation.h"

#include <atomic>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace inferd::core {
namespace {

TEST(CancellationTokenTest, CancelRaisesTheFlagAndRunsTheCallbackOnce) {
  CancellationToken token;
  int calls = 0;
  token.OnCancel([&calls] { ++calls; });
  EXPECT_FALSE(token.IsCancelled());
  EXPECT_EQ(calls, 0);
  token.Cancel();
  EXPECT_TRUE(token.IsCancelled());
  token.Cancel();
  EXPECT_EQ(calls, 1);
}

TEST(CancellationTokenTest, CallbackRegisteredAfterCancelRunsAtOnce) {
  CancellationToken token;
  token.Cancel();
  int calls = 0;
  token.OnCancel([&calls] { ++calls; });
  EXPECT_EQ(calls, 1);
}

// An ensemble's steps share their request's token: each queue they wait in
// registers its own callback, and one cancellation reaches all of them.
TEST(CancellationTokenTest, EveryCallbackRunsOnceInOrder) {
  CancellationToken token;
  std::vector<int> calls;
  token.OnCancel([&calls] { calls.push_back(1); });
  token.OnCancel([&calls] { calls.push_back(2); });
  token.Cancel();
  token.Cancel();
  EXPECT_EQ(calls, (std::vector<int>{1, 2}));
}

TEST(CancellationTokenTest, CancelAndRegisterRacingRunTheCallbackExactlyOnce) {
  for (int round = 0; round < 200; ++round) {
    CancellationToken token;
    std::atomic<int> calls{0};
    std::thread canceller([&token] { token.Cancel(); });
    token.OnCancel([&calls] { calls.fetch_add(1); });
    canceller.join();
    EXPECT_EQ(calls.load(), 1);
  }
}

}  // namespace
}  // namespace inferd::core
