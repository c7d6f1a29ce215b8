// SPDX-License-Identifier: Apache-2.0
#include "base/mutex.h"

#include <thread>

#include "gtest/gtest.h"

namespace inferd::base {
namespace {

// A waiter must wake when another thread changes its condition and then
// releases the mutex by waiting itself (not by Unlock): absl::Mutex's rule.
TEST(MutexTest, ReleasingByAwaitWakesOtherWaiters) {
  Mutex mu;
  bool flag = false;
  bool done = false;
  std::thread other([&] {
    MutexLock lock(&mu);
    flag = true;
    mu.Await([&] { return done; });  // releases mu without Unlock
  });
  {
    MutexLock lock(&mu);
    mu.Await([&] { return flag; });
    done = true;
  }
  other.join();
  EXPECT_TRUE(flag);
}

TEST(MutexTest, AwaitWithTimeoutReportsWhetherTheConditionHeld) {
  Mutex mu;
  MutexLock lock(&mu);
  EXPECT_FALSE(mu.AwaitWithTimeout([] { return false; }, std::chrono::milliseconds(1)));
  EXPECT_TRUE(mu.AwaitWithTimeout([] { return true; }, std::chrono::milliseconds(1)));
}

TEST(NotificationTest, WakesTheWaiter) {
  Notification n;
  std::thread t([&] { n.Notify(); });
  n.WaitForNotification();
  EXPECT_TRUE(n.HasBeenNotified());
  t.join();
}

}  // namespace
}  // namespace inferd::base
