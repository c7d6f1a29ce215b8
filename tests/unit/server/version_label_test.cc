// SPDX-License-Identifier: Apache-2.0
// Version labels through the Server: ResolveVersionLabel and the
// `version_label` request parameter, which every frontend uses.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "server_fixture.h"
#include "testing/infer_helpers.h"

namespace inferd {
namespace {

using testing::CallbackResult;
using ::testing::HasSubstr;

class VersionLabelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    using testing::FakeConfig;
    const std::string io = std::string(kSingleIO) + "version_policy { all { } }\n";
    testing::WriteFakeModel(
        repo_.path(), {"labelled",
                       FakeConfig(io + R"pb(parameters {
                                              key: "version_labels"
                                              value { string_value: "stable:1, canary:2, gone:9" }
                                            })pb"),
                       "",
                       {1, 2}});
    testing::WriteFakeModel(repo_.path(), {"unlabelled", FakeConfig(io), "", {1}});
    testing::WriteFakeModel(repo_.path(), {"malformed",
                                           FakeConfig(io + R"pb(parameters {
                                                                  key: "version_labels"
                                                                  value { string_value: "stable" }
                                                                })pb"),
                                           "",
                                           {1}});
    auto server = Server::Create(TestOptions(repo_.path()));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  absl::StatusOr<core::InferResponse> Infer(std::string model, std::string version,
                                            core::Parameters parameters) {
    auto request = std::make_unique<core::InferRequest>();
    request->model_name = std::move(model);
    request->model_version = std::move(version);
    request->parameters = std::move(parameters);
    request->inputs.push_back(
        testing::MakeTensor<int32_t>("INPUT0", core::DataType::kInt32, {4}, {1, 2, 3, 4}));
    CallbackResult result;
    server_->InferAsync(std::move(request), result.Callback());
    return result.Wait();
  }

  testing::TempDir repo_;
  std::unique_ptr<Server> server_;
};

TEST_F(VersionLabelTest, ResolvesLabelsToVersions) {
  EXPECT_EQ(*server_->ResolveVersionLabel("labelled", "stable"), "1");
  EXPECT_EQ(*server_->ResolveVersionLabel("labelled", "canary"), "2");
}

TEST_F(VersionLabelTest, UnknownLabelIsTfServingsError) {
  for (const char* model : {"labelled", "unlabelled"}) {
    auto version = server_->ResolveVersionLabel(model, "beta");
    EXPECT_TRUE(absl::IsInvalidArgument(version.status())) << model;
    EXPECT_THAT(std::string(version.status().message()),
                HasSubstr("Unrecognized servable version label: beta"));
  }
  EXPECT_TRUE(absl::IsNotFound(server_->ResolveVersionLabel("nope", "stable").status()));
}

TEST_F(VersionLabelTest, MalformedLabelsFailTheLoad) {
  auto ready = server_->IsModelReady("malformed", "");
  ASSERT_TRUE(ready.ok());
  EXPECT_FALSE(*ready);
  const auto index = server_->RepositoryIndex(false);
  bool seen = false;
  for (const auto& entry : index) {
    if (entry.name != "malformed") continue;
    seen = true;
    EXPECT_THAT(entry.reason, HasSubstr("version_labels"));
  }
  EXPECT_TRUE(seen);
}

TEST_F(VersionLabelTest, RequestParameterChoosesTheVersion) {
  auto stable = Infer("labelled", "", {{"version_label", std::string("stable")}});
  ASSERT_TRUE(stable.ok()) << stable.status();
  EXPECT_EQ(stable->model_version, 1);
  auto canary = Infer("labelled", "", {{"version_label", std::string("canary")}});
  ASSERT_TRUE(canary.ok()) << canary.status();
  EXPECT_EQ(canary->model_version, 2);
  auto newest = Infer("labelled", "", {});
  ASSERT_TRUE(newest.ok()) << newest.status();
  EXPECT_EQ(newest->model_version, 2);
}

TEST_F(VersionLabelTest, RequestParameterErrors) {
  auto unknown = Infer("labelled", "", {{"version_label", std::string("beta")}});
  EXPECT_TRUE(absl::IsInvalidArgument(unknown.status()));
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("Unrecognized servable version label: beta"));
  // A label naming a version the model does not have is that version's error.
  EXPECT_TRUE(
      absl::IsNotFound(Infer("labelled", "", {{"version_label", std::string("gone")}}).status()));
  auto both = Infer("labelled", "1", {{"version_label", std::string("stable")}});
  EXPECT_TRUE(absl::IsInvalidArgument(both.status()));
  EXPECT_THAT(std::string(both.status().message()), HasSubstr("not both"));
  auto typed = Infer("labelled", "", {{"version_label", int64_t{1}}});
  EXPECT_TRUE(absl::IsInvalidArgument(typed.status()));
}

}  // namespace
}  // namespace inferd
