// SPDX-License-Identifier: Apache-2.0
// TF Serving's REST paths: status, metadata, the verbs, versions and labels.
#include "frontends/tfserving/rest_router.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::frontends::tfserving {
namespace {

using ::testing::HasSubstr;

TEST(RestRouterTest, StatusAndMetadata) {
  auto status = MatchRestRoute("GET", "/v1/models/simple");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->action, RestAction::kStatus);
  EXPECT_EQ(status->model, "simple");
  EXPECT_FALSE(status->version.has_value());
  auto versioned = MatchRestRoute("GET", "/v1/models/simple/versions/3?x=1");
  ASSERT_TRUE(versioned.ok());
  EXPECT_EQ(versioned->version, 3);
  auto metadata = MatchRestRoute("GET", "/v1/models/simple/labels/stable/metadata");
  ASSERT_TRUE(metadata.ok());
  EXPECT_EQ(metadata->action, RestAction::kMetadata);
  EXPECT_EQ(metadata->label, "stable");
}

TEST(RestRouterTest, Verbs) {
  auto predict = MatchRestRoute("POST", "/v1/models/ocr_cls:predict");
  ASSERT_TRUE(predict.ok());
  EXPECT_EQ(predict->action, RestAction::kPredict);
  EXPECT_EQ(predict->model, "ocr_cls");
  auto labelled = MatchRestRoute("POST", "/v1/models/m/labels/canary:predict");
  ASSERT_TRUE(labelled.ok());
  EXPECT_EQ(labelled->label, "canary");
  auto versioned = MatchRestRoute("POST", "/v1/models/m/versions/2:classify");
  ASSERT_TRUE(versioned.ok());
  EXPECT_EQ(versioned->action, RestAction::kClassify);
  EXPECT_EQ(versioned->version, 2);
  EXPECT_EQ(MatchRestRoute("POST", "/v1/models/m:regress")->action, RestAction::kRegress);
}

TEST(RestRouterTest, MalformedRequestsInTfServingsWords) {
  for (auto [method, path] :
       std::vector<std::pair<const char*, const char*>>{{"GET", "/v1/models/m:predict"},
                                                        {"POST", "/v1/models/m"},
                                                        {"POST", "/v1/models/m:explain"},
                                                        {"GET", "/v1/models/m/versions/x"},
                                                        {"GET", "/v1/models/m/versions/-1"},
                                                        {"GET", "/v1/models/m/extra"},
                                                        {"GET", "/v1/models/"},
                                                        {"GET", "/v1/other"}}) {
    auto route = MatchRestRoute(method, path);
    EXPECT_TRUE(absl::IsInvalidArgument(route.status())) << method << " " << path;
    EXPECT_THAT(std::string(route.status().message()), HasSubstr("Malformed request: ")) << path;
  }
  EXPECT_TRUE(absl::IsNotFound(MatchRestRoute("GET", "/v2/models/m").status()));
}

}  // namespace
}  // namespace inferd::frontends::tfserving
