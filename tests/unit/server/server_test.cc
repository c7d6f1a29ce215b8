// SPDX-License-Identifier: Apache-2.0
// inferd::Server control surface in process: Create, server and model
// metadata, configs, readiness and the repository index.
#include "server/server.h"

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model_config.pb.h"
#include "server_fixture.h"

namespace inferd {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(ServerCreateTest, NeedsARepository) {
  ServerOptions options;
  auto server = Server::Create(options);
  EXPECT_TRUE(absl::IsInvalidArgument(server.status()));
}

TEST(ServerCreateTest, MissingRepositoryIsNotFound) {
  testing::TempDir dir;
  auto server = Server::Create(TestOptions(dir.Join("missing")));
  EXPECT_TRUE(absl::IsNotFound(server.status()));
}

TEST(ServerCreateTest, ReadyWhenEveryModelLoads) {
  testing::TempDir repo;
  testing::WriteFakeModel(repo.path(), {"identity", testing::FakeConfig(kIdentityIO)});
  testing::WriteFakeModel(repo.path(), {"auto", testing::FakeConfig()});
  auto server = Server::Create(TestOptions(repo.path()));
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_TRUE((*server)->IsLive());
  EXPECT_TRUE((*server)->IsReady());
}

TEST(ServerCreateTest, AutoCompleteCanBeDisabled) {
  testing::TempDir repo;
  testing::WriteFakeModel(repo.path(), {"auto", testing::FakeConfig()});
  ServerOptions options = TestOptions(repo.path());
  options.auto_complete_config = false;
  auto server = Server::Create(options);
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_FALSE((*server)->IsReady());
  auto ready = (*server)->IsModelReady("auto", "");
  ASSERT_TRUE(ready.ok()) << ready.status();
  EXPECT_FALSE(*ready);
}

using ServerTest = ServerTestBase;

TEST_F(ServerTest, LiveButNotReadyWhenAModelFailed) {
  EXPECT_TRUE(server_->IsLive());
  EXPECT_FALSE(server_->IsReady());
}

TEST_F(ServerTest, ServerMetadata) {
  const ServerMetadata metadata = server_->Metadata();
  EXPECT_EQ(metadata.name, "inferd");
  EXPECT_FALSE(metadata.version.empty());
  EXPECT_THAT(metadata.extensions, Contains("model_configuration"));
  EXPECT_THAT(metadata.extensions, Contains("binary_tensor_data"));
}

TEST_F(ServerTest, ModelMetadata) {
  auto metadata = server_->GetModelMetadata("identity", "");
  ASSERT_TRUE(metadata.ok()) << metadata.status();
  EXPECT_EQ(metadata->name, "identity");
  EXPECT_THAT(metadata->versions, ElementsAre("1"));
  EXPECT_EQ(metadata->platform, "fake");  // no platform: the backend
  ASSERT_EQ(metadata->inputs.size(), 2u);
  EXPECT_EQ(metadata->inputs[0].name, "INPUT0");
  EXPECT_EQ(metadata->inputs[0].datatype, core::DataType::kInt32);
  EXPECT_THAT(metadata->inputs[0].shape, ElementsAre(-1, 4));  // batch dimension first
  EXPECT_EQ(metadata->inputs[1].datatype, core::DataType::kBytes);
  EXPECT_THAT(metadata->inputs[1].shape, ElementsAre(-1, -1));
  ASSERT_EQ(metadata->outputs.size(), 2u);
  EXPECT_EQ(metadata->outputs[1].name, "OUTPUT1");
}

TEST_F(ServerTest, ModelMetadataOfNonBatchingModelHasNoBatchDimension) {
  auto metadata = server_->GetModelMetadata("plain", "1");
  ASSERT_TRUE(metadata.ok()) << metadata.status();
  EXPECT_THAT(metadata->inputs[0].shape, ElementsAre(4));
}

TEST_F(ServerTest, ModelMetadataListsReadyVersions) {
  auto metadata = server_->GetModelMetadata("versions", "");
  ASSERT_TRUE(metadata.ok()) << metadata.status();
  EXPECT_THAT(metadata->versions, ElementsAre("1", "2"));
}

TEST_F(ServerTest, ModelMetadataErrors) {
  EXPECT_TRUE(absl::IsNotFound(server_->GetModelMetadata("nope", "").status()));
  EXPECT_TRUE(absl::IsNotFound(server_->GetModelMetadata("identity", "2").status()));
  EXPECT_TRUE(absl::IsNotFound(server_->GetModelMetadata("identity", "x").status()));
  EXPECT_TRUE(absl::IsUnavailable(server_->GetModelMetadata("broken", "").status()));
  EXPECT_TRUE(absl::IsUnavailable(server_->GetModelMetadata("versions", "3").status()));
  auto unreadable = server_->GetModelMetadata("unreadable", "");
  EXPECT_TRUE(absl::IsUnavailable(unreadable.status()));
  EXPECT_THAT(std::string(unreadable.status().message()), HasSubstr("bogus_field"));
}

TEST_F(ServerTest, ModelConfigIsTheCompletedOne) {
  auto config = server_->GetModelConfig("auto", "");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ((*config)->name(), "auto");
  EXPECT_EQ((*config)->backend(), "fake");
  EXPECT_EQ((*config)->max_batch_size(), 4);
  EXPECT_TRUE((*config)->has_dynamic_batching());
  ASSERT_EQ((*config)->input_size(), 1);
  EXPECT_THAT((*config)->input(0).dims(), ElementsAre(4));
  ASSERT_EQ((*config)->instance_group_size(), 1);
  EXPECT_EQ((*config)->instance_group(0).kind(), inference::ModelInstanceGroup::KIND_CPU);
  EXPECT_TRUE(absl::IsNotFound(server_->GetModelConfig("nope", "").status()));
  EXPECT_TRUE(absl::IsUnavailable(server_->GetModelConfig("broken", "1").status()));
}

TEST_F(ServerTest, ScalarModelIsCompletedWithReshape) {
  auto config = server_->GetModelConfig("scalar", "");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT((*config)->input(0).dims(), ElementsAre(1));
  EXPECT_TRUE((*config)->input(0).has_reshape());
  EXPECT_TRUE((*config)->output(0).has_reshape());
}

TEST_F(ServerTest, IsModelReady) {
  for (const char* version : {"", "1"}) {
    auto ready = server_->IsModelReady("identity", version);
    ASSERT_TRUE(ready.ok()) << ready.status();
    EXPECT_TRUE(*ready) << version;
  }
  EXPECT_FALSE(*server_->IsModelReady("broken", ""));
  EXPECT_FALSE(*server_->IsModelReady("unreadable", ""));
  EXPECT_FALSE(*server_->IsModelReady("versions", "3"));
  EXPECT_TRUE(*server_->IsModelReady("versions", "2"));
  EXPECT_TRUE(absl::IsNotFound(server_->IsModelReady("nope", "").status()));
  EXPECT_TRUE(absl::IsNotFound(server_->IsModelReady("identity", "abc").status()));
  EXPECT_TRUE(absl::IsNotFound(server_->IsModelReady("identity", "5").status()));
}

TEST_F(ServerTest, RepositoryIndex) {
  const auto index = server_->RepositoryIndex(/*ready_only=*/false);
  std::vector<std::string> keys;
  for (const auto& entry : index)
    keys.push_back(entry.name + ":" + entry.version + ":" + entry.state);
  EXPECT_THAT(keys, ElementsAre("auto:1:READY", "broken:1:UNAVAILABLE", "failing:1:READY",
                                "identity:1:READY", "plain:1:READY", "scalar:1:READY",
                                "unreadable:1:UNAVAILABLE", "versions:1:READY", "versions:2:READY",
                                "versions:3:UNAVAILABLE"));
  for (const auto& entry : index) {
    if (entry.state == "READY") {
      EXPECT_EQ(entry.reason, "") << entry.name;
    } else {
      EXPECT_NE(entry.reason, "") << entry.name;
    }
  }
  auto broken =
      std::find_if(index.begin(), index.end(), [](const auto& e) { return e.name == "broken"; });
  EXPECT_THAT(broken->reason, HasSubstr("fail_load"));
}

TEST_F(ServerTest, RepositoryIndexReadyOnly) {
  const auto index = server_->RepositoryIndex(/*ready_only=*/true);
  EXPECT_EQ(index.size(), 7u);
  for (const auto& entry : index) EXPECT_EQ(entry.state, "READY") << entry.name;
}

// Explicit mode, as Triton answers: the index lists every model of the
// repositories (one never loaded by name only), and such a model is not
// ready rather than unknown.
TEST(ServerExplicitModeTest, IndexAndReadinessOfModelsNotLoaded) {
  testing::TempDir repo;
  WriteTestRepository(repo.path());
  ServerOptions options = TestOptions(repo.path());
  options.model_control_mode = lifecycle::ModelControlMode::kExplicit;
  options.startup_models = {"identity"};
  auto server = Server::Create(options);
  ASSERT_TRUE(server.ok()) << server.status();
  std::vector<std::string> keys;
  for (const auto& e : (*server)->RepositoryIndex(/*ready_only=*/false)) {
    keys.push_back(e.name + ":" + e.version + ":" + e.state + ":" + e.reason);
  }
  EXPECT_THAT(keys, ElementsAre("auto:::", "broken:::", "failing:::", "identity:1:READY:",
                                "plain:::", "scalar:::", "unreadable:::", "versions:::"));
  EXPECT_EQ((*server)->RepositoryIndex(/*ready_only=*/true).size(), 1u);
  for (const char* version : {"", "1", "7"}) {
    auto ready = (*server)->IsModelReady("plain", version);
    ASSERT_TRUE(ready.ok()) << ready.status();
    EXPECT_FALSE(*ready);
  }
  auto unknown = (*server)->IsModelReady("nope", "");
  EXPECT_TRUE(absl::IsNotFound(unknown.status()));
  EXPECT_EQ(unknown.status().message(), "Request for unknown model: 'nope' is not found");
}

TEST_F(ServerTest, StopEndsLiveness) {
  server_->Stop();
  server_->Stop();  // idempotent
  EXPECT_FALSE(server_->IsLive());
  EXPECT_FALSE(server_->IsReady());
  EXPECT_THAT(server_->RepositoryIndex(true), IsEmpty());
}

}  // namespace
}  // namespace inferd
