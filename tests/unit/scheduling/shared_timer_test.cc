// SPDX-License-Identifier: Apache-2.0
#include "scheduling/shared_timer.h"

#include <atomic>

#include "base/mutex.h"
#include "gtest/gtest.h"

namespace inferd::scheduling {
namespace {

class CountingClient final : public TimerClient {
 public:
  void OnDeadline() override {
    calls.fetch_add(1);
    called.Notify();
  }
  std::atomic<int> calls{0};
  base::Notification called;
};

int64_t Now() { return base::Clock::Real().NowNanos(); }

TEST(SharedTimerTest, CallsBackAtTheRequestedTime) {
  SharedTimer timer;
  CountingClient client;
  const int64_t at = Now() + 2'000'000;
  timer.Schedule(&client, at);
  client.called.WaitForNotification();
  EXPECT_GE(Now(), at);
  EXPECT_EQ(client.calls.load(), 1);
}

TEST(SharedTimerTest, EarlierScheduleWinsAndCallsOnce) {
  SharedTimer timer;
  CountingClient client;
  timer.Schedule(&client, Now() + 10'000'000'000);  // far away
  timer.Schedule(&client, Now() + 1'000'000);       // replaces it
  client.called.WaitForNotification();
  timer.Cancel(&client);
  EXPECT_EQ(client.calls.load(), 1);
}

TEST(SharedTimerTest, CancelDropsThePendingCall) {
  SharedTimer timer;
  CountingClient client;
  CountingClient witness;
  timer.Schedule(&client, Now() + 1'000'000);
  timer.Cancel(&client);
  timer.Schedule(&witness, Now() + 2'000'000);  // fires after client would have
  witness.called.WaitForNotification();
  EXPECT_EQ(client.calls.load(), 0);
}

// Cancel must wait for a call in progress, so the client may be destroyed
// right after it returns.
class SlowClient final : public TimerClient {
 public:
  void OnDeadline() override {
    entered.Notify();
    release.WaitForNotification();
    finished.store(true);
  }
  base::Notification entered;
  base::Notification release;
  std::atomic<bool> finished{false};
};

TEST(SharedTimerTest, CancelWaitsForARunningCall) {
  SharedTimer timer;
  SlowClient client;
  timer.Schedule(&client, Now());
  client.entered.WaitForNotification();
  std::atomic<bool> cancelled{false};
  std::thread canceller([&] {
    timer.Cancel(&client);
    cancelled.store(true);
  });
  EXPECT_FALSE(cancelled.load());
  client.release.Notify();
  canceller.join();
  EXPECT_TRUE(client.finished.load());
}

}  // namespace
}  // namespace inferd::scheduling
