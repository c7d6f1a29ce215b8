// SPDX-License-Identifier: Apache-2.0
#include "scheduling/priority_queues.h"

#include "gtest/gtest.h"
#include "scheduling_test_support.h"

namespace inferd::scheduling {
namespace {

TEST(PriorityQueuesTest, LevelsMapPrioritiesWithTheDefaultForZeroAndOutOfRange) {
  PriorityQueues queues(BatchingConfig{.priority_levels = 4, .default_priority_level = 3});
  EXPECT_EQ(queues.LevelFor(1), 0u);
  EXPECT_EQ(queues.LevelFor(4), 3u);
  EXPECT_EQ(queues.LevelFor(0), 2u);
  EXPECT_EQ(queues.LevelFor(5), 2u);
}

TEST(PriorityQueuesTest, SingleQueueIgnoresPriorities) {
  PriorityQueues queues(BatchingConfig{});
  EXPECT_EQ(queues.LevelFor(0), 0u);
  EXPECT_EQ(queues.LevelFor(7), 0u);
}

TEST(PriorityQueuesTest, PerLevelPolicyOverridesTheDefault) {
  PriorityQueues queues(
      BatchingConfig{.priority_levels = 2,
                     .default_priority_level = 1,
                     .default_queue_policy = {.default_timeout_micros = 100},
                     .priority_queue_policy = {{2, {.default_timeout_micros = 7}}}});
  EXPECT_EQ(queues.TimeoutDeadline(0, 0, 1000), 1000 + 100'000);
  EXPECT_EQ(queues.TimeoutDeadline(1, 0, 1000), 1000 + 7'000);
}

TEST(PriorityQueuesTest, NoDefaultTimeoutMeansNoDeadlineEvenWithAnOverride) {
  PriorityQueues queues(BatchingConfig{.default_queue_policy = {.allow_timeout_override = true}});
  EXPECT_EQ(queues.TimeoutDeadline(0, 50, 1000), 0);  // Triton's rule (docs/configuration.md)
}

TEST(PriorityQueuesTest, SweepRejectsExpiredAndDelaysUnderDelayPolicy) {
  testing::Answers answers;
  PriorityQueues queues(BatchingConfig{.priority_levels = 2,
                                       .default_priority_level = 1,
                                       .priority_queue_policy = {{2, {.delay_on_timeout = true}}}});
  auto push = [&](const char* id, size_t level, int64_t deadline) {
    QueuedRequest entry;
    entry.request = testing::MakeRequest({.id = id}, answers);
    entry.timeout_deadline = deadline;
    queues.Push(level, std::move(entry));
  };
  push("reject-me", 0, 100);
  push("keep", 0, 0);
  push("delay-me", 1, 100);
  EXPECT_EQ(queues.EarliestDeadline(), 100);
  std::vector<QueuedRequest> removed;
  queues.Sweep(150, removed);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].request->request().id, "reject-me");
  EXPECT_EQ(queues.size(), 2u);
  EXPECT_EQ(queues.EarliestDeadline(), 0);
  QueuePosition position;
  ASSERT_TRUE(queues.NextPosition(position));
  EXPECT_EQ(queues.PopFront(position).request->request().id, "keep");
  ASSERT_TRUE(queues.NextPosition(position));
  EXPECT_TRUE(position.delayed);
  EXPECT_EQ(queues.PopFront(position).request->request().id, "delay-me");
  for (auto& entry : removed) entry.request->Complete(absl::CancelledError("test"));
}

TEST(PriorityQueuesTest, CapacityCountsDelayedRequestsToo) {
  testing::Answers answers;  // outlives the queues, whose requests answer on destruction
  PriorityQueues queues(BatchingConfig{.default_queue_policy = {.max_queue_size = 1}});
  EXPECT_TRUE(queues.CheckCapacity(0).ok());
  QueuedRequest entry;
  entry.request = testing::MakeRequest({.id = "a"}, answers);
  queues.Delay(0, std::move(entry));
  EXPECT_TRUE(absl::IsUnavailable(queues.CheckCapacity(0)));
}

}  // namespace
}  // namespace inferd::scheduling
