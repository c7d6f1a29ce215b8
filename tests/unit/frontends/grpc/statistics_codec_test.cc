// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/statistics_codec.h"

#include "gtest/gtest.h"

namespace inferd::frontends::grpc {
namespace {

// Every duration distinct, so that a field taken from the wrong counter shows.
ModelStatistics FullStats() {
  ModelStatistics model;
  model.name = "simple";
  model.version = "3";
  core::ModelStatsSnapshot& s = model.stats;
  s.last_inference_ms = 1700000000123;
  s.inference_count = 7;
  s.execution_count = 5;
  s.success = {7, 7000};
  s.fail = {2, 200};
  s.queue = {7, 70};
  s.compute_input = {5, 51};
  s.compute_infer = {5, 52};
  s.compute_output = {5, 53};
  s.cache_hit = {1, 11};
  s.cache_miss = {6, 66};
  s.batch_stats = {{1, {3, 31}, {3, 32}, {3, 33}}, {2, {2, 21}, {2, 22}, {2, 23}}};
  return model;
}

void ExpectDuration(const inference::StatisticDuration& message, uint64_t count, uint64_t ns) {
  EXPECT_EQ(message.count(), count);
  EXPECT_EQ(message.ns(), ns);
}

TEST(StatisticsCodecTest, EncodesEveryField) {
  inference::ModelStatisticsResponse message;
  EncodeModelStatistics({FullStats()}, message);
  ASSERT_EQ(message.model_stats_size(), 1);
  const inference::ModelStatistics& m = message.model_stats(0);
  EXPECT_EQ(m.name(), "simple");
  EXPECT_EQ(m.version(), "3");
  EXPECT_EQ(m.last_inference(), 1700000000123u);
  EXPECT_EQ(m.inference_count(), 7u);
  EXPECT_EQ(m.execution_count(), 5u);
  const inference::InferStatistics& i = m.inference_stats();
  ExpectDuration(i.success(), 7, 7000);
  ExpectDuration(i.fail(), 2, 200);
  ExpectDuration(i.queue(), 7, 70);
  ExpectDuration(i.compute_input(), 5, 51);
  ExpectDuration(i.compute_infer(), 5, 52);
  ExpectDuration(i.compute_output(), 5, 53);
  ExpectDuration(i.cache_hit(), 1, 11);
  ExpectDuration(i.cache_miss(), 6, 66);
  ASSERT_EQ(m.batch_stats_size(), 2);
  EXPECT_EQ(m.batch_stats(0).batch_size(), 1u);
  ExpectDuration(m.batch_stats(0).compute_input(), 3, 31);
  ExpectDuration(m.batch_stats(0).compute_infer(), 3, 32);
  ExpectDuration(m.batch_stats(0).compute_output(), 3, 33);
  EXPECT_EQ(m.batch_stats(1).batch_size(), 2u);
  ExpectDuration(m.batch_stats(1).compute_input(), 2, 21);
  ExpectDuration(m.batch_stats(1).compute_infer(), 2, 22);
  ExpectDuration(m.batch_stats(1).compute_output(), 2, 23);
  EXPECT_EQ(m.memory_usage_size(), 0);
  EXPECT_TRUE(m.response_stats().empty());
}

TEST(StatisticsCodecTest, ZeroCountersAreStillPresentMessages) {
  inference::ModelStatisticsResponse message;
  EncodeModelStatistics({ModelStatistics{"m", "1", {}}}, message);
  ASSERT_EQ(message.model_stats_size(), 1);
  const inference::ModelStatistics& m = message.model_stats(0);
  EXPECT_TRUE(m.has_inference_stats());
  EXPECT_TRUE(m.inference_stats().has_success());
  EXPECT_TRUE(m.inference_stats().has_cache_miss());
  EXPECT_EQ(m.last_inference(), 0u);
  EXPECT_EQ(m.batch_stats_size(), 0);
}

TEST(StatisticsCodecTest, KeepsTheOrderOfTheList) {
  inference::ModelStatisticsResponse message;
  EncodeModelStatistics({ModelStatistics{"a", "1", {}}, ModelStatistics{"b", "2", {}}}, message);
  ASSERT_EQ(message.model_stats_size(), 2);
  EXPECT_EQ(message.model_stats(0).name(), "a");
  EXPECT_EQ(message.model_stats(1).name(), "b");
  EXPECT_EQ(message.model_stats(1).version(), "2");
  inference::ModelStatisticsResponse empty;
  EncodeModelStatistics({}, empty);
  EXPECT_EQ(empty.model_stats_size(), 0);
}

}  // namespace
}  // namespace inferd::frontends::grpc
