// SPDX-License-Identifier: Apache-2.0
#include "scheduling/instance_pool.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduling/direct_scheduler.h"
#include "scheduling_test_support.h"

namespace inferd::scheduling {
namespace {

using testing::Answers;
using ::testing::ElementsAre;
using testing::ExecutionLog;
using testing::Gate;
using testing::MakeInstances;
using testing::MakeRequest;

TEST(DirectSchedulerTest, RunsEachRequestAloneInArrivalOrder) {
  ExecutionLog log;
  Gate gate;
  Answers answers;
  {
    DirectScheduler scheduler("m", MakeInstances(1, log, gate));
    for (const char* id : {"a", "b", "c"})
      scheduler.Submit(MakeRequest({.id = id, .rows = 2}, answers));
    answers.AwaitCount(3);
  }
  ASSERT_EQ(log.runs().size(), 3u);
  EXPECT_THAT(log.ExecutedIds(), ElementsAre("a", "b", "c"));
  for (const auto& run : log.runs()) EXPECT_EQ(run.rows, 2);
}

TEST(DirectSchedulerTest, DropsCancelledAndExpiredRequestsBeforeRunning) {
  ExecutionLog log;
  Gate gate;
  Answers answers;
  auto stats = std::make_shared<core::ModelStats>();
  auto io = testing::MakeIO(8, stats);
  {
    DirectScheduler scheduler("m", MakeInstances(1, log, gate));
    gate.Close();
    scheduler.Submit(MakeRequest({.id = "blocker"}, answers, io));
    log.AwaitStarted(1);
    auto token = std::make_shared<core::CancellationToken>();
    scheduler.Submit(MakeRequest({.id = "cancelled", .cancellation = token}, answers, io));
    auto expired = MakeRequest({.id = "expired"}, answers, io);
    // A deadline already in the past: the client gave up.
    const_cast<core::InferRequest&>(expired->request()).deadline_nanos = 1;
    scheduler.Submit(std::move(expired));
    scheduler.Submit(MakeRequest({.id = "kept"}, answers, io));
    token->Cancel();
    gate.Open();
    answers.AwaitCount(4);
  }
  EXPECT_THAT(log.ExecutedIds(), ElementsAre("blocker", "kept"));
  EXPECT_TRUE(absl::IsCancelled(*answers.For("cancelled")));
  EXPECT_TRUE(absl::IsDeadlineExceeded(*answers.For("expired")));
  const auto snapshot = stats->Snapshot();
  EXPECT_EQ(snapshot.failures[static_cast<size_t>(core::FailureReason::kCanceled)], 2u);
  EXPECT_EQ(snapshot.fail.count, 2u);
  EXPECT_EQ(snapshot.success.count, 2u);
  EXPECT_EQ(snapshot.execution_count, 2u);
  EXPECT_EQ(snapshot.queue_size, 0);
  EXPECT_EQ(snapshot.in_flight, 0);
}

TEST(DirectSchedulerTest, InstancesRunInParallel) {
  ExecutionLog log;
  Gate gate;
  Answers answers;
  {
    DirectScheduler scheduler("m", MakeInstances(3, log, gate));
    gate.Close();
    for (const char* id : {"a", "b", "c"}) scheduler.Submit(MakeRequest({.id = id}, answers));
    log.AwaitStarted(3);
    EXPECT_EQ(log.running(), 3);
    gate.Open();
    answers.AwaitCount(3);
  }
  EXPECT_EQ(log.max_running(), 3);
}

TEST(DirectSchedulerTest, AnswersUnavailableAfterStop) {
  ExecutionLog log;
  Gate gate;
  Answers answers;
  DirectScheduler scheduler("m", MakeInstances(1, log, gate));
  scheduler.Stop();
  scheduler.Submit(MakeRequest({.id = "late"}, answers));
  ASSERT_TRUE(answers.For("late").has_value());
  EXPECT_TRUE(absl::IsUnavailable(*answers.For("late")));
  EXPECT_TRUE(log.runs().empty());
}

}  // namespace
}  // namespace inferd::scheduling
