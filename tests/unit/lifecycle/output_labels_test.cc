// SPDX-License-Identifier: Apache-2.0
// Reading the outputs' label files (label_filename) when a model loads.
#include "lifecycle/output_labels.h"

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace inferd::lifecycle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

inference::ModelConfig Config(const std::string& outputs) {
  inference::ModelConfig config;
  const std::string text = "name: \"m\" " + outputs;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

TEST(OutputLabelsTest, OneLabelPerLine) {
  testing::TempDir dir;
  testing::WriteFile(dir.Join("labels.txt"), "cat\ndog\n\nfish");
  testing::WriteFile(dir.Join("sub/crlf.txt"), "up\r\ndown\r\n");
  auto labels = LoadOutputLabels(Config(R"pb(output { name: "a" label_filename: "labels.txt" }
                                             output { name: "b" label_filename: "sub/crlf.txt" }
                                             output { name: "c" })pb"),
                                 dir.path());
  ASSERT_TRUE(labels.ok()) << labels.status();
  EXPECT_THAT((*labels)->at("a"), ElementsAre("cat", "dog", "", "fish"));
  EXPECT_THAT((*labels)->at("b"), ElementsAre("up", "down"));
  EXPECT_EQ((*labels)->count("c"), 0u);
}

TEST(OutputLabelsTest, NoLabelFilesGiveNoLabels) {
  testing::TempDir dir;
  auto labels = LoadOutputLabels(Config(R"pb(output { name: "a" })pb"), dir.path());
  ASSERT_TRUE(labels.ok());
  EXPECT_THAT(**labels, IsEmpty());
}

TEST(OutputLabelsTest, MissingFileFailsTheLoad) {
  testing::TempDir dir;
  auto labels = LoadOutputLabels(Config(R"pb(output { name: "a" label_filename: "gone.txt" })pb"),
                                 dir.path());
  EXPECT_EQ(labels.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(labels.status().message(),
              HasSubstr("output 'a' of model 'm': cannot read its label_filename 'gone.txt'"));
}

TEST(OutputLabelsTest, NamesMustStayInTheModelFolder) {
  testing::TempDir dir;
  testing::WriteFile(dir.Join("inside/labels.txt"), "x\n");
  for (const char* name : {"/etc/passwd", "../labels.txt", "inside/../../labels.txt"}) {
    auto labels = LoadOutputLabels(
        Config(std::string(R"pb(output { name: "a" label_filename: ")pb") + name + "\" }"),
        dir.Join("inside"));
    EXPECT_EQ(labels.status().code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_THAT(labels.status().message(), HasSubstr("must be a path inside the model folder"));
  }
}

}  // namespace
}  // namespace inferd::lifecycle
