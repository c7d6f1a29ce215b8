// SPDX-License-Identifier: Apache-2.0
#include "scheduling/dynamic_batcher.h"

#include <chrono>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduling_test_support.h"
#include "testing/fake_clock.h"

namespace inferd::scheduling {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
using namespace std::chrono_literals;
using testing::Answers;
using testing::Batching;
using testing::ExecutionLog;
using testing::FakeTimer;
using testing::Gate;
using testing::MakeInstances;
using testing::MakeRequest;
using testing::RequestSpec;

std::vector<int64_t> RowsOf(const std::vector<ExecutionLog::Run>& runs) {
  std::vector<int64_t> rows;
  for (const auto& run : runs) rows.push_back(run.rows);
  return rows;
}

// One model under test with its fakes; instances start open.
struct Harness {
  explicit Harness(BatchingConfig config, int instances = 1)
      : batcher(config, MakeInstances(instances, log, gate), clock, timer) {}
  ~Harness() { gate.Open(); }  // before the batcher stops and drains
  void Submit(RequestSpec spec) { batcher.Submit(MakeRequest(spec, answers)); }
  // Fills the only instance with a full batch that waits at the closed gate.
  void OccupyInstance(int64_t rows) {
    gate.Close();
    Submit({.id = "blocker", .rows = rows});
    log.AwaitStarted(1);
  }

  ExecutionLog log;
  Gate gate;
  Answers answers;
  inferd::testing::FakeClock clock;
  FakeTimer timer;
  DynamicBatcher batcher;  // last: destroyed (stopped) first
};

TEST(DynamicBatcherTest, FullBatchLeavesOnTheSubmittingThreadAtOnce) {
  Harness h(Batching(4, {.max_queue_delay_micros = 1000000}));
  for (int i = 0; i < 3; ++i) h.Submit({.id = std::to_string(i)});
  EXPECT_THAT(h.log.runs(), IsEmpty());  // waiting for more
  h.Submit({.id = "3"});
  h.log.AwaitFinished(1);
  ASSERT_EQ(h.log.runs().size(), 1u);
  EXPECT_THAT(h.log.runs()[0].ids, ElementsAre("0", "1", "2", "3"));
}

TEST(DynamicBatcherTest, FlushesPartialBatchWhenDelayExpires) {
  Harness h(Batching(8, {.max_queue_delay_micros = 5000}));
  const int64_t start = h.clock.NowNanos();
  h.Submit({.id = "a", .rows = 3});
  EXPECT_EQ(h.timer.ScheduledFor(&h.batcher), start + 5'000'000);
  h.clock.Advance(4ms);
  h.batcher.OnDeadline();
  EXPECT_THAT(h.log.runs(), IsEmpty());
  h.clock.Advance(1ms);
  h.batcher.OnDeadline();
  h.log.AwaitFinished(1);
  EXPECT_THAT(RowsOf(h.log.runs()), ElementsAre(3));
}

TEST(DynamicBatcherTest, NoDelaySendsWhatIsQueuedWhenAnInstanceFrees) {
  Harness h(Batching(4));
  h.OccupyInstance(1);  // with no delay a single request leaves at once
  for (int i = 0; i < 6; ++i) h.Submit({.id = std::to_string(i)});
  EXPECT_EQ(h.log.runs().size(), 1u);  // the instance is busy: requests wait
  h.gate.Open();
  h.log.AwaitFinished(3);
  EXPECT_THAT(RowsOf(h.log.runs()), ElementsAre(1, 4, 2));
}

TEST(DynamicBatcherTest, SendsTheLargestPreferredSizeThatCanBeFormed) {
  Harness h(Batching(8, {.preferred_batch_sizes = {2, 4}, .max_queue_delay_micros = 1000000}));
  h.OccupyInstance(8);
  for (int i = 0; i < 7; ++i) h.Submit({.id = std::to_string(i)});
  h.gate.Open();
  h.log.AwaitFinished(3);  // 4, then 2; the last one waits for its delay
  EXPECT_THAT(RowsOf(h.log.runs()), ElementsAre(8, 4, 2));
  h.clock.Advance(1s);
  h.batcher.OnDeadline();
  h.log.AwaitFinished(4);
  EXPECT_THAT(RowsOf(h.log.runs()), ElementsAre(8, 4, 2, 1));
}

TEST(DynamicBatcherTest, PreferredSizeReachedOnSubmitLeavesWithoutWaiting) {
  Harness h(Batching(8, {.preferred_batch_sizes = {2}, .max_queue_delay_micros = 1000000}));
  h.Submit({.id = "a"});
  EXPECT_THAT(h.log.runs(), IsEmpty());
  h.Submit({.id = "b"});
  h.log.AwaitFinished(1);
  EXPECT_THAT(h.log.runs()[0].ids, ElementsAre("a", "b"));
}

TEST(DynamicBatcherTest, MultiRowRequestsFillUpToMaxBatchSizeAndNeverBeyond) {
  Harness h(Batching(8, {.max_queue_delay_micros = 1000000}));
  h.OccupyInstance(8);
  h.Submit({.id = "a", .rows = 3});
  h.Submit({.id = "b", .rows = 3});
  h.Submit({.id = "c", .rows = 3});
  h.gate.Open();
  // a+b = 6 and c cannot join (9 > 8): the batch cannot grow, so it leaves.
  h.log.AwaitFinished(2);
  EXPECT_THAT(h.log.runs()[1].ids, ElementsAre("a", "b"));
  h.clock.Advance(1s);
  h.batcher.OnDeadline();
  h.log.AwaitFinished(3);
  EXPECT_THAT(h.log.runs()[2].ids, ElementsAre("c"));
}

TEST(DynamicBatcherTest, RequestsWithDifferentInnerShapesAreNeverMixed) {
  Harness h(Batching(8));
  h.OccupyInstance(8);
  h.Submit({.id = "a", .inner_shape = {4}});
  h.Submit({.id = "b", .inner_shape = {4}});
  h.Submit({.id = "c", .inner_shape = {5}});
  h.Submit({.id = "d", .inner_shape = {4}});
  h.gate.Open();
  h.log.AwaitFinished(4);
  const auto runs = h.log.runs();
  EXPECT_THAT(runs[1].ids, ElementsAre("a", "b"));
  EXPECT_THAT(runs[2].ids, ElementsAre("c"));
  EXPECT_THAT(runs[3].ids, ElementsAre("d"));
}

TEST(DynamicBatcherTest, HigherPriorityLevelsAreServedFirst) {
  Harness h(Batching(1, {.priority_levels = 3, .default_priority_level = 2}));
  h.OccupyInstance(1);
  h.Submit({.id = "low", .priority = 3});
  h.Submit({.id = "default", .priority = 0});
  h.Submit({.id = "out-of-range", .priority = 9});  // treated as the default level
  h.Submit({.id = "high", .priority = 1});
  h.gate.Open();
  h.log.AwaitFinished(5);
  EXPECT_THAT(h.log.ExecutedIds(),
              ElementsAre("blocker", "high", "default", "out-of-range", "low"));
}

TEST(DynamicBatcherTest, RejectsARequestWhoseQueueTimeoutExpired) {
  Harness h(Batching(1, {.default_queue_policy = {.default_timeout_micros = 1000}}));
  h.OccupyInstance(1);
  h.Submit({.id = "late"});
  EXPECT_EQ(h.timer.ScheduledFor(&h.batcher), h.clock.NowNanos() + 1'000'000);
  h.clock.Advance(2ms);
  h.batcher.OnDeadline();
  auto answer = h.answers.For("late");
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(absl::IsUnavailable(*answer));
  EXPECT_EQ(answer->message(), "Request timeout expired");
  h.gate.Open();
  h.log.AwaitFinished(1);
  EXPECT_THAT(h.log.ExecutedIds(), ElementsAre("blocker"));
}

TEST(DynamicBatcherTest, RequestTimeoutOnlyShortensTheDefaultWhenOverrideIsAllowed) {
  Harness h(Batching(1, {.default_queue_policy = {.default_timeout_micros = 10000,
                                                  .allow_timeout_override = true}}));
  h.OccupyInstance(1);
  h.Submit({.id = "short", .timeout_micros = 1000});
  h.Submit({.id = "long", .timeout_micros = 50000});  // longer than the default: ignored
  h.clock.Advance(2ms);
  h.batcher.OnDeadline();
  ASSERT_TRUE(h.answers.For("short").has_value());
  EXPECT_FALSE(h.answers.For("long").has_value());
  h.clock.Advance(9ms);
  h.batcher.OnDeadline();
  ASSERT_TRUE(h.answers.For("long").has_value());
  EXPECT_TRUE(absl::IsUnavailable(*h.answers.For("long")));
}

TEST(DynamicBatcherTest, RequestTimeoutIsIgnoredWithoutOverride) {
  Harness h(Batching(1, {.default_queue_policy = {.default_timeout_micros = 10000}}));
  h.OccupyInstance(1);
  h.Submit({.id = "a", .timeout_micros = 1000});
  h.clock.Advance(2ms);
  h.batcher.OnDeadline();
  EXPECT_FALSE(h.answers.For("a").has_value());
  h.gate.Open();
  h.log.AwaitFinished(2);
  EXPECT_TRUE(h.answers.For("a")->ok());
}

TEST(DynamicBatcherTest, DelayedRequestsRunAfterEveryUnexpiredOne) {
  Harness h(Batching(
      1, {.default_queue_policy = {.delay_on_timeout = true, .default_timeout_micros = 1000}}));
  h.OccupyInstance(1);
  h.Submit({.id = "old"});
  h.clock.Advance(2ms);
  h.batcher.OnDeadline();  // "old" moves to the delayed list, unanswered
  EXPECT_FALSE(h.answers.For("old").has_value());
  h.Submit({.id = "new"});
  h.gate.Open();
  h.log.AwaitFinished(3);
  EXPECT_THAT(h.log.ExecutedIds(), ElementsAre("blocker", "new", "old"));
  EXPECT_TRUE(h.answers.For("old")->ok());
}

TEST(DynamicBatcherTest, FullQueueRejectsAtOnce) {
  Harness h(Batching(1, {.default_queue_policy = {.max_queue_size = 2}}));
  h.OccupyInstance(1);
  h.Submit({.id = "a"});
  h.Submit({.id = "b"});
  h.Submit({.id = "c"});
  auto answer = h.answers.For("c");
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(absl::IsUnavailable(*answer));
  EXPECT_EQ(answer->message(), "Exceeds maximum queue size");
  h.gate.Open();
  h.log.AwaitFinished(3);
  EXPECT_THAT(h.log.ExecutedIds(), ElementsAre("blocker", "a", "b"));
}

TEST(DynamicBatcherTest, QueueSizeIsPerPriorityLevel) {
  Harness h(Batching(1, {.priority_levels = 2,
                         .default_priority_level = 2,
                         .priority_queue_policy = {{2, {.max_queue_size = 1}}}}));
  h.OccupyInstance(1);
  h.Submit({.id = "low1", .priority = 2});
  h.Submit({.id = "low2", .priority = 2});
  h.Submit({.id = "high", .priority = 1});  // level 1 has no limit
  ASSERT_TRUE(h.answers.For("low2").has_value());
  EXPECT_FALSE(h.answers.For("high").has_value());
  h.gate.Open();
  h.log.AwaitFinished(3);
  EXPECT_THAT(h.log.ExecutedIds(), ElementsAre("blocker", "high", "low1"));
}

TEST(DynamicBatcherTest, CancelledRequestLeavesTheQueueWithoutRunning) {
  Harness h(Batching(4));
  h.OccupyInstance(4);
  auto token = std::make_shared<core::CancellationToken>();
  h.Submit({.id = "gone", .cancellation = token});
  h.Submit({.id = "kept"});
  token->Cancel();
  h.gate.Open();
  h.log.AwaitFinished(2);
  h.answers.AwaitCount(3);
  EXPECT_THAT(h.log.ExecutedIds(), ElementsAre("blocker", "kept"));
  EXPECT_TRUE(absl::IsCancelled(*h.answers.For("gone")));
}

TEST(DynamicBatcherTest, PreserveOrderingHoldsResponsesUntilEarlierOnesLeave) {
  Harness h(Batching(1, {.preserve_ordering = true}), /*instances=*/2);
  h.gate.HoldOnly("first");
  h.gate.Close();
  h.Submit({.id = "first"});  // held inside one instance
  h.log.AwaitStarted(1);
  h.Submit({.id = "second"});  // runs and finishes on the other instance
  h.log.AwaitFinished(1);
  EXPECT_EQ(h.answers.count(), 0u);  // "second" waits for "first"
  h.gate.Open();
  h.answers.AwaitCount(2);
  EXPECT_THAT(h.answers.Order(), ElementsAre("first", "second"));
}

TEST(DynamicBatcherTest, WithoutPreserveOrderingResponsesLeaveWhenReady) {
  Harness h(Batching(1), /*instances=*/2);
  h.gate.HoldOnly("first");
  h.gate.Close();
  h.Submit({.id = "first"});
  h.log.AwaitStarted(1);
  h.Submit({.id = "second"});
  h.answers.AwaitCount(1);
  EXPECT_THAT(h.answers.Order(), ElementsAre("second"));
}

TEST(DynamicBatcherTest, StopRunsEveryQueuedRequestWithoutWaitingForTheDelay) {
  auto h = std::make_unique<Harness>(Batching(8, {.max_queue_delay_micros = 100000000}));
  h->Submit({.id = "a"});
  h->Submit({.id = "b"});
  h->batcher.Stop();
  EXPECT_THAT(h->log.ExecutedIds(), ElementsAre("a", "b"));
  h->Submit({.id = "after"});
  EXPECT_TRUE(absl::IsUnavailable(*h->answers.For("after")));
}

TEST(DynamicBatcherTest, BatchesUseEveryInstanceInParallel) {
  Harness h(Batching(1), /*instances=*/2);
  h.gate.Close();
  h.Submit({.id = "a"});
  h.Submit({.id = "b"});
  h.log.AwaitStarted(2);  // both are inside Execute at the same time
  EXPECT_EQ(h.log.running(), 2);
  h.gate.Open();
  h.log.AwaitFinished(2);
  std::vector<int> instances;
  for (const auto& run : h.log.runs()) instances.push_back(run.instance);
  EXPECT_THAT(instances, UnorderedElementsAre(0, 1));
}

TEST(DynamicBatcherTest, RecordsStatisticsOfEveryBatch) {
  auto stats = std::make_shared<core::ModelStats>();
  auto io = testing::MakeIO(8, stats);
  ExecutionLog log;
  Gate gate;
  Answers answers;
  inferd::testing::FakeClock clock;
  FakeTimer timer;
  {
    DynamicBatcher batcher(Batching(8, {.max_queue_delay_micros = 1000000}),
                           MakeInstances(1, log, gate), clock, timer);
    for (int i = 0; i < 3; ++i)
      batcher.Submit(MakeRequest({.id = std::to_string(i), .rows = 2}, answers, io));
    EXPECT_EQ(stats->Snapshot().queue_size, 3);
    batcher.Submit(MakeRequest({.id = "3", .rows = 2}, answers, io));  // 8 rows: full
    answers.AwaitCount(4);
  }
  const auto snapshot = stats->Snapshot();
  EXPECT_EQ(snapshot.inference_count, 8u);
  EXPECT_EQ(snapshot.execution_count, 1u);
  EXPECT_EQ(snapshot.success.count, 4u);
  EXPECT_EQ(snapshot.queue.count, 4u);
  ASSERT_EQ(snapshot.batch_stats.size(), 1u);
  EXPECT_EQ(snapshot.batch_stats[0].batch_size, 8u);
  EXPECT_EQ(snapshot.batch_stats[0].compute_infer.count, 1u);
  EXPECT_EQ(snapshot.queue_size, 0);
  EXPECT_EQ(snapshot.in_flight, 0);
  EXPECT_EQ(snapshot.batch_size.count, 1u);
}

// Many threads submit at once through a real timer: every request is
// answered exactly once and runs exactly once (run under TSan in CI).
TEST(DynamicBatcherTest, ConcurrentSubmittersAreEachAnsweredOnce) {
  ExecutionLog log;
  Gate gate;
  Answers answers;
  auto timer = std::make_shared<SharedTimer>();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 200;
  {
    DynamicBatcher batcher(Batching(16, {.max_queue_delay_micros = 200}),
                           MakeInstances(2, log, gate), base::Clock::Real(), *timer);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          batcher.Submit(MakeRequest({.id = std::to_string(t * kPerThread + i)}, answers));
        }
      });
    }
    for (auto& thread : threads) thread.join();
    answers.AwaitCount(kThreads * kPerThread);
  }
  auto executed = log.ExecutedIds();
  std::sort(executed.begin(), executed.end());
  EXPECT_EQ(executed.size(), static_cast<size_t>(kThreads * kPerThread));
  EXPECT_EQ(std::adjacent_find(executed.begin(), executed.end()), executed.end());
  EXPECT_EQ(answers.count(), static_cast<size_t>(kThreads * kPerThread));
}

}  // namespace
}  // namespace inferd::scheduling
