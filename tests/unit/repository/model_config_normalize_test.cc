// SPDX-License-Identifier: Apache-2.0
// Defaults applied to every config after validation (docs/configuration.md),
// on this CPU-only build.
#include <string>

#include "gtest/gtest.h"
#include "repository/model_config_fill.h"
#include "repository/model_config_parser.h"

namespace inferd::repository {
namespace {

inference::ModelConfig Normalized(const std::string& text) {
  auto parsed = ParseModelConfig(text, "config.pbtxt");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  inference::ModelConfig config = parsed.ok() ? *parsed : inference::ModelConfig();
  NormalizeModelConfig(config);
  return config;
}

TEST(NormalizeModelConfigTest, VersionPolicyDefaultsToLatestOne) {
  const auto config = Normalized("name: \"m\"");
  ASSERT_TRUE(config.version_policy().has_latest());
  EXPECT_EQ(config.version_policy().latest().num_versions(), 1u);
  EXPECT_TRUE(Normalized("version_policy { all { } }").version_policy().has_all());
}

TEST(NormalizeModelConfigTest, PreferredBatchSizeDefaultsToMax) {
  const auto config = Normalized("max_batch_size: 8 dynamic_batching { }");
  ASSERT_EQ(config.dynamic_batching().preferred_batch_size_size(), 1);
  EXPECT_EQ(config.dynamic_batching().preferred_batch_size(0), 8);
  const auto kept =
      Normalized("max_batch_size: 8 dynamic_batching { preferred_batch_size: [2, 4] }");
  EXPECT_EQ(kept.dynamic_batching().preferred_batch_size_size(), 2);
  EXPECT_FALSE(Normalized("max_batch_size: 8").has_dynamic_batching());
}

TEST(NormalizeModelConfigTest, NoInstanceGroupOnCpuOnlyHost) {
  const auto onnx = Normalized("name: \"m\" backend: \"onnxruntime\"");
  ASSERT_EQ(onnx.instance_group_size(), 1);
  EXPECT_EQ(onnx.instance_group(0).name(), "m_0");
  EXPECT_EQ(onnx.instance_group(0).kind(), inference::ModelInstanceGroup::KIND_CPU);
  EXPECT_EQ(onnx.instance_group(0).count(), 2);  // ONNX Runtime and TensorFlow default to 2 on CPU
  const auto python = Normalized("name: \"p\" backend: \"python\"");
  ASSERT_EQ(python.instance_group_size(), 1);
  EXPECT_EQ(python.instance_group(0).count(), 1);
  EXPECT_EQ(Normalized("name: \"t\" backend: \"tensorflow\"").instance_group(0).count(), 2);
}

TEST(NormalizeModelConfigTest, ExplicitGroupsAreCompleted) {
  const auto config = Normalized(R"pb(
    name: "m"
    backend: "onnxruntime" instance_group
    [ { name: "pool" kind: KIND_CPU count: 3 }
      , { kind: KIND_AUTO }
      , { kind: KIND_MODEL }])pb");
  ASSERT_EQ(config.instance_group_size(), 3);
  EXPECT_EQ(config.instance_group(0).name(), "pool");
  EXPECT_EQ(config.instance_group(0).count(), 3);
  EXPECT_EQ(config.instance_group(1).name(), "m_1");
  EXPECT_EQ(config.instance_group(1).kind(), inference::ModelInstanceGroup::KIND_CPU);
  EXPECT_EQ(config.instance_group(1).count(), 2);
  EXPECT_EQ(config.instance_group(2).name(), "m_2");
  EXPECT_EQ(config.instance_group(2).kind(), inference::ModelInstanceGroup::KIND_MODEL);
  EXPECT_EQ(config.instance_group(2).count(), 1);  // the CPU-only doubling is for KIND_CPU
}

TEST(NormalizeModelConfigTest, PinnedMemoryDefaultsOn) {
  const auto config = Normalized("name: \"m\"");
  EXPECT_TRUE(config.optimization().input_pinned_memory().enable());
  EXPECT_TRUE(config.optimization().output_pinned_memory().enable());
  const auto kept =
      Normalized("name: \"m\" optimization { input_pinned_memory { enable: false } }");
  EXPECT_FALSE(kept.optimization().input_pinned_memory().enable());
  EXPECT_TRUE(kept.optimization().output_pinned_memory().enable());
}

TEST(NormalizeModelConfigTest, EnsemblesGetNoInstanceGroupOrOptimization) {
  const auto config = Normalized("name: \"e\" platform: \"ensemble\"");
  EXPECT_EQ(config.instance_group_size(), 0);
  EXPECT_FALSE(config.has_optimization());
  EXPECT_TRUE(config.version_policy().has_latest());
}

TEST(NormalizeModelConfigTest, IsIdempotent) {
  auto once =
      Normalized("name: \"m\" backend: \"onnxruntime\" max_batch_size: 4 dynamic_batching { }");
  auto twice = once;
  NormalizeModelConfig(twice);
  EXPECT_EQ(once.SerializeAsString(), twice.SerializeAsString());
}

}  // namespace
}  // namespace inferd::repository
