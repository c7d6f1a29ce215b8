// SPDX-License-Identifier: Apache-2.0
#include "server/statistics_json.h"

#include <string>

#include "gtest/gtest.h"
#include "simdjson.h"

namespace inferd {
namespace {

// Every duration distinct, so that a field written from the wrong counter shows.
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
  s.cache_hit = {0, 0};
  s.cache_miss = {0, 0};
  s.batch_stats = {{1, {3, 31}, {3, 32}, {3, 33}}, {2, {2, 21}, {2, 22}, {2, 23}}};
  s.queue_size = 4;  // gauges and histograms are not part of the extension
  s.in_flight = 9;
  return model;
}

TEST(StatisticsJsonTest, WritesEveryFieldAsTritonDoes) {
  EXPECT_EQ(ModelStatisticsJson({FullStats()}),
            R"({"model_stats":[{"name":"simple","version":"3","last_inference":1700000000123,)"
            R"("inference_count":7,"execution_count":5,"inference_stats":{)"
            R"("success":{"count":7,"ns":7000},"fail":{"count":2,"ns":200},)"
            R"("queue":{"count":7,"ns":70},"compute_input":{"count":5,"ns":51},)"
            R"("compute_infer":{"count":5,"ns":52},"compute_output":{"count":5,"ns":53},)"
            R"("cache_hit":{"count":0,"ns":0},"cache_miss":{"count":0,"ns":0}},)"
            R"("batch_stats":[{"batch_size":1,"compute_input":{"count":3,"ns":31},)"
            R"("compute_infer":{"count":3,"ns":32},"compute_output":{"count":3,"ns":33}},)"
            R"({"batch_size":2,"compute_input":{"count":2,"ns":21},)"
            R"("compute_infer":{"count":2,"ns":22},"compute_output":{"count":2,"ns":23}}],)"
            R"("memory_usage":[],"response_stats":{}}]})");
}

TEST(StatisticsJsonTest, NoModelsIsAnEmptyList) {
  EXPECT_EQ(ModelStatisticsJson({}), R"({"model_stats":[]})");
}

TEST(StatisticsJsonTest, ANeverUsedModelHasZeroCountersAndNoBatches) {
  ModelStatistics model{"m", "1", {}};
  const std::string json = ModelStatisticsJson({model});
  EXPECT_NE(json.find(R"("last_inference":0,"inference_count":0,"execution_count":0,)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("batch_stats":[],"memory_usage":[])"), std::string::npos) << json;
}

TEST(StatisticsJsonTest, LargeCountersStayExactUnsignedNumbers) {
  ModelStatistics model{"m", "1", {}};
  model.stats.success = {1, UINT64_MAX};
  simdjson::dom::parser parser;
  const std::string json = ModelStatisticsJson({model});
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  simdjson::dom::element ns;
  ASSERT_EQ(doc.at_pointer("/model_stats/0/inference_stats/success/ns").get(ns), simdjson::SUCCESS);
  ASSERT_TRUE(ns.is_uint64());
  uint64_t value = 0;
  ASSERT_EQ(ns.get(value), simdjson::SUCCESS);
  EXPECT_EQ(value, UINT64_MAX);
  simdjson::dom::element version;
  ASSERT_EQ(doc.at_pointer("/model_stats/0/version").get(version), simdjson::SUCCESS);
  EXPECT_TRUE(version.is_string());
}

TEST(StatisticsJsonTest, KeepsTheOrderOfTheList) {
  ModelStatistics a{"a", "1", {}};
  ModelStatistics b{"b", "2", {}};
  const std::string json = ModelStatisticsJson({a, b});
  const size_t first = json.find(R"("name":"a","version":"1")");
  const size_t second = json.find(R"("name":"b","version":"2")");
  ASSERT_NE(first, std::string::npos) << json;
  ASSERT_NE(second, std::string::npos) << json;
  EXPECT_LT(first, second);
}

}  // namespace
}  // namespace inferd
