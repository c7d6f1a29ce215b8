// SPDX-License-Identifier: Apache-2.0
// ModelManager over the fake backend: failures stay with their model, and
// Resolve answers NotFound / Unavailable / the newest ready version.
#include "lifecycle/model_manager.h"

#include <optional>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inline_scheduler.h"
#include "testing/fake_model.h"
#include "testing/infer_helpers.h"
#include "testing/temp_dir.h"

namespace inferd::lifecycle {
namespace {

using testing::FakeConfig;
using ::testing::HasSubstr;

constexpr char kIO[] = R"pb(
  input
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

class ModelManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::WriteFakeModel(repo_.path(), {"good", FakeConfig(kIO)});
    testing::WriteFakeModel(repo_.path(), {"broken", FakeConfig(kIO), "fail_load\n"});
    testing::WriteFakeModel(repo_.path(), {"unreadable", "not_a_field: 1\n"});
    testing::WriteFakeModel(
        repo_.path(),
        {"multi", FakeConfig(std::string(kIO) + "version_policy { all { } }"), "", {1, 2, 3}});
    testing::WriteFile(repo_.Join("multi/3/model.fake"), "fail_load\n");
  }

  std::unique_ptr<ModelManager> Create() {
    ModelManagerOptions options;
    options.repositories = {repo_.path()};
    options.loader =
        LoaderOptions{testing::FakeBackendDirectory(), true, 2, InlineSchedulerFactory()};
    auto manager = ModelManager::Create(std::move(options));
    EXPECT_TRUE(manager.ok()) << manager.status();
    return manager.ok() ? std::move(*manager) : nullptr;
  }

  testing::TempDir repo_;
};

TEST_F(ModelManagerTest, MissingRepositoryFailsCreate) {
  ModelManagerOptions options;
  options.repositories = {repo_.Join("missing")};
  options.loader =
      LoaderOptions{testing::FakeBackendDirectory(), true, 1, InlineSchedulerFactory()};
  auto manager = ModelManager::Create(std::move(options));
  EXPECT_TRUE(absl::IsNotFound(manager.status()));
}

TEST_F(ModelManagerTest, FailuresAreIsolatedPerModel) {
  auto manager = Create();
  ASSERT_NE(manager, nullptr);
  const auto snapshot = manager->Snapshot();
  ASSERT_EQ(snapshot->models.size(), 4u);
  const ModelStatus& good = snapshot->models.at("good");
  ASSERT_EQ(good.versions.size(), 1u);
  EXPECT_EQ(good.versions[0].state, VersionState::kReady);
  const ModelStatus& broken = snapshot->models.at("broken");
  ASSERT_EQ(broken.versions.size(), 1u);
  EXPECT_EQ(broken.versions[0].state, VersionState::kUnavailable);
  EXPECT_THAT(broken.versions[0].reason, HasSubstr("fail_load"));
  const ModelStatus& unreadable = snapshot->models.at("unreadable");
  ASSERT_EQ(unreadable.versions.size(), 1u);
  EXPECT_EQ(unreadable.versions[0].state, VersionState::kUnavailable);
  EXPECT_THAT(unreadable.reason, HasSubstr("not_a_field"));
  EXPECT_FALSE(manager->AllReady());
}

TEST_F(ModelManagerTest, AllReadyWhenEveryVersionLoaded) {
  testing::TempDir repo;
  testing::WriteFakeModel(repo.path(), {"a", FakeConfig(kIO)});
  testing::WriteFakeModel(repo.path(), {"b", FakeConfig()});
  ModelManagerOptions options;
  options.repositories = {repo.path()};
  options.loader =
      LoaderOptions{testing::FakeBackendDirectory(), true, 1, InlineSchedulerFactory()};
  auto manager = ModelManager::Create(std::move(options));
  ASSERT_TRUE(manager.ok()) << manager.status();
  EXPECT_TRUE((*manager)->AllReady());
}

TEST_F(ModelManagerTest, EmptyRepositoryIsReady) {
  testing::TempDir repo;
  ModelManagerOptions options;
  options.repositories = {repo.path()};
  options.loader =
      LoaderOptions{testing::FakeBackendDirectory(), true, 1, InlineSchedulerFactory()};
  auto manager = ModelManager::Create(std::move(options));
  ASSERT_TRUE(manager.ok()) << manager.status();
  EXPECT_TRUE((*manager)->AllReady());
  EXPECT_TRUE((*manager)->Snapshot()->models.empty());
}

TEST_F(ModelManagerTest, ResolveUnknownModelIsNotFound) {
  auto manager = Create();
  ASSERT_NE(manager, nullptr);
  auto resolved = manager->Resolve("nope", "");
  EXPECT_TRUE(absl::IsNotFound(resolved.status()));
  EXPECT_EQ(std::string(resolved.status().message()),
            "Request for unknown model: 'nope' is not found");
}

TEST_F(ModelManagerTest, ResolveUnknownOrMalformedVersionIsNotFound) {
  auto manager = Create();
  ASSERT_NE(manager, nullptr);
  for (const char* version : {"7", "0", "abc", "01", "-1", "1.0", " 1"}) {
    auto resolved = manager->Resolve("good", version);
    EXPECT_TRUE(absl::IsNotFound(resolved.status())) << version << ": " << resolved.status();
    EXPECT_THAT(std::string(resolved.status().message()),
                ::testing::StartsWith("Request for unknown model: 'good' version "))
        << version;
  }
  EXPECT_EQ(std::string(manager->Resolve("good", "7").status().message()),
            "Request for unknown model: 'good' version 7 is not found");
}

TEST_F(ModelManagerTest, ResolveNotReadyIsUnavailableWithReason) {
  auto manager = Create();
  ASSERT_NE(manager, nullptr);
  for (const char* version : {"", "1"}) {
    auto resolved = manager->Resolve("broken", version);
    EXPECT_TRUE(absl::IsUnavailable(resolved.status())) << version << ": " << resolved.status();
    EXPECT_THAT(std::string(resolved.status().message()),
                ::testing::StartsWith(
                    *version == '\0'
                        ? "Request for unknown model: 'broken' has no available versions: "
                        : "Request for unknown model: 'broken' version 1 is not at ready state: "));
    EXPECT_THAT(std::string(resolved.status().message()), HasSubstr("fail_load"));
  }
  auto unreadable = manager->Resolve("unreadable", "");
  EXPECT_TRUE(absl::IsUnavailable(unreadable.status()));
  EXPECT_THAT(std::string(unreadable.status().message()), HasSubstr("not_a_field"));
  auto version3 = manager->Resolve("multi", "3");
  EXPECT_TRUE(absl::IsUnavailable(version3.status()));
  EXPECT_THAT(std::string(version3.status().message()),
              HasSubstr("Request for unknown model: 'multi' version 3 is not at ready state"));
}

TEST_F(ModelManagerTest, EmptyVersionIsTheNewestReady) {
  auto manager = Create();
  ASSERT_NE(manager, nullptr);
  auto newest = manager->Resolve("multi", "");
  ASSERT_TRUE(newest.ok()) << newest.status();
  EXPECT_EQ((*newest)->version(), 2);  // 3 failed to load
  auto first = manager->Resolve("multi", "1");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ((*first)->version(), 1);
  auto good = manager->Resolve("good", "1");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ((*good)->name(), "good");
}

TEST_F(ModelManagerTest, UnloadAllTakesVersionsOutOfServiceAndWaitsForPinnedOnes) {
  auto manager = Create();
  ASSERT_NE(manager, nullptr);
  auto pinned = manager->Resolve("good", "");
  ASSERT_TRUE(pinned.ok()) << pinned.status();
  // UnloadAll (no drain limit) returns only once the pinned version is released.
  std::thread unloading([&manager] { manager->UnloadAll(); });
  auto unloading_state = [&manager]() -> std::optional<VersionState> {
    const auto snapshot = manager->Snapshot();
    const auto it = snapshot->models.find("good");
    if (it == snapshot->models.end() || it->second.versions.empty()) return std::nullopt;
    return it->second.versions[0].state;
  };
  for (int spins = 0; unloading_state() != VersionState::kUnloading; ++spins) {
    ASSERT_LT(spins, 100'000'000) << "version 1 never showed UNLOADING";
    std::this_thread::yield();
  }
  EXPECT_FALSE(manager->Resolve("good", "").ok());
  // The request holding the version still completes on it.
  auto request = std::make_unique<core::InferRequest>();
  request->inputs.push_back(
      testing::MakeTensor<int32_t>("INPUT0", core::DataType::kInt32, {4}, {1, 2, 3, 4}));
  testing::CallbackResult result;
  (*pinned)->Submit(
      std::make_unique<INFERD_Request>(std::move(request), result.Callback(), (*pinned)->io(),
                                       std::vector<std::string>{"OUTPUT0"}, 1, nullptr));
  EXPECT_TRUE(result.Wait().ok()) << result.Wait().status();
  pinned->reset();
  unloading.join();
  manager->UnloadAll();  // idempotent
  // Nothing is served any more: no version of any model is ready or unloading.
  for (const auto& [name, status] : manager->Snapshot()->models) {
    EXPECT_FALSE(status.wanted) << name;
    for (const auto& v : status.versions) {
      EXPECT_EQ(v.state, VersionState::kUnavailable) << name << " " << v.version;
    }
  }
  EXPECT_FALSE(manager->Resolve("good", "").ok());
  EXPECT_FALSE(manager->Resolve("multi", "1").ok());
}

TEST(ParseRequestedVersionTest, Forms) {
  EXPECT_EQ(*ParseRequestedVersion("m", ""), std::nullopt);
  EXPECT_EQ(*ParseRequestedVersion("m", "0"), 0);
  EXPECT_EQ(*ParseRequestedVersion("m", "12"), 12);
  EXPECT_TRUE(absl::IsNotFound(ParseRequestedVersion("m", "x").status()));
  EXPECT_TRUE(absl::IsNotFound(ParseRequestedVersion("m", "01").status()));
}

}  // namespace
}  // namespace inferd::lifecycle
