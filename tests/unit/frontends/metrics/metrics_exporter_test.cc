// SPDX-License-Identifier: Apache-2.0
// The exposition built from statistics snapshots, read back with the strict
// parser: every family and its type, units, labels, and the Triton names.
#include "frontends/metrics/metrics_exporter.h"

#include <cmath>
#include <set>

#include "exposition_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::frontends::metrics {
namespace {

using ::testing::ElementsAre;
using testing::FindFamily;
using ::testing::IsEmpty;
using testing::ParsedFamily;
using testing::Value;

core::HistogramSnapshot Histogram(std::vector<uint64_t> bounds, std::vector<uint64_t> counts,
                                  uint64_t sum) {
  core::HistogramSnapshot h;
  h.upper_bounds = std::move(bounds);
  h.cumulative_counts = std::move(counts);
  h.sum = sum;
  h.count = h.cumulative_counts.back();
  return h;
}

ModelStatistics Model(std::string name, std::string version) {
  ModelStatistics m{std::move(name), std::move(version), {}};
  core::ModelStatsSnapshot& s = m.stats;
  s.inference_count = 12;
  s.execution_count = 4;
  s.success = {5, 5'000'000};
  s.queue = {5, 1'234'567};
  s.compute_input = {5, 2'000};
  s.compute_infer = {5, 3'000'999};
  s.compute_output = {5, 999};
  s.failures = {1, 2, 3, 4};
  s.queue_size = 2;
  s.in_flight = 3;
  const std::vector<uint64_t> ns = {50'000, 1'000'000, 2'500'000'000};
  s.request_duration = Histogram(ns, {1, 4, 5, 5}, 5'000'000);
  s.queue_duration = Histogram(ns, {5, 5, 5, 5}, 1'234'567);
  s.compute_input_duration = Histogram(ns, {5, 5, 5, 5}, 2'000);
  s.compute_infer_duration = Histogram(ns, {0, 2, 5, 5}, 3'000'999);
  s.compute_output_duration = Histogram(ns, {5, 5, 5, 5}, 999);
  s.batch_size = Histogram({1, 2, 4}, {1, 2, 3, 4}, 12);
  return m;
}

std::vector<ParsedFamily> Parse(const std::string& text) {
  auto families = testing::ParseExposition(text);
  EXPECT_TRUE(families.ok()) << families.status() << "\n" << text;
  return families.ok() ? *families : std::vector<ParsedFamily>{};
}

std::map<std::string, std::string> Labels(std::string model, std::string version) {
  return {{"model", std::move(model)}, {"version", std::move(version)}};
}

TEST(MetricsExporterTest, EveryFamilyWithItsType) {
  const ProcessMetrics process{1e6, 2e6, 1.5, 1.7e9, 9};
  const auto families = Parse(RenderMetrics({Model("m", "1")}, &process, MetricsOptions{}));
  const std::map<std::string, std::string> expected = {
      {"inferd_inference_request_success_total", "counter"},
      {"inferd_inference_request_failure_total", "counter"},
      {"inferd_inference_count_total", "counter"},
      {"inferd_inference_exec_count_total", "counter"},
      {"inferd_inference_request_duration_seconds", "histogram"},
      {"inferd_inference_queue_duration_seconds", "histogram"},
      {"inferd_inference_compute_input_duration_seconds", "histogram"},
      {"inferd_inference_compute_infer_duration_seconds", "histogram"},
      {"inferd_inference_compute_output_duration_seconds", "histogram"},
      {"inferd_inference_batch_size", "histogram"},
      {"inferd_inference_queue_size", "gauge"},
      {"inferd_inference_pending_requests", "gauge"},
      {"nv_inference_request_success", "counter"},
      {"nv_inference_request_failure", "counter"},
      {"nv_inference_count", "counter"},
      {"nv_inference_exec_count", "counter"},
      {"nv_inference_request_duration_us", "counter"},
      {"nv_inference_queue_duration_us", "counter"},
      {"nv_inference_compute_input_duration_us", "counter"},
      {"nv_inference_compute_infer_duration_us", "counter"},
      {"nv_inference_compute_output_duration_us", "counter"},
      {"nv_inference_pending_request_count", "gauge"},
      {"process_resident_memory_bytes", "gauge"},
      {"process_virtual_memory_bytes", "gauge"},
      {"process_cpu_seconds_total", "counter"},
      {"process_start_time_seconds", "gauge"},
      {"process_open_fds", "gauge"},
  };
  std::map<std::string, std::string> actual;
  for (const ParsedFamily& family : families) {
    actual[family.name] = family.type;
    EXPECT_FALSE(family.help.empty()) << family.name;
    EXPECT_FALSE(family.samples.empty()) << family.name;
  }
  EXPECT_EQ(actual, expected);
}

TEST(MetricsExporterTest, CountersAndGauges) {
  const auto families = Parse(RenderMetrics({Model("m", "1")}, nullptr, MetricsOptions{}));
  const auto m1 = Labels("m", "1");
  EXPECT_EQ(Value(families, "inferd_inference_request_success_total", m1), 5);
  EXPECT_EQ(Value(families, "inferd_inference_count_total", m1), 12);
  EXPECT_EQ(Value(families, "inferd_inference_exec_count_total", m1), 4);
  EXPECT_EQ(Value(families, "inferd_inference_queue_size", m1), 2);
  EXPECT_EQ(Value(families, "inferd_inference_pending_requests", m1), 3);
  const char* reasons[] = {"REJECTED", "CANCELED", "BACKEND", "OTHER"};
  for (int i = 0; i < 4; ++i) {
    auto labels = m1;
    labels["reason"] = reasons[i];
    EXPECT_EQ(Value(families, "inferd_inference_request_failure_total", labels), i + 1);
    EXPECT_EQ(Value(families, "nv_inference_request_failure", labels), i + 1);
  }
  EXPECT_EQ(FindFamily(families, "inferd_inference_request_failure_total")->samples.size(), 4u);
}

TEST(MetricsExporterTest, DurationsInSeconds) {
  const auto families = Parse(RenderMetrics({Model("m", "1")}, nullptr, MetricsOptions{}));
  const ParsedFamily* family = FindFamily(families, "inferd_inference_request_duration_seconds");
  ASSERT_NE(family, nullptr);
  std::vector<std::string> le;
  std::vector<double> counts;
  for (const auto& sample : family->samples) {
    if (sample.name == family->name + "_bucket") {
      le.push_back(sample.labels.at("le"));
      counts.push_back(sample.value);
    }
  }
  EXPECT_THAT(le, ElementsAre("0.00005", "0.001", "2.5", "+Inf"));
  EXPECT_THAT(counts, ElementsAre(1, 4, 5, 5));
  const auto m1 = Labels("m", "1");
  EXPECT_DOUBLE_EQ(Value(families, family->name + "_sum", m1), 0.005);
  EXPECT_EQ(Value(families, family->name + "_count", m1), 5);
  EXPECT_DOUBLE_EQ(Value(families, "inferd_inference_compute_infer_duration_seconds_sum", m1),
                   0.003000999);
  // Batch sizes stay unitless.
  EXPECT_EQ(Value(families, "inferd_inference_batch_size_bucket", {{"le", "4"}}), 3);
  EXPECT_EQ(Value(families, "inferd_inference_batch_size_sum", m1), 12);
}

TEST(MetricsExporterTest, TritonNamesInWholeMicroseconds) {
  const auto families = Parse(RenderMetrics({Model("m", "1")}, nullptr, MetricsOptions{}));
  const auto m1 = Labels("m", "1");
  EXPECT_EQ(Value(families, "nv_inference_request_success", m1), 5);
  EXPECT_EQ(Value(families, "nv_inference_count", m1), 12);
  EXPECT_EQ(Value(families, "nv_inference_exec_count", m1), 4);
  EXPECT_EQ(Value(families, "nv_inference_request_duration_us", m1), 5000);
  EXPECT_EQ(Value(families, "nv_inference_queue_duration_us", m1), 1234);
  EXPECT_EQ(Value(families, "nv_inference_compute_input_duration_us", m1), 2);
  EXPECT_EQ(Value(families, "nv_inference_compute_infer_duration_us", m1), 3000);
  EXPECT_EQ(Value(families, "nv_inference_compute_output_duration_us", m1), 0);
  EXPECT_EQ(Value(families, "nv_inference_pending_request_count", m1), 2);
}

TEST(MetricsExporterTest, TritonNamesAndProcessCanBeLeftOut) {
  MetricsOptions options;
  options.triton_names = false;
  const std::string text = RenderMetrics({Model("m", "1")}, nullptr, options);
  EXPECT_EQ(text.find("nv_"), std::string::npos);
  EXPECT_EQ(text.find("process_"), std::string::npos);
  EXPECT_NE(text.find("inferd_inference_count_total"), std::string::npos);
}

TEST(MetricsExporterTest, SeveralModelsAndTrickyNames) {
  const auto families = Parse(RenderMetrics(
      {Model("a\"b\\c\nd", "1"), Model("m", "1"), Model("m", "2")}, nullptr, MetricsOptions{}));
  EXPECT_EQ(Value(families, "inferd_inference_count_total", Labels("a\"b\\c\nd", "1")), 12);
  EXPECT_EQ(Value(families, "inferd_inference_count_total", Labels("m", "2")), 12);
  // Families stay contiguous (the parser refuses anything else) and hold
  // one series per model version.
  EXPECT_EQ(FindFamily(families, "inferd_inference_count_total")->samples.size(), 3u);
  EXPECT_EQ(FindFamily(families, "inferd_inference_request_failure_total")->samples.size(), 12u);
}

TEST(MetricsExporterTest, CacheFamiliesOnlyForCachedModels) {
  ModelStatistics cached = Model("cached", "1");
  cached.response_cache = true;
  cached.stats.cache_hit = {3, 4'500'000};
  cached.stats.cache_miss = {2, 1'999};
  const ModelStatistics plain = Model("plain", "1");
  const auto families = Parse(RenderMetrics({cached, plain}, nullptr, MetricsOptions{}));
  const auto c1 = Labels("cached", "1");
  EXPECT_EQ(Value(families, "inferd_cache_hits_total", c1), 3);
  EXPECT_EQ(Value(families, "inferd_cache_misses_total", c1), 2);
  EXPECT_DOUBLE_EQ(Value(families, "inferd_cache_hit_duration_seconds_total", c1), 0.0045);
  EXPECT_DOUBLE_EQ(Value(families, "inferd_cache_miss_duration_seconds_total", c1), 1.999e-6);
  EXPECT_EQ(Value(families, "nv_cache_num_hits_per_model", c1), 3);
  EXPECT_EQ(Value(families, "nv_cache_num_misses_per_model", c1), 2);
  EXPECT_EQ(Value(families, "nv_cache_hit_duration_per_model", c1), 4500);
  EXPECT_EQ(Value(families, "nv_cache_miss_duration_per_model", c1), 1);
  for (const char* name : {"inferd_cache_hits_total", "nv_cache_num_hits_per_model"}) {
    const ParsedFamily* family = FindFamily(families, name);
    ASSERT_NE(family, nullptr) << name;
    EXPECT_EQ(family->type, "counter");
    EXPECT_EQ(family->samples.size(), 1u) << name;  // not the uncached model
  }
  // No cached model: no cache family at all (as Triton).
  const std::string text = RenderMetrics({plain}, nullptr, MetricsOptions{});
  EXPECT_EQ(text.find("inferd_cache_"), std::string::npos);
  EXPECT_EQ(text.find("nv_cache_"), std::string::npos);
}

TEST(MetricsExporterTest, NoModelsStillDescribesEveryFamily) {
  const auto families = Parse(RenderMetrics({}, nullptr, MetricsOptions{}));
  EXPECT_EQ(families.size(), 22u);
  for (const ParsedFamily& family : families) EXPECT_THAT(family.samples, IsEmpty()) << family.name;
}

}  // namespace
}  // namespace inferd::frontends::metrics
