// SPDX-License-Identifier: Apache-2.0
// What the repository load API may send instead of the files on disk: a
// config as JSON, and the model folder's files as `file:<version>/<path>`.
#include "repository/model_overrides.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace inferd::repository {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

namespace fs = std::filesystem;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(ParseModelConfigJsonTest, ParsesTritonClientJson) {
  // What tritonclient's load_model(config=json.dumps(...)) sends; int64 dims
  // may be numbers or strings in protobuf's JSON mapping.
  auto config = ParseModelConfigJson(R"json({
    "name": "m",
    "backend": "onnxruntime",
    "max_batch_size": 8,
    "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [-1, 4]}],
    "output": [{"name": "y", "dataType": "TYPE_FP32", "dims": ["4", "-1"]}],
    "dynamic_batching": {"preferred_batch_size": [4, 8]},
    "version_policy": {"latest": {"num_versions": 2}},
    "model_warmup": [{"name": "w", "batch_size": 1,
                      "inputs": {"x": {"data_type": "TYPE_FP32", "dims": [4], "zero_data": true}}}]
  })json");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->name(), "m");
  EXPECT_EQ(config->backend(), "onnxruntime");
  EXPECT_EQ(config->max_batch_size(), 8);
  ASSERT_EQ(config->input_size(), 1);
  EXPECT_EQ(config->input(0).data_type(), inference::TYPE_FP32);
  EXPECT_THAT(config->input(0).dims(), ElementsAre(-1, 4));
  ASSERT_EQ(config->output_size(), 1);
  EXPECT_THAT(config->output(0).dims(), ElementsAre(4, -1));
  EXPECT_THAT(config->dynamic_batching().preferred_batch_size(), ElementsAre(4, 8));
  EXPECT_EQ(config->version_policy().latest().num_versions(), 2u);
  ASSERT_EQ(config->model_warmup_size(), 1);
  EXPECT_TRUE(config->model_warmup(0).inputs().at("x").zero_data());
}

TEST(ParseModelConfigJsonTest, EmptyObjectIsAnEmptyConfig) {
  auto config = ParseModelConfigJson("{}");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->name(), "");
}

TEST(ParseModelConfigJsonTest, UnknownFieldIsAnError) {
  auto config = ParseModelConfigJson(R"({"name": "m", "max_batch_sise": 8})");
  ASSERT_TRUE(absl::IsInvalidArgument(config.status())) << config.status();
  EXPECT_THAT(std::string(config.status().message()),
              AllOf(StartsWith("invalid model config JSON: "), HasSubstr("max_batch_sise")));
}

TEST(ParseModelConfigJsonTest, MalformedJsonIsAnError) {
  for (const char* json : {"", "{", "{\"name\": }", "[1, 2]", "{\"max_batch_size\": \"eight\"}",
                           "{\"input\": [{\"data_type\": \"TYPE_NOPE\"}]}",
                           "{\"name\": \"m\", \"input\": [{\"name\": \"x\",, }]}", "{} trailing"}) {
    auto config = ParseModelConfigJson(json);
    ASSERT_TRUE(absl::IsInvalidArgument(config.status())) << json << ": " << config.status();
    EXPECT_THAT(std::string(config.status().message()),
                AllOf(StartsWith("invalid model config JSON: "), Not(HasSubstr("\n"))))
        << json;
  }
}

TEST(OverrideModelFolderTest, WritesFilesWithTheirBytes) {
  const std::string binary("\x00\x01\xff\x00onnx\x00", 9);
  auto folder = OverrideModelFolder::Create(
      "my_model", {{"1/model.onnx", binary}, {"1/sub/dir/vocab.txt", "a\nb\n"}, {"3/empty", ""}});
  ASSERT_TRUE(folder.ok()) << folder.status();
  const std::string dir = (*folder)->model_directory();
  EXPECT_EQ(fs::path(dir).filename(), "my_model");
  EXPECT_THAT(fs::path(dir).parent_path().filename().string(), StartsWith("inferd-model-"));
  EXPECT_EQ(ReadAll(dir + "/1/model.onnx"), binary);
  EXPECT_EQ(ReadAll(dir + "/1/model.onnx").size(), 9u);
  EXPECT_EQ(ReadAll(dir + "/1/sub/dir/vocab.txt"), "a\nb\n");
  EXPECT_TRUE(fs::is_regular_file(dir + "/3/empty"));
  EXPECT_EQ(fs::file_size(dir + "/3/empty"), 0u);
}

TEST(OverrideModelFolderTest, NoFilesGivesAnEmptyModelFolder) {
  auto folder = OverrideModelFolder::Create("m", {});
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_TRUE(fs::is_directory((*folder)->model_directory()));
  EXPECT_TRUE(fs::is_empty((*folder)->model_directory()));
}

TEST(OverrideModelFolderTest, EachFolderIsPrivate) {
  auto a = OverrideModelFolder::Create("m", {{"1/model.onnx", "a"}});
  auto b = OverrideModelFolder::Create("m", {{"1/model.onnx", "b"}});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->model_directory(), (*b)->model_directory());
  EXPECT_EQ(ReadAll((*a)->model_directory() + "/1/model.onnx"), "a");
  EXPECT_EQ(ReadAll((*b)->model_directory() + "/1/model.onnx"), "b");
}

TEST(OverrideModelFolderTest, RejectsBadKeys) {
  for (const char* key : {"model.onnx", "01/x", "1/../x", "/1/x", "1/", "1//x", "1/a/../../x",
                          "1/./x", "1/x/", "../1/x", "v1/x", "-1/x", "", "1/.."}) {
    auto folder = OverrideModelFolder::Create("m", {{"1/good.onnx", "ok"}, {key, "bytes"}});
    EXPECT_TRUE(absl::IsInvalidArgument(folder.status())) << "'" << key << "': " << folder.status();
    EXPECT_THAT(std::string(folder.status().message()), HasSubstr(key)) << key;
  }
  // A NUL in the path would cut it short at the system call.
  auto folder = OverrideModelFolder::Create("m", {{std::string("1/a\0b", 5), "x"}});
  EXPECT_TRUE(absl::IsInvalidArgument(folder.status())) << folder.status();
}

TEST(OverrideModelFolderTest, RejectsModelNamesThatAreNotOneFolder) {
  for (const char* name : {"", ".", "..", "a/b", "/abs"}) {
    auto folder = OverrideModelFolder::Create(name, {{"1/model.onnx", "x"}});
    EXPECT_TRUE(absl::IsInvalidArgument(folder.status()))
        << "'" << name << "': " << folder.status();
  }
}

// Points the system temp folder (TMPDIR) at a folder of its own while alive.
class ScopedTmpDir {
 public:
  ScopedTmpDir() {
    const char* old = ::getenv("TMPDIR");
    if (old != nullptr) old_ = old;
    had_old_ = old != nullptr;
    ::setenv("TMPDIR", dir_.path().c_str(), 1);
  }
  ~ScopedTmpDir() {
    if (had_old_) {
      ::setenv("TMPDIR", old_.c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }
  const std::string& path() const { return dir_.path(); }

 private:
  testing::TempDir dir_;
  std::string old_;
  bool had_old_ = false;
};

TEST(OverrideModelFolderTest, WriteFailureIsInternalAndLeavesNothingBehind) {
  ScopedTmpDir tmp;
  // "1/a" is a file, so "1/a/b" cannot be created below it.
  auto folder = OverrideModelFolder::Create("m", {{"1/a", "file"}, {"1/a/b", "x"}});
  ASSERT_TRUE(absl::IsInternal(folder.status())) << folder.status();
  EXPECT_THAT(std::string(folder.status().message()),
              AllOf(HasSubstr(tmp.path()), HasSubstr("/m/1/a")));
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(OverrideModelFolderTest, InvalidKeysWriteNothing) {
  ScopedTmpDir tmp;
  auto folder = OverrideModelFolder::Create("m", {{"1/model.onnx", "x"}, {"1/../../escape", "x"}});
  ASSERT_TRUE(absl::IsInvalidArgument(folder.status())) << folder.status();
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(OverrideModelFolderTest, CreatesItsFolderUnderTheSystemTempFolder) {
  ScopedTmpDir tmp;
  auto folder = OverrideModelFolder::Create("m", {{"1/model.onnx", "x"}});
  ASSERT_TRUE(folder.ok()) << folder.status();
  EXPECT_EQ(fs::path((*folder)->model_directory()).parent_path().parent_path(),
            fs::path(tmp.path()));
  folder->reset();
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(OverrideModelFolderTest, FolderIsRemovedWhenTheLastOwnerLetsGo) {
  auto created = OverrideModelFolder::Create("m", {{"1/model.onnx", "x"}, {"2/deep/er/f", "y"}});
  ASSERT_TRUE(created.ok()) << created.status();
  std::shared_ptr<OverrideModelFolder> first = *std::move(created);
  std::shared_ptr<OverrideModelFolder> second = first;
  const fs::path root = fs::path(first->model_directory()).parent_path();
  ASSERT_TRUE(fs::is_directory(root));
  first.reset();
  EXPECT_TRUE(fs::exists(root / "m/2/deep/er/f"));
  second.reset();
  std::error_code ec;
  EXPECT_FALSE(fs::exists(root, ec));
}

}  // namespace
}  // namespace inferd::repository
