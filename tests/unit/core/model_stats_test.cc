// SPDX-License-Identifier: Apache-2.0
#include "core/model_stats.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::core {
namespace {

using ::testing::ElementsAre;

TEST(HistogramTest, CountsObservationsIntoCumulativeLeBuckets) {
  Histogram histogram({10, 20, 40});
  for (uint64_t v : {0, 10, 11, 20, 39, 40, 41, 1000}) histogram.Observe(v);
  const HistogramSnapshot snapshot = histogram.Snapshot();
  // le=10: {0,10}; le=20: +{11,20}; le=40: +{39,40}; +Inf: +{41,1000}
  EXPECT_THAT(snapshot.cumulative_counts, ElementsAre(2, 4, 6, 8));
  EXPECT_EQ(snapshot.count, 8u);
  EXPECT_EQ(snapshot.sum, 0u + 10 + 11 + 20 + 39 + 40 + 41 + 1000);
}

TEST(HistogramTest, WithoutBoundsEverythingIsInTheInfBucket) {
  Histogram histogram({});
  histogram.Observe(5);
  EXPECT_THAT(histogram.Snapshot().cumulative_counts, ElementsAre(1));
}

TEST(HistogramTest, BucketsMustBeStrictlyAscending) {
  EXPECT_TRUE(BucketsAreAscending({1, 2, 3}));
  EXPECT_TRUE(BucketsAreAscending({}));
  EXPECT_FALSE(BucketsAreAscending({1, 1}));
  EXPECT_FALSE(BucketsAreAscending({3, 2}));
}

TEST(ModelStatsTest, SuccessSplitsARequestIntoItsPhases) {
  ModelStats stats;
  RequestTimes t;
  t.arrival = 1000;
  t.queue_start = 1100;
  t.exec_start = 1500;
  t.compute_start = 1600;
  t.compute_end = 2600;
  t.end = 2700;
  stats.RecordSuccess(t, /*batch_size=*/3);
  const auto s = stats.Snapshot();
  EXPECT_EQ(s.success.count, 1u);
  EXPECT_EQ(s.success.ns, 1700u);
  EXPECT_EQ(s.queue.ns, 400u);
  EXPECT_EQ(s.compute_input.ns, 100u);
  EXPECT_EQ(s.compute_infer.ns, 1000u);
  EXPECT_EQ(s.compute_output.ns, 100u);
  EXPECT_EQ(s.inference_count, 3u);
  EXPECT_GT(s.last_inference_ms, 0u);
  EXPECT_EQ(s.request_duration.count, 1u);
}

// Triton's counting of the response cache (InferenceStatsAggregator::
// UpdateSuccessCacheHit / UpdateSuccessCacheMiss).
TEST(ModelStatsTest, CacheHitIsASuccessWithoutInference) {
  ModelStats stats;
  stats.RecordCacheHit(/*request_ns=*/900, /*lookup_ns=*/300);
  const auto s = stats.Snapshot();
  EXPECT_EQ(s.success.count, 1u);
  EXPECT_EQ(s.success.ns, 900u);
  EXPECT_EQ(s.queue.count, 1u);
  EXPECT_EQ(s.queue.ns, 0u);
  EXPECT_EQ(s.cache_hit.count, 1u);
  EXPECT_EQ(s.cache_hit.ns, 300u);
  EXPECT_EQ(s.cache_miss.count, 0u);
  EXPECT_EQ(s.inference_count, 0u);
  EXPECT_EQ(s.execution_count, 0u);
  EXPECT_EQ(s.compute_infer.count, 0u);
  EXPECT_EQ(s.request_duration.count, 1u);
}

TEST(ModelStatsTest, CacheMissAddsItsTimeToTheSuccess) {
  ModelStats stats;
  RequestTimes t;
  t.arrival = t.queue_start = 0;
  t.exec_start = 100;
  t.end = 1000;
  stats.RecordSuccess(t, 1);
  stats.RecordCacheMiss(250);
  const auto s = stats.Snapshot();
  EXPECT_EQ(s.success.count, 1u);
  EXPECT_EQ(s.success.ns, 1250u);
  EXPECT_EQ(s.cache_miss.count, 1u);
  EXPECT_EQ(s.cache_miss.ns, 250u);
  EXPECT_EQ(s.cache_hit.count, 0u);
}

TEST(ModelStatsTest, WithoutBackendTimesTheWholeExecutionIsInference) {
  ModelStats stats;
  RequestTimes t;
  t.arrival = t.queue_start = 0;
  t.exec_start = 10;
  t.end = 110;
  stats.RecordSuccess(t, 1);
  const auto s = stats.Snapshot();
  EXPECT_EQ(s.compute_input.ns, 0u);
  EXPECT_EQ(s.compute_infer.ns, 100u);
  EXPECT_EQ(s.compute_output.ns, 0u);
}

TEST(ModelStatsTest, FailuresCountByReasonAndNotAsInferences) {
  ModelStats stats;
  stats.RecordFailure(FailureReason::kRejected, 50);
  stats.RecordFailure(FailureReason::kCanceled, 60);
  stats.RecordFailure(FailureReason::kCanceled, -5);  // clock skew never goes negative
  const auto s = stats.Snapshot();
  EXPECT_EQ(s.fail.count, 3u);
  EXPECT_EQ(s.fail.ns, 110u);
  EXPECT_EQ(s.failures[static_cast<size_t>(FailureReason::kCanceled)], 2u);
  EXPECT_EQ(s.failures[static_cast<size_t>(FailureReason::kRejected)], 1u);
  EXPECT_EQ(s.inference_count, 0u);
  EXPECT_EQ(s.queue.count, 0u);
  EXPECT_STREQ(FailureReasonName(FailureReason::kBackend), "BACKEND");
}

TEST(ModelStatsTest, ExecutionsAreGroupedByBatchSize) {
  ModelStats stats;
  stats.RecordExecution(4, 1, 10, 2);
  stats.RecordExecution(1, 1, 5, 1);
  stats.RecordExecution(4, 3, 30, 4);
  const auto s = stats.Snapshot();
  EXPECT_EQ(s.execution_count, 3u);
  ASSERT_EQ(s.batch_stats.size(), 2u);
  EXPECT_EQ(s.batch_stats[0].batch_size, 1u);
  EXPECT_EQ(s.batch_stats[1].batch_size, 4u);
  EXPECT_EQ(s.batch_stats[1].compute_infer.count, 2u);
  EXPECT_EQ(s.batch_stats[1].compute_infer.ns, 40u);
  EXPECT_EQ(s.batch_size.count, 3u);
}

TEST(ModelStatsTest, GaugesFollowTheirDeltas) {
  ModelStats stats;
  stats.AddQueued(3);
  stats.AddQueued(-1);
  stats.AddInFlight(2);
  const auto s = stats.Snapshot();
  EXPECT_EQ(s.queue_size, 2);
  EXPECT_EQ(s.in_flight, 2);
}

}  // namespace
}  // namespace inferd::core
