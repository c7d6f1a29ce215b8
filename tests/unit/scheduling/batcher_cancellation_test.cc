// SPDX-License-Identifier: Apache-2.0
// A queued request whose client goes away leaves the dynamic batcher's queue
// at once (through the shared timer), not when its turn would have come.
#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduling/dynamic_batcher.h"
#include "scheduling/shared_timer.h"
#include "scheduling_test_support.h"

namespace inferd::scheduling {
namespace {

using testing::Answers;
using testing::Batching;
using ::testing::ElementsAre;
using testing::ExecutionLog;
using testing::Gate;
using testing::MakeInstances;
using testing::MakeRequest;

struct Fixture {
  explicit Fixture(BatchingConfig batching = {})
      : batcher(std::make_unique<DynamicBatcher>(Batching(4, std::move(batching)),
                                                 MakeInstances(1, log, gate), base::Clock::Real(),
                                                 timer)) {}
  ~Fixture() {
    gate.Open();
    batcher.reset();  // before the timer
  }
  // Holds the only instance with a full batch waiting at the closed gate.
  void Occupy() {
    gate.Close();
    batcher->Submit(MakeRequest({.id = "blocker", .rows = 4}, answers));
    log.AwaitStarted(1);
  }

  ExecutionLog log;
  Gate gate;
  Answers answers;
  SharedTimer timer;
  std::unique_ptr<DynamicBatcher> batcher;
};

TEST(BatcherCancellationTest, CancelledRequestIsAnsweredWhileTheInstanceIsBusy) {
  Fixture f;
  f.Occupy();
  auto token = std::make_shared<core::CancellationToken>();
  f.batcher->Submit(MakeRequest({.id = "gone", .cancellation = token}, f.answers));
  f.batcher->Submit(MakeRequest({.id = "kept"}, f.answers));
  token->Cancel();
  f.answers.AwaitCount(1);  // the gate is still closed
  EXPECT_THAT(f.answers.Order(), ElementsAre("gone"));
  EXPECT_TRUE(absl::IsCancelled(*f.answers.For("gone")));
  f.gate.Open();
  f.answers.AwaitCount(3);
  EXPECT_THAT(f.log.ExecutedIds(), ElementsAre("blocker", "kept"));
}

TEST(BatcherCancellationTest, RequestCancelledBeforeSubmitIsAnsweredAtOnce) {
  Fixture f;
  f.Occupy();
  auto token = std::make_shared<core::CancellationToken>();
  token->Cancel();
  f.batcher->Submit(MakeRequest({.id = "gone", .cancellation = token}, f.answers));
  f.answers.AwaitCount(1);
  EXPECT_TRUE(absl::IsCancelled(*f.answers.For("gone")));
}

TEST(BatcherCancellationTest, CancellingAfterTheBatcherIsGoneIsHarmless) {
  auto token = std::make_shared<core::CancellationToken>();
  {
    Fixture f;
    f.batcher->Submit(MakeRequest({.id = "ran", .cancellation = token}, f.answers));
    f.answers.AwaitCount(1);
  }
  token->Cancel();  // the callback outlived the batcher: it must do nothing
  EXPECT_TRUE(token->IsCancelled());
}

}  // namespace
}  // namespace inferd::scheduling
