// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/repository_json.h"

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace inferd::frontends::http {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using testing::StatusIs;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

TEST(RepositoryJsonTest, IndexBody) {
  EXPECT_EQ(ParseRepositoryIndexBody("").value(), false);
  EXPECT_EQ(ParseRepositoryIndexBody(" \r\n").value(), false);
  EXPECT_EQ(ParseRepositoryIndexBody("{}").value(), false);
  EXPECT_EQ(ParseRepositoryIndexBody(R"({"ready": true})").value(), true);
  EXPECT_THAT(ParseRepositoryIndexBody(R"({"ready": 1})").status(), StatusIs(kInvalid, "ready"));
  EXPECT_THAT(ParseRepositoryIndexBody("[]").status(), StatusIs(kInvalid, "JSON object"));
}

TEST(RepositoryJsonTest, LoadEmptyBody) {
  for (const char* body : {"", "  \n", "{}", R"({"parameters": {}})"}) {
    absl::StatusOr<ModelLoadRequest> request = ParseModelLoadBody("simple", body);
    ASSERT_TRUE(request.ok()) << body << ": " << request.status();
    EXPECT_EQ(request->model, "simple");
    EXPECT_EQ(request->config_json, "");
    EXPECT_THAT(request->files, IsEmpty());
  }
}

TEST(RepositoryJsonTest, LoadConfigIsPassedOnAsAString) {
  absl::StatusOr<ModelLoadRequest> request = ParseModelLoadBody(
      "m", R"({"parameters": {"config": "{\"max_batch_size\": 4, \"name\": \"m\"}"}})");
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->config_json, R"({"max_batch_size": 4, "name": "m"})");
  EXPECT_THAT(request->files, IsEmpty());
}

TEST(RepositoryJsonTest, LoadDecodesBase64Files) {
  const std::string binary("\x00\xff\x10onnx\x00\x80", 9);
  const std::string body = R"({"parameters": {"config": "{}", "file:1/model.onnx": ")" +
                           absl::Base64Escape(binary) +
                           R"(", "file:2/sub/w.bin": "", "other": {"nested": [1, 2]}}})";
  absl::StatusOr<ModelLoadRequest> request = ParseModelLoadBody("m", body);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->config_json, "{}");
  EXPECT_THAT(request->files, ElementsAre(Pair("1/model.onnx", binary), Pair("2/sub/w.bin", "")));
}

TEST(RepositoryJsonTest, LoadRejectsBadBodies) {
  EXPECT_THAT(ParseModelLoadBody("m", "{not json").status(), StatusIs(kInvalid, "JSON object"));
  EXPECT_THAT(ParseModelLoadBody("m", R"("text")").status(), StatusIs(kInvalid, "JSON object"));
  EXPECT_THAT(ParseModelLoadBody("m", R"({"parameters": []})").status(),
              StatusIs(kInvalid, "'parameters' must be a JSON object"));
  EXPECT_THAT(
      ParseModelLoadBody("m", R"({"parameters": {"config": {"max_batch_size": 4}}})").status(),
      StatusIs(kInvalid, "'config' must be a string"));
  EXPECT_THAT(
      ParseModelLoadBody("m", R"({"parameters": {"config": "{}", "config": "{}"}})").status(),
      StatusIs(kInvalid, "given twice"));
  EXPECT_THAT(
      ParseModelLoadBody("m", R"({"parameters": {"config": "{}", "file:1/model.onnx": 12}})")
          .status(),
      StatusIs(kInvalid, "'file:1/model.onnx' must be a base64 string"));
  EXPECT_THAT(ParseModelLoadBody(
                  "m", R"({"parameters": {"config": "{}", "file:1/model.onnx": "not*base64!"}})")
                  .status(),
              StatusIs(kInvalid, "'file:1/model.onnx' is not valid base64"));
  EXPECT_THAT(
      ParseModelLoadBody(
          "m", R"({"parameters": {"file:1/a": "AAAA", "file:1/a": "AAAA", "config": "{}"}})")
          .status(),
      StatusIs(kInvalid, "given twice"));
}

TEST(RepositoryJsonTest, UnloadBody) {
  EXPECT_EQ(ParseModelUnloadBody("").value(), false);
  EXPECT_EQ(ParseModelUnloadBody("{}").value(), false);
  EXPECT_EQ(ParseModelUnloadBody(R"({"parameters": {}})").value(), false);
  EXPECT_EQ(ParseModelUnloadBody(R"({"parameters": {"unload_dependents": true}})").value(), true);
  EXPECT_EQ(
      ParseModelUnloadBody(R"({"parameters": {"unload_dependents": false, "x": [1]}})").value(),
      false);
  EXPECT_THAT(ParseModelUnloadBody(R"({"parameters": {"unload_dependents": "true"}})").status(),
              StatusIs(kInvalid, "'unload_dependents' must be a boolean"));
  EXPECT_THAT(ParseModelUnloadBody(R"({"parameters": 3})").status(),
              StatusIs(kInvalid, "'parameters' must be a JSON object"));
  EXPECT_THAT(ParseModelUnloadBody("nope").status(), StatusIs(kInvalid, "JSON object"));
}

}  // namespace
}  // namespace inferd::frontends::http
