// SPDX-License-Identifier: Apache-2.0
// The version_labels config parameter: what parses, what is refused and why.
#include "repository/version_labels.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repository/model_config_validator.h"

namespace inferd::repository {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

TEST(VersionLabelsTest, ParsesLabelsWithSpaces) {
  auto labels = ParseVersionLabels(" stable:3 , canary : 4,v2.beta-1_x:10");
  ASSERT_TRUE(labels.ok()) << labels.status();
  EXPECT_THAT(*labels,
              UnorderedElementsAre(Pair("stable", 3), Pair("canary", 4), Pair("v2.beta-1_x", 10)));
}

TEST(VersionLabelsTest, EmptyTextHasNoLabels) {
  auto labels = ParseVersionLabels("  ");
  ASSERT_TRUE(labels.ok());
  EXPECT_TRUE(labels->empty());
}

TEST(VersionLabelsTest, RefusesMalformedEntries) {
  for (const char* text : {"stable", "stable:", "stable:0", "stable:-1", "stable:x", "3:3", ":3",
                           "stable:3,stable:4", "sta ble:3", "stable:3,"}) {
    auto labels = ParseVersionLabels(text);
    EXPECT_TRUE(absl::IsInvalidArgument(labels.status())) << text;
    EXPECT_THAT(std::string(labels.status().message()), HasSubstr("version_labels")) << text;
  }
}

TEST(VersionLabelsTest, ReadFromTheConfigParameter) {
  inference::ModelConfig config;
  EXPECT_TRUE(VersionLabelsOf(config)->empty());
  (*config.mutable_parameters())["version_labels"].set_string_value("stable:1");
  EXPECT_THAT(*VersionLabelsOf(config), UnorderedElementsAre(Pair("stable", 1)));
}

TEST(VersionLabelsTest, ValidatorReportsBadLabels) {
  inference::ModelConfig config;
  config.set_name("m");
  auto* in = config.add_input();
  in->set_name("x");
  in->set_data_type(inference::TYPE_FP32);
  in->add_dims(1);
  auto* out = config.add_output();
  out->set_name("y");
  out->set_data_type(inference::TYPE_FP32);
  out->add_dims(1);
  EXPECT_TRUE(ValidateModelConfig(config, "m/config.pbtxt").ok());
  (*config.mutable_parameters())["version_labels"].set_string_value("stable=1");
  const absl::Status status = ValidateModelConfig(config, "m/config.pbtxt");
  EXPECT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_THAT(std::string(status.message()), HasSubstr("'stable=1' has no ':'"));
}

}  // namespace
}  // namespace inferd::repository
