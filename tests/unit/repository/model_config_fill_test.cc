// SPDX-License-Identifier: Apache-2.0
// The server-side fill of name, backend, platform and default file name
// (docs/configuration.md), including probing the first version folder.
#include "repository/model_config_fill.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repository/model_config_parser.h"
#include "testing/temp_dir.h"

namespace inferd::repository {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using testing::WriteFile;

struct Filled {
  absl::Status status;
  inference::ModelConfig config;
};

Filled Fill(const std::string& text, const std::string& name = "m",
            const std::string& dir = "/nonexistent/m") {
  auto parsed = ParseModelConfig(text, "config.pbtxt");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  Filled filled{absl::OkStatus(), parsed.ok() ? *parsed : inference::ModelConfig()};
  filled.status = FillBackendAndPlatform(name, dir, filled.config);
  return filled;
}

void ExpectFill(const std::string& text, const std::string& backend, const std::string& platform,
                const std::string& file) {
  const auto filled = Fill(text);
  ASSERT_TRUE(filled.status.ok()) << text << ": " << filled.status;
  EXPECT_EQ(filled.config.backend(), backend) << text;
  EXPECT_EQ(filled.config.platform(), platform) << text;
  EXPECT_EQ(filled.config.default_model_filename(), file) << text;
}

TEST(ModelConfigFillTest, NameComesFromTheFolder) {
  const auto filled = Fill("backend: \"onnxruntime\"", "resnet", "/x/resnet");
  ASSERT_TRUE(filled.status.ok()) << filled.status;
  EXPECT_EQ(filled.config.name(), "resnet");
}

TEST(ModelConfigFillTest, NameMustMatchTheFolder) {
  const auto filled = Fill("name: \"other\" backend: \"onnxruntime\"", "resnet");
  EXPECT_TRUE(absl::IsInvalidArgument(filled.status));
  EXPECT_THAT(std::string(filled.status.message()), HasSubstr("'other'"));
  EXPECT_THAT(std::string(filled.status.message()), HasSubstr("'resnet'"));
}

TEST(ModelConfigFillTest, PlatformOnly) {
  ExpectFill("platform: \"onnxruntime_onnx\"", "onnxruntime", "onnxruntime_onnx", "model.onnx");
  ExpectFill("platform: \"pytorch_libtorch\"", "pytorch", "pytorch_libtorch", "model.pt");
  ExpectFill("platform: \"torch_aoti\"", "pytorch", "torch_aoti", "model.pt2");
  ExpectFill("platform: \"tensorrt_plan\"", "tensorrt", "tensorrt_plan", "model.plan");
  ExpectFill("platform: \"tensorflow_savedmodel\"", "tensorflow", "tensorflow_savedmodel",
             "model.savedmodel");
  ExpectFill("platform: \"tensorflow_graphdef\"", "tensorflow", "tensorflow_graphdef",
             "model.graphdef");
}

TEST(ModelConfigFillTest, BackendOnly) {
  ExpectFill("backend: \"onnxruntime\"", "onnxruntime", "onnxruntime_onnx", "model.onnx");
  ExpectFill("backend: \"pytorch\"", "pytorch", "pytorch_libtorch", "model.pt");
  ExpectFill("backend: \"tensorrt\"", "tensorrt", "tensorrt_plan", "model.plan");
  // Python and OpenVINO get only the file name; their platform stays empty.
  ExpectFill("backend: \"python\"", "python", "", "model.py");
  ExpectFill("backend: \"openvino\"", "openvino", "", "model.xml");
  // TensorFlow needs a platform; it follows the (default) file name.
  ExpectFill("backend: \"tensorflow\"", "tensorflow", "tensorflow_savedmodel", "model.savedmodel");
}

TEST(ModelConfigFillTest, DefaultModelFilenameOnly) {
  ExpectFill("default_model_filename: \"model.onnx\"", "onnxruntime", "onnxruntime_onnx",
             "model.onnx");
  ExpectFill("default_model_filename: \"model.pt\"", "pytorch", "pytorch_libtorch", "model.pt");
  ExpectFill("default_model_filename: \"model.plan\"", "tensorrt", "tensorrt_plan", "model.plan");
  ExpectFill("default_model_filename: \"model.py\"", "python", "", "model.py");
  ExpectFill("default_model_filename: \"model.xml\"", "openvino", "", "model.xml");
  ExpectFill("default_model_filename: \"model.graphdef\"", "tensorflow", "tensorflow_graphdef",
             "model.graphdef");
  ExpectFill("default_model_filename: \"model.savedmodel\"", "tensorflow", "tensorflow_savedmodel",
             "model.savedmodel");
  const auto pt2 = Fill("default_model_filename: \"model.pt2\"");
  ASSERT_TRUE(pt2.status.ok()) << pt2.status;
  EXPECT_EQ(pt2.config.backend(), "pytorch");
  EXPECT_EQ(pt2.config.default_model_filename(), "model.pt2");
}

TEST(ModelConfigFillTest, ExplicitFileNameIsKept) {
  ExpectFill("backend: \"onnxruntime\" default_model_filename: \"net.onnx\"", "onnxruntime",
             "onnxruntime_onnx", "net.onnx");
}

TEST(ModelConfigFillTest, CustomBackendWithFileName) {
  ExpectFill("backend: \"fake\" default_model_filename: \"model.fake\"", "fake", "", "model.fake");
}

TEST(ModelConfigFillTest, CustomBackendDefaultsToModelDotBackend) {
  ExpectFill("backend: \"fake\"", "fake", "", "model.fake");
  ExpectFill("backend: \"dali\"", "dali", "", "model.dali");
}

TEST(ModelConfigFillTest, CustomBackendAcceptsAnyPlatform) {
  ExpectFill("backend: \"python\" platform: \"anything\"", "python", "anything", "model.py");
  ExpectFill("backend: \"fake\" platform: \"onnxruntime_onnx\"", "fake", "onnxruntime_onnx",
             "model.fake");
}

TEST(ModelConfigFillTest, WrongPlatformBackendPairIsRejected) {
  const auto filled = Fill("backend: \"onnxruntime\" platform: \"pytorch_libtorch\"");
  EXPECT_TRUE(absl::IsInvalidArgument(filled.status));
  EXPECT_THAT(std::string(filled.status.message()),
              HasSubstr("unexpected 'platform' and 'backend' pair"));
  EXPECT_TRUE(
      absl::IsInvalidArgument(Fill("backend: \"tensorrt\" platform: \"onnxruntime_onnx\"").status));
  EXPECT_TRUE(absl::IsInvalidArgument(Fill("backend: \"pytorch\" platform: \"custom\"").status));
}

TEST(ModelConfigFillTest, Ensembles) {
  const auto ok = Fill("platform: \"ensemble\"");
  ASSERT_TRUE(ok.status.ok()) << ok.status;
  EXPECT_EQ(ok.config.backend(), "");
  EXPECT_EQ(ok.config.default_model_filename(), "");
  EXPECT_TRUE(absl::IsInvalidArgument(Fill("platform: \"ensemble\" backend: \"python\"").status));
}

TEST(ModelConfigFillTest, ProbesTheFirstVersionFolder) {
  const struct {
    const char* file;
    const char* backend;
  } kCases[] = {{"model.onnx", "onnxruntime"},   {"model.pt", "pytorch"},
                {"model.plan", "tensorrt"},      {"model.py", "python"},
                {"model.xml", "openvino"},       {"model.pt2", "pytorch"},
                {"model.graphdef", "tensorflow"}};
  for (const auto& c : kCases) {
    TempDir dir;
    WriteFile(dir.Join(std::string("m/1/") + c.file), "x");
    const auto filled = Fill("", "m", dir.Join("m"));
    ASSERT_TRUE(filled.status.ok()) << c.file << ": " << filled.status;
    EXPECT_EQ(filled.config.backend(), c.backend) << c.file;
    EXPECT_EQ(filled.config.default_model_filename(), c.file) << c.file;
  }
}

TEST(ModelConfigFillTest, ProbeFindsModelFolders) {
  TempDir dir;
  WriteFile(dir.Join("m/1/model.savedmodel/saved_model.pb"), "x");
  const auto filled = Fill("", "m", dir.Join("m"));
  ASSERT_TRUE(filled.status.ok()) << filled.status;
  EXPECT_EQ(filled.config.backend(), "tensorflow");
  EXPECT_EQ(filled.config.default_model_filename(), "model.savedmodel");
}

TEST(ModelConfigFillTest, ProbeOrderPrefersPlanOverOnnx) {
  TempDir dir;
  WriteFile(dir.Join("m/1/model.onnx"), "x");
  WriteFile(dir.Join("m/1/model.plan"), "x");
  const auto filled = Fill("", "m", dir.Join("m"));
  ASSERT_TRUE(filled.status.ok()) << filled.status;
  EXPECT_EQ(filled.config.backend(), "tensorrt");
}

// Triton probes the lexicographically first subfolder; inferd probes the
// lowest version, so "10" (after "2") and stray folders do not decide.
TEST(ModelConfigFillTest, ProbeLooksAtTheLowestVersionFolder) {
  TempDir dir;
  WriteFile(dir.Join("m/10/model.py"), "x");
  WriteFile(dir.Join("m/2/model.onnx"), "x");
  WriteFile(dir.Join("m/01/model.plan"), "x");  // not a version
  WriteFile(dir.Join("m/warmup/model.pt"), "x");
  const auto filled = Fill("", "m", dir.Join("m"));
  ASSERT_TRUE(filled.status.ok()) << filled.status;
  EXPECT_EQ(filled.config.backend(), "onnxruntime");
}

TEST(ModelConfigFillTest, ProbedFileNameDoesNotOverrideAnExplicitOne) {
  TempDir dir;
  WriteFile(dir.Join("m/1/model.onnx"), "x");
  const auto filled = Fill("max_batch_size: 2", "m", dir.Join("m"));
  ASSERT_TRUE(filled.status.ok()) << filled.status;
  EXPECT_EQ(filled.config.platform(), "onnxruntime_onnx");
  EXPECT_EQ(filled.config.max_batch_size(), 2);
}

TEST(ModelConfigFillTest, CustomBackendFromTheFolderName) {
  TempDir dir;
  WriteFile(dir.Join("add.fake/1/model.fake"), "x");
  const auto filled = Fill("", "add.fake", dir.Join("add.fake"));
  ASSERT_TRUE(filled.status.ok()) << filled.status;
  EXPECT_EQ(filled.config.backend(), "fake");
  EXPECT_EQ(filled.config.default_model_filename(), "model.fake");
}

TEST(ModelConfigFillTest, UndeterminableBackend) {
  TempDir dir;
  WriteFile(dir.Join("m/1/weights.bin"), "x");
  for (const std::string& model_dir : {dir.Join("m"), dir.Join("missing")}) {
    const auto filled = Fill("", "m", model_dir);
    EXPECT_TRUE(absl::IsInvalidArgument(filled.status)) << model_dir;
    EXPECT_THAT(std::string(filled.status.message()),
                HasSubstr("could not determine the backend of model 'm'"));
  }
}

}  // namespace
}  // namespace inferd::repository
