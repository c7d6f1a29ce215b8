// SPDX-License-Identifier: Apache-2.0
#include "scheduling/instance_pool.h"

#include <thread>

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

// A request its frontend lets run on the submitting thread.
std::unique_ptr<INFERD_Request> CallerRunnable(const char* id, Answers& answers) {
  auto request = MakeRequest({.id = id}, answers);
  const_cast<core::InferRequest&>(request->request()).may_run_on_caller_thread = true;
  return request;
}

// Runs `count` ordinary requests one after the other, so that the pool has
// an execution history.
void RunHistory(DirectScheduler& scheduler, Answers& answers, int count) {
  for (int i = 0; i < count; ++i) {
    scheduler.Submit(MakeRequest({.id = "history" + std::to_string(i)}, answers));
    answers.AwaitCount(static_cast<size_t>(i + 1));
  }
}

constexpr DirectSchedulerOptions kShortIsUnderOneSecond{.caller_execution_max_nanos =
                                                            1'000'000'000};

TEST(DirectSchedulerTest, RunsShortRequestsOnTheCallerWhenAnInstanceIsIdle) {
  ExecutionLog log;
  Gate gate;
  Answers answers;
  DirectScheduler scheduler("m", MakeInstances(1, log, gate), base::Clock::Real(),
                            kShortIsUnderOneSecond);
  RunHistory(scheduler, answers, 8);
  // The instance's thread goes back to waiting just after it answered the
  // last request; until then a caller is handed off. Answered before Submit
  // returned means it ran on this thread.
  bool ran_here = false;
  for (int attempt = 0; attempt < 1000 && !ran_here; ++attempt) {
    const std::string id = "inline" + std::to_string(attempt);
    scheduler.Submit(CallerRunnable(id.c_str(), answers));
    const std::optional<absl::Status> answer = answers.For(id);
    ran_here = answer.has_value();
    if (ran_here) {
      EXPECT_TRUE(answer->ok());
    } else {
      answers.AwaitCount(static_cast<size_t>(9 + attempt));
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  EXPECT_TRUE(ran_here);
  scheduler.Stop();
}

TEST(DirectSchedulerTest, HandsOffWithoutHistoryOrWhenExecutionsAreLong) {
  for (const DirectSchedulerOptions options :
       {kShortIsUnderOneSecond, DirectSchedulerOptions{.caller_execution_max_nanos = 1}}) {
    ExecutionLog log;
    Gate gate;
    Answers answers;
    DirectScheduler scheduler("m", MakeInstances(1, log, gate), base::Clock::Real(), options);
    const bool with_history = options.caller_execution_max_nanos == 1;
    if (with_history) RunHistory(scheduler, answers, 8);
    gate.Close();
    // Would block here, at the closed gate, if it ran on this thread.
    scheduler.Submit(CallerRunnable("handed-off", answers));
    log.AwaitStarted(with_history ? 9 : 1);
    EXPECT_FALSE(answers.For("handed-off").has_value());
    gate.Open();
    answers.AwaitCount(with_history ? 9 : 1);
    scheduler.Stop();
  }
}

TEST(DirectSchedulerTest, CallerNeverOvertakesABusyInstanceOrQueuedWork) {
  ExecutionLog log;
  Gate gate;
  Answers answers;
  DirectScheduler scheduler("m", MakeInstances(1, log, gate), base::Clock::Real(),
                            kShortIsUnderOneSecond);
  RunHistory(scheduler, answers, 8);
  gate.HoldOnly("blocker");
  gate.Close();
  scheduler.Submit(MakeRequest({.id = "blocker"}, answers));
  log.AwaitStarted(9);
  scheduler.Submit(MakeRequest({.id = "queued"}, answers));
  scheduler.Submit(CallerRunnable("caller", answers));  // the instance is busy: queued
  EXPECT_FALSE(answers.For("caller").has_value());
  gate.Open();
  answers.AwaitCount(11);
  const std::vector<std::string> order = answers.Order();
  EXPECT_THAT(std::vector<std::string>(order.end() - 3, order.end()),
              ElementsAre("blocker", "queued", "caller"));
  scheduler.Stop();
}

TEST(DirectSchedulerTest, ManyCallersAndInstanceThreadsShareInstancesSafely) {
  ExecutionLog log;
  Gate gate;
  Answers answers;
  {
    DirectScheduler scheduler("m", MakeInstances(2, log, gate), base::Clock::Real(),
                              kShortIsUnderOneSecond);
    RunHistory(scheduler, answers, 8);
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t) {
      callers.emplace_back([&, t] {
        for (int i = 0; i < 50; ++i) {
          const std::string id = "c" + std::to_string(t) + "-" + std::to_string(i);
          if (i % 2 == 0) {
            scheduler.Submit(CallerRunnable(id.c_str(), answers));
          } else {
            scheduler.Submit(MakeRequest({.id = id}, answers));
          }
        }
      });
    }
    for (auto& caller : callers) caller.join();
    answers.AwaitCount(8 + 200);
  }
  EXPECT_FALSE(log.instance_overlapped());
  EXPECT_EQ(log.runs().size(), 208u);
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
