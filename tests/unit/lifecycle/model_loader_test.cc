// SPDX-License-Identifier: Apache-2.0
// ModelLoader over the fake backend: config preparation, auto-complete,
// per-version loading, and that every failure becomes a recorded reason.
#include "lifecycle/model_loader.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inline_scheduler.h"
#include "testing/fake_model.h"
#include "testing/infer_helpers.h"
#include "testing/temp_dir.h"

namespace inferd::lifecycle {
namespace {

using ::testing::ElementsAre;
using testing::FakeConfig;
using testing::FakeModelSpec;
using ::testing::HasSubstr;

constexpr char kIO[] = R"pb(
  max_batch_size: 8 input
  [ {
    name: "INPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }] output
  [ {
    name: "OUTPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }])pb";

class ModelLoaderTest : public ::testing::Test {
 protected:
  ModelStatus Load(const std::string& name, bool auto_complete = true) {
    LoaderOptions options{testing::FakeBackendDirectory(), auto_complete, 4,
                          InlineSchedulerFactory(instances_)};
    ModelLoader loader(std::move(options));
    return loader.Load(repository::ModelLocation{name, repo_.Join(name), std::nullopt});
  }
  void Write(FakeModelSpec spec) { testing::WriteFakeModel(repo_.path(), spec); }

  testing::TempDir repo_;
  std::shared_ptr<int> instances_ = std::make_shared<int>(0);
};

TEST_F(ModelLoaderTest, LoadsACompleteConfig) {
  Write({"m", FakeConfig(kIO)});
  const ModelStatus status = Load("m");
  EXPECT_EQ(status.name, "m");
  EXPECT_EQ(status.reason, "");
  ASSERT_NE(status.config, nullptr);
  EXPECT_EQ(status.config->backend(), "fake");
  EXPECT_EQ(status.config->max_batch_size(), 8);
  // Normalized: one CPU group of one instance, latest-1 policy.
  ASSERT_EQ(status.config->instance_group_size(), 1);
  EXPECT_EQ(status.config->instance_group(0).count(), 1);
  EXPECT_EQ(status.config->version_policy().latest().num_versions(), 1u);
  ASSERT_EQ(status.versions.size(), 1u);
  EXPECT_EQ(status.versions[0].version, 1);
  EXPECT_EQ(status.versions[0].state, VersionState::kReady);
  ASSERT_NE(status.versions[0].loaded, nullptr);
  EXPECT_EQ(status.versions[0].loaded->name(), "m");
  EXPECT_EQ(status.versions[0].loaded->version(), 1);
  EXPECT_EQ(*instances_, 1);
}

TEST_F(ModelLoaderTest, AutoCompletesFromTheModelFile) {
  Write({"m", FakeConfig()});
  const ModelStatus status = Load("m");
  ASSERT_NE(status.config, nullptr) << status.reason;
  EXPECT_EQ(status.config->max_batch_size(), 4);
  EXPECT_TRUE(status.config->has_dynamic_batching());
  EXPECT_THAT(status.config->dynamic_batching().preferred_batch_size(), ElementsAre(4));
  ASSERT_EQ(status.config->input_size(), 1);
  EXPECT_EQ(status.config->input(0).name(), "INPUT0");
  EXPECT_EQ(status.config->input(0).data_type(), inference::TYPE_INT32);
  EXPECT_THAT(status.config->input(0).dims(), ElementsAre(4));
  ASSERT_EQ(status.versions.size(), 1u);
  EXPECT_EQ(status.versions[0].state, VersionState::kReady) << status.versions[0].reason;
}

TEST_F(ModelLoaderTest, WithoutConfigTheFolderNameNamesACustomBackend) {
  Write({"identity.fake", std::nullopt});
  const ModelStatus status = Load("identity.fake");
  ASSERT_NE(status.config, nullptr) << status.reason;
  EXPECT_EQ(status.config->backend(), "fake");
  EXPECT_EQ(status.config->default_model_filename(), "model.fake");
  ASSERT_EQ(status.versions.size(), 1u);
  EXPECT_EQ(status.versions[0].state, VersionState::kReady) << status.versions[0].reason;
}

TEST_F(ModelLoaderTest, MissingConfigWithAutoCompleteDisabled) {
  Write({"identity.fake", std::nullopt});
  const ModelStatus status = Load("identity.fake", /*auto_complete=*/false);
  EXPECT_EQ(status.config, nullptr);
  EXPECT_THAT(status.reason, HasSubstr("config.pbtxt is missing and auto-complete is disabled"));
  // The versions the default policy would serve are listed with the reason.
  ASSERT_EQ(status.versions.size(), 1u);
  EXPECT_EQ(status.versions[0].state, VersionState::kUnavailable);
  EXPECT_EQ(status.versions[0].reason, status.reason);
}

TEST_F(ModelLoaderTest, PartialConfigWithAutoCompleteDisabledFailsValidation) {
  Write({"m", FakeConfig()});
  const ModelStatus status = Load("m", /*auto_complete=*/false);
  EXPECT_EQ(status.config, nullptr);
  EXPECT_THAT(status.reason, HasSubstr("the model has no inputs"));
  EXPECT_THAT(status.reason, HasSubstr(repo_.Join("m/config.pbtxt")));
  // The versions that would have been loaded carry the reason too.
  ASSERT_EQ(status.versions.size(), 1u);
  EXPECT_EQ(status.versions[0].state, VersionState::kUnavailable);
  EXPECT_EQ(status.versions[0].reason, status.reason);
}

TEST_F(ModelLoaderTest, BackendLoadFailureIsTheVersionsReason) {
  Write({"m", FakeConfig(kIO), "fail_load\n"});
  const ModelStatus status = Load("m");
  EXPECT_EQ(status.reason, "");
  ASSERT_NE(status.config, nullptr);
  ASSERT_EQ(status.versions.size(), 1u);
  EXPECT_EQ(status.versions[0].state, VersionState::kUnavailable);
  EXPECT_EQ(status.versions[0].loaded, nullptr);
  EXPECT_THAT(status.versions[0].reason, HasSubstr("fake model 'm' refused to load (fail_load)"));
}

TEST_F(ModelLoaderTest, InstanceFailureIsTheVersionsReason) {
  Write({"m", FakeConfig(std::string(kIO) + "instance_group [ { count: 2 } ]"), "fail_instance\n"});
  const ModelStatus status = Load("m");
  ASSERT_EQ(status.versions.size(), 1u);
  EXPECT_EQ(status.versions[0].state, VersionState::kUnavailable);
  EXPECT_THAT(status.versions[0].reason, HasSubstr("refused to create instance 0"));
}

TEST_F(ModelLoaderTest, EveryConfiguredInstanceIsCreated) {
  Write({"m", FakeConfig(std::string(kIO) +
                         "instance_group [ { count: 2 }, { kind: KIND_CPU count: 3 } ]")});
  const ModelStatus status = Load("m");
  ASSERT_EQ(status.versions.size(), 1u);
  EXPECT_EQ(status.versions[0].state, VersionState::kReady) << status.versions[0].reason;
  EXPECT_EQ(*instances_, 5);
}

TEST_F(ModelLoaderTest, UnknownBackend) {
  Write({"m", std::string("backend: \"nope\"\n") + kIO});
  const ModelStatus status = Load("m");
  ASSERT_EQ(status.versions.size(), 1u);
  EXPECT_EQ(status.versions[0].state, VersionState::kUnavailable);
  EXPECT_THAT(status.versions[0].reason, HasSubstr("backend 'nope' not found"));
}

TEST_F(ModelLoaderTest, UnreadableConfigNamesFileAndLine) {
  Write({"m", "backend: \"fake\"\nno_such_field: 1\n"});
  const ModelStatus status = Load("m");
  EXPECT_EQ(status.config, nullptr);
  EXPECT_THAT(status.reason, HasSubstr(repo_.Join("m/config.pbtxt") + ":2:"));
  ASSERT_EQ(status.versions.size(), 1u);
  EXPECT_EQ(status.versions[0].state, VersionState::kUnavailable);
  EXPECT_THAT(status.versions[0].reason, HasSubstr(":2:"));
}

TEST_F(ModelLoaderTest, InvalidConfigIsReported) {
  Write({"m", FakeConfig("input [ { name: \"INPUT0\" data_type: TYPE_INT32 dims: [ 0 ] } ] "
                         "output [ { name: \"OUTPUT0\" data_type: TYPE_INT32 dims: [ 4 ] } ]")});
  const ModelStatus status = Load("m");
  EXPECT_EQ(status.config, nullptr);
  EXPECT_THAT(status.reason, HasSubstr("input 'INPUT0': dimension 0 is invalid"));
}

TEST_F(ModelLoaderTest, NoVersionFolder) {
  Write({"m", FakeConfig(kIO), "", {}});
  const ModelStatus status = Load("m");
  EXPECT_THAT(status.reason,
              HasSubstr("model 'm': no version folder is available under the version policy"));
  EXPECT_TRUE(status.versions.empty());
}

TEST_F(ModelLoaderTest, ProblemFoundWhileScanning) {
  ModelLoader loader(
      LoaderOptions{testing::FakeBackendDirectory(), true, 1, InlineSchedulerFactory()});
  const ModelStatus status = loader.Load(repository::ModelLocation{"m", repo_.Join("m"), "twice"});
  EXPECT_EQ(status.reason, "twice");
  EXPECT_TRUE(status.versions.empty());
}

TEST_F(ModelLoaderTest, VersionsFailIndependently) {
  Write({"m", FakeConfig(std::string(kIO) + "version_policy { all { } }"), "", {1, 2, 3}});
  testing::WriteFile(repo_.Join("m/2/model.fake"), "fail_load\n");
  const ModelStatus status = Load("m");
  ASSERT_EQ(status.versions.size(), 3u);
  EXPECT_EQ(status.versions[0].state, VersionState::kReady);
  EXPECT_EQ(status.versions[1].state, VersionState::kUnavailable);
  EXPECT_THAT(status.versions[1].reason, HasSubstr("fail_load"));
  EXPECT_EQ(status.versions[2].state, VersionState::kReady);
  EXPECT_EQ(status.NewestReady()->version, 3);
  EXPECT_EQ(status.Find(2)->state, VersionState::kUnavailable);
  EXPECT_EQ(status.Find(4), nullptr);
}

TEST_F(ModelLoaderTest, LatestPolicyLoadsOnlyTheNewest) {
  Write({"m",
         FakeConfig(std::string(kIO) + "version_policy { latest { num_versions: 2 } }"),
         "",
         {1, 2, 3}});
  const ModelStatus status = Load("m");
  ASSERT_EQ(status.versions.size(), 2u);
  EXPECT_EQ(status.versions[0].version, 2);
  EXPECT_EQ(status.versions[1].version, 3);
}

TEST_F(ModelLoaderTest, MissingModelFileInOneVersion) {
  Write({"m",
         std::string(
             "backend: \"fake\" default_model_filename: \"net.fake\" version_policy { all { } }") +
             kIO,
         "",
         {}});
  testing::WriteFile(repo_.Join("m/1/net.fake"), "");
  testing::MakeDirectory(repo_.Join("m/2"));
  const ModelStatus status = Load("m");
  ASSERT_EQ(status.versions.size(), 2u);
  EXPECT_EQ(status.versions[0].state, VersionState::kReady) << status.versions[0].reason;
  EXPECT_THAT(status.versions[1].reason, HasSubstr("cannot open fake model file"));
  EXPECT_THAT(status.versions[1].reason, HasSubstr(repo_.Join("m/2/net.fake")));
}

TEST_F(ModelLoaderTest, LoadedVersionRunsRequests) {
  Write({"m", FakeConfig(kIO)});
  const ModelStatus status = Load("m");
  ASSERT_EQ(status.versions.size(), 1u);
  auto version = status.versions[0].loaded;
  ASSERT_NE(version, nullptr) << status.versions[0].reason;
  auto request = std::make_unique<core::InferRequest>();
  request->id = "42";
  request->inputs.push_back(
      testing::MakeTensor<int32_t>("INPUT0", core::DataType::kInt32, {1, 4}, {1, 2, 3, 4}));
  testing::CallbackResult result;
  version->Submit(
      std::make_unique<INFERD_Request>(std::move(request), result.Callback(), version->io(),
                                       std::vector<std::string>{"OUTPUT0"}, 1, nullptr));
  const auto& response = result.Wait();
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->model_name, "m");
  EXPECT_EQ(response->model_version, 1);
  EXPECT_EQ(response->id, "42");
  ASSERT_EQ(response->outputs.size(), 1u);
  EXPECT_EQ(response->outputs[0].name, "OUTPUT0");
  EXPECT_THAT(response->outputs[0].shape, ElementsAre(1, 4));
  EXPECT_THAT(testing::TensorValues<int32_t>(response->outputs[0]), ElementsAre(1, 2, 3, 4));
  EXPECT_EQ(result.calls(), 1);
}

}  // namespace
}  // namespace inferd::lifecycle
