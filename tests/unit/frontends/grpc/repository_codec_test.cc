// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/repository_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::frontends::grpc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

inference::RepositoryModelLoadRequest Load(const std::string& model) {
  inference::RepositoryModelLoadRequest message;
  message.set_model_name(model);
  return message;
}

TEST(RepositoryCodecTest, LoadWithoutParameters) {
  absl::StatusOr<ModelLoadRequest> request = DecodeModelLoadRequest(Load("simple"));
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->model, "simple");
  EXPECT_EQ(request->config_json, "");
  EXPECT_TRUE(request->files.empty());
}

TEST(RepositoryCodecTest, LoadTakesConfigStringAndRawFileBytes) {
  inference::RepositoryModelLoadRequest message = Load("m");
  auto& parameters = *message.mutable_parameters();
  parameters["config"].set_string_param(R"({"max_batch_size": 4})");
  const std::string binary("\x00\xff\x01onnx\x00", 8);
  parameters["file:1/model.onnx"].set_bytes_param(binary);
  parameters["file:2/sub/weights.bin"].set_bytes_param("");
  // Other parameters are ignored, whatever their type.
  parameters["something_else"].set_int64_param(3);
  parameters["unset"];
  absl::StatusOr<ModelLoadRequest> request = DecodeModelLoadRequest(message);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->model, "m");
  EXPECT_EQ(request->config_json, R"({"max_batch_size": 4})");
  EXPECT_THAT(request->files,
              ElementsAre(Pair("1/model.onnx", binary), Pair("2/sub/weights.bin", "")));
}

TEST(RepositoryCodecTest, LoadRejectsWrongParameterTypes) {
  inference::RepositoryModelLoadRequest config_as_bytes = Load("m");
  (*config_as_bytes.mutable_parameters())["config"].set_bytes_param("{}");
  absl::Status status = DecodeModelLoadRequest(config_as_bytes).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("'config'"));
  EXPECT_THAT(status.message(), HasSubstr("string_param"));

  inference::RepositoryModelLoadRequest config_unset = Load("m");
  (*config_unset.mutable_parameters())["config"];
  EXPECT_EQ(DecodeModelLoadRequest(config_unset).status().code(),
            absl::StatusCode::kInvalidArgument);

  inference::RepositoryModelLoadRequest file_as_string = Load("m");
  (*file_as_string.mutable_parameters())["config"].set_string_param("{}");
  (*file_as_string.mutable_parameters())["file:1/model.onnx"].set_string_param("AAAA");
  status = DecodeModelLoadRequest(file_as_string).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("'file:1/model.onnx'"));
  EXPECT_THAT(status.message(), HasSubstr("bytes_param"));
}

TEST(RepositoryCodecTest, RepositoryNameIsUnimplemented) {
  inference::RepositoryModelLoadRequest load = Load("m");
  load.set_repository_name("myrepo");
  absl::Status status = DecodeModelLoadRequest(load).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(status.message(), HasSubstr("myrepo"));

  inference::RepositoryModelUnloadRequest unload;
  unload.set_model_name("m");
  unload.set_repository_name("myrepo");
  EXPECT_EQ(DecodeModelUnloadRequest(unload).status().code(), absl::StatusCode::kUnimplemented);
}

TEST(RepositoryCodecTest, UnloadDependents) {
  inference::RepositoryModelUnloadRequest unload;
  unload.set_model_name("m");
  absl::StatusOr<ModelUnloadRequest> request = DecodeModelUnloadRequest(unload);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->model, "m");
  EXPECT_FALSE(request->unload_dependents);

  (*unload.mutable_parameters())["unload_dependents"].set_bool_param(true);
  (*unload.mutable_parameters())["ignored"].set_string_param("x");
  request = DecodeModelUnloadRequest(unload);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_TRUE(request->unload_dependents);

  (*unload.mutable_parameters())["unload_dependents"].set_int64_param(1);
  const absl::Status status = DecodeModelUnloadRequest(unload).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("bool_param"));
}

}  // namespace
}  // namespace inferd::frontends::grpc
