// SPDX-License-Identifier: Apache-2.0
// ModelManager transitions over the fake backend, with no poll thread (the
// tests call PollOnce) and no sleeps: polling's stability rule, the
// availability- and resource-preserving policies, failure isolation, the
// explicit load/unload API, UnloadAll's drain, strict readiness, and
// version swaps under concurrent requests. Runs under TSan.
#include <atomic>
#include <deque>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inline_scheduler.h"
#include "lifecycle/model_manager.h"
#include "lifecycle_test_support.h"
#include "testing/fake_model.h"
#include "testing/infer_helpers.h"
#include "testing/temp_dir.h"

// Read by ThreadSanitizer's runtime at start-up (ignored without TSan).
// libstdc++ 12's std::atomic<std::shared_ptr>::load unlocks its internal
// lock bit with memory_order_relaxed (bits/shared_ptr_atomic.h), so TSan
// sees no happens-before between a load's read of the pointer and the next
// store's write of it and reports a race inside ServingTable::Get/Publish
// (google/sanitizers#1558). The snapshots themselves are immutable.
extern "C" const char* __tsan_default_suppressions() { return "race:std::_Sp_atomic\n"; }

namespace inferd::lifecycle {
namespace {

using test::CapturedResult;
using test::EventLog;
using test::WaitUntil;
using ::testing::ElementsAre;
using testing::FakeConfig;
using ::testing::HasSubstr;

// Raw strings without the `pb` delimiter: clang-format leaves them alone.
constexpr char kIO[] = R"(
  input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 4 ] } ]
  output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 4 ] } ])";
constexpr char kModelFile[] = "input INPUT0 INT32 -1 4\noutput OUTPUT0 INT32 -1 4\n";

// The config of kIO as the load API's JSON, with max_batch_size 2.
constexpr char kOverrideJson[] = R"({
  "backend": "fake", "default_model_filename": "model.fake", "max_batch_size": 2,
  "input": [ { "name": "INPUT0", "data_type": "TYPE_INT32", "dims": [ 4 ] } ],
  "output": [ { "name": "OUTPUT0", "data_type": "TYPE_INT32", "dims": [ 4 ] } ] })";

#define ASSERT_OK(expr)                   \
  do {                                    \
    const absl::Status status_ = (expr);  \
    ASSERT_TRUE(status_.ok()) << status_; \
  } while (false)

ModelLoadSpec Spec(std::string name, std::string config_json = "",
                   std::map<std::string, std::string> files = {}) {
  ModelLoadSpec spec;
  spec.name = std::move(name);
  spec.config_json = std::move(config_json);
  spec.files = std::move(files);
  return spec;
}

// Runs one request on `version`, built as Server::InferAsync builds it (the
// request pins the version until it is answered).
absl::StatusOr<core::InferResponse> Infer(const std::shared_ptr<ModelVersion>& version,
                                          int32_t value, CapturedResult* result) {
  auto request = std::make_unique<core::InferRequest>();
  request->model_name = version->name();
  request->inputs.push_back(testing::MakeTensor<int32_t>("INPUT0", core::DataType::kInt32, {4},
                                                         {value, value + 1, value + 2, value + 3}));
  version->Submit(std::make_unique<INFERD_Request>(
      std::move(request), result->Callback(), version->io(), std::vector<std::string>{"OUTPUT0"}, 1,
      std::shared_ptr<const void>(version, nullptr)));
  return result->Wait();
}

absl::StatusOr<core::InferResponse> Infer(const std::shared_ptr<ModelVersion>& version,
                                          int32_t value = 1) {
  CapturedResult result;
  return Infer(version, value, &result);
}

// As above on what Resolve returned; its error when it failed.
absl::StatusOr<core::InferResponse> Infer(
    const absl::StatusOr<std::shared_ptr<ModelVersion>>& version) {
  if (!version.ok()) return version.status();
  return Infer(*version);
}

// A scheduler that keeps every request queued until it is stopped (then it
// runs them) or told to fail them: the one way to have a request still
// waiting when a drain runs out.
class QueueingScheduler final : public scheduling::Scheduler {
 public:
  QueueingScheduler(std::vector<std::unique_ptr<backends::BackendInstance>> instances,
                    std::shared_ptr<std::atomic<int>> queued)
      : instances_(std::move(instances)), queued_count_(std::move(queued)) {}
  void Submit(std::unique_ptr<INFERD_Request> request) override {
    base::MutexLock lock(&mu_);
    if (stopped_) {
      request->Complete(absl::UnavailableError("stopped"));
      return;
    }
    queued_.push_back(std::move(request));
    queued_count_->fetch_add(1);
  }
  void Stop() override {
    std::vector<std::unique_ptr<INFERD_Request>> batch;
    {
      base::MutexLock lock(&mu_);
      if (stopped_) return;
      stopped_ = true;
      for (auto& request : queued_) batch.push_back(std::move(request));
      queued_.clear();
    }
    if (!batch.empty()) instances_.front()->Execute(std::move(batch));
  }
  void FailQueued(const absl::Status& status) override {
    std::deque<std::unique_ptr<INFERD_Request>> failing;
    {
      base::MutexLock lock(&mu_);
      failing.swap(queued_);
    }
    for (auto& request : failing) request->Complete(status);
  }

 private:
  std::vector<std::unique_ptr<backends::BackendInstance>> instances_;
  const std::shared_ptr<std::atomic<int>> queued_count_;
  base::Mutex mu_;
  std::deque<std::unique_ptr<INFERD_Request>> queued_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

class TransitionsTest : public ::testing::Test {
 protected:
  void SetUp() override { WriteModel("m", FakeConfig(kIO), {1}); }

  void WriteModel(const std::string& name, const std::string& config,
                  std::vector<int64_t> versions) {
    testing::WriteFakeModel(repo_.path(), {name, config, kModelFile, std::move(versions)});
  }
  void WriteVersion(int64_t version, const std::string& file = kModelFile,
                    const std::string& model = "m") {
    testing::WriteFile(repo_.Join(absl::StrCat(model, "/", version, "/model.fake")), file);
  }

  ModelManagerOptions Options(ModelControlMode mode,
                              scheduling::SchedulerFactory factory = InlineSchedulerFactory()) {
    ModelManagerOptions options;
    options.repositories = {repo_.path()};
    options.loader = LoaderOptions{testing::FakeBackendDirectory(), true, 1,
                                   test::LoggingSchedulerFactory(std::move(factory), log_)};
    options.mode = mode;
    options.poll_interval = std::chrono::milliseconds(0);  // no poll thread: tests call PollOnce
    options.load_threads = 1;
    if (mode == ModelControlMode::kExplicit) options.startup_models = {"m"};
    return options;
  }
  std::unique_ptr<ModelManager> Create(ModelManagerOptions options) {
    auto manager = ModelManager::Create(std::move(options));
    EXPECT_TRUE(manager.ok()) << manager.status();
    return manager.ok() ? std::move(*manager) : nullptr;
  }
  std::unique_ptr<ModelManager> Create(ModelControlMode mode) { return Create(Options(mode)); }

  // "1 READY, 2 UNLOADING": the versions of `model` in the current snapshot.
  static std::string States(const ModelManager& manager, const std::string& model = "m") {
    const auto snapshot = manager.Snapshot();
    const auto it = snapshot->models.find(model);
    if (it == snapshot->models.end()) return "(absent)";
    std::vector<std::string> parts;
    for (const auto& v : it->second.versions) {
      parts.push_back(absl::StrCat(v.version, " ", std::string(VersionStateName(v.state))));
    }
    return absl::StrJoin(parts, ", ");
  }
  static std::string ReasonOf(const ModelManager& manager, const std::string& model,
                              int64_t version) {
    const auto snapshot = manager.Snapshot();
    const auto it = snapshot->models.find(model);
    if (it == snapshot->models.end()) return "(no model)";
    const VersionStatus* status = it->second.Find(version);
    return status == nullptr ? "(no version)" : status->reason;
  }
  static std::string ModelReason(const ModelManager& manager, const std::string& model = "m") {
    const auto snapshot = manager.Snapshot();
    const auto it = snapshot->models.find(model);
    return it == snapshot->models.end() ? "(no model)" : it->second.reason;
  }
  // Waits (bounded) until the snapshot shows `expected` for `model`.
  static bool AwaitStates(const ModelManager& manager, const std::string& expected,
                          const std::string& model = "m") {
    return WaitUntil([&] { return States(manager, model) == expected; });
  }
  static int64_t ResolvedVersion(const ModelManager& manager, std::string_view version = "") {
    auto resolved = manager.Resolve("m", version);
    return resolved.ok() ? (*resolved)->version() : -1;
  }

  testing::TempDir repo_;
  std::shared_ptr<EventLog> log_ = std::make_shared<EventLog>();
};

// --- Poll mode -------------------------------------------------------------

TEST_F(TransitionsTest, PollAppliesANewVersionOnlyWhenTwoPollsSeeTheSameFolder) {
  auto manager = Create(ModelControlMode::kPoll);
  ASSERT_NE(manager, nullptr);
  EXPECT_EQ(States(*manager), "1 READY");
  WriteVersion(2);
  manager->PollOnce();  // first sight of version 2: it may still be being copied
  EXPECT_EQ(States(*manager), "1 READY");
  EXPECT_EQ(ResolvedVersion(*manager), 1);
  manager->PollOnce();  // unchanged since: applied, and ready when PollOnce returns
  EXPECT_EQ(ResolvedVersion(*manager), 2);
  ASSERT_TRUE(AwaitStates(*manager, "2 READY")) << States(*manager);
  EXPECT_THAT(log_->events(), ElementsAre("create #1", "create #2", "destroy #1"));
  manager->PollOnce();  // nothing changed: nothing happens
  EXPECT_EQ(States(*manager), "2 READY");
  EXPECT_EQ(log_->events().size(), 3u);
}

TEST_F(TransitionsTest, PollNeverLoadsAFolderThatChangedSinceThePreviousPoll) {
  auto manager = Create(ModelControlMode::kPoll);
  ASSERT_NE(manager, nullptr);
  WriteVersion(2, "input INPUT0 INT32 -1 4\noutp");  // half copied: would fail to load
  manager->PollOnce();
  EXPECT_EQ(States(*manager), "1 READY");
  WriteVersion(2);      // the copy completes (another size)
  manager->PollOnce();  // changed since the previous poll: still waits
  EXPECT_EQ(States(*manager), "1 READY");
  manager->PollOnce();
  ASSERT_TRUE(AwaitStates(*manager, "2 READY")) << States(*manager);
  // Version 2 was loaded once, from the complete file; it never failed.
  EXPECT_THAT(log_->events(), ElementsAre("create #1", "create #2", "destroy #1"));
}

TEST_F(TransitionsTest, PollAddsAndRemovesModelsAfterTwoPolls) {
  auto manager = Create(ModelControlMode::kPoll);
  ASSERT_NE(manager, nullptr);
  WriteModel("n", FakeConfig(kIO), {1});
  manager->PollOnce();
  EXPECT_EQ(States(*manager, "n"), "(absent)");
  manager->PollOnce();
  EXPECT_EQ(States(*manager, "n"), "1 READY");

  std::filesystem::remove_all(repo_.Join("m"));
  manager->PollOnce();  // absent once: may be a rename in progress
  EXPECT_EQ(States(*manager), "1 READY");
  manager->PollOnce();  // absent twice: unloaded (PollOnce waits for the release)
  EXPECT_EQ(States(*manager), "(absent)");
  EXPECT_TRUE(absl::IsNotFound(manager->Resolve("m", "").status()));
  EXPECT_EQ(States(*manager, "n"), "1 READY");
}

TEST_F(TransitionsTest, PollRetiresAVersionRemovedFromDisk) {
  WriteModel("m", FakeConfig(std::string(kIO) + "version_policy { all { } }"), {1, 2});
  auto manager = Create(ModelControlMode::kPoll);
  ASSERT_NE(manager, nullptr);
  EXPECT_EQ(States(*manager), "1 READY, 2 READY");
  std::filesystem::remove_all(repo_.Join("m/2"));
  manager->PollOnce();
  manager->PollOnce();
  ASSERT_TRUE(AwaitStates(*manager, "1 READY")) << States(*manager);
  EXPECT_TRUE(absl::IsNotFound(manager->Resolve("m", "2").status()));
  EXPECT_EQ(ResolvedVersion(*manager), 1);
  // Version 1 did not change: it was kept, not reloaded.
  EXPECT_THAT(log_->events(), ElementsAre("create #1", "create #2", "destroy #2"));
}

TEST_F(TransitionsTest, FailedNewVersionLeavesTheOldOneServingAndTheNextGoodOneIsPickedUp) {
  auto manager = Create(ModelControlMode::kPoll);
  ASSERT_NE(manager, nullptr);
  WriteVersion(2, "fail_load\n");
  manager->PollOnce();
  manager->PollOnce();
  EXPECT_EQ(States(*manager), "1 READY, 2 UNAVAILABLE");
  EXPECT_THAT(ReasonOf(*manager, "m", 2), HasSubstr("fail_load"));
  EXPECT_EQ(ResolvedVersion(*manager), 1);
  ASSERT_TRUE(Infer(manager->Resolve("m", "")).ok());
  auto pinned_to_2 = manager->Resolve("m", "2");
  EXPECT_TRUE(absl::IsUnavailable(pinned_to_2.status()));
  EXPECT_THAT(std::string(pinned_to_2.status().message()), HasSubstr("fail_load"));

  WriteVersion(3);  // polling keeps working after the failure
  manager->PollOnce();
  manager->PollOnce();
  EXPECT_EQ(ResolvedVersion(*manager), 3);
  ASSERT_TRUE(AwaitStates(*manager, "3 READY")) << States(*manager);
}

TEST_F(TransitionsTest, BrokenConfigKeepsTheServingVersionAndNamesFileAndLine) {
  auto manager = Create(ModelControlMode::kPoll);
  ASSERT_NE(manager, nullptr);
  const std::string good_config = FakeConfig(kIO);
  testing::WriteFile(repo_.Join("m/config.pbtxt"),
                     "backend: \"fake\"\ndefault_model_filename: \"model.fake\"\nnot_a_field: 1\n");
  manager->PollOnce();
  manager->PollOnce();
  EXPECT_EQ(States(*manager), "1 READY");
  EXPECT_THAT(ModelReason(*manager), HasSubstr("config.pbtxt:3:"));
  EXPECT_THAT(ModelReason(*manager), HasSubstr("not_a_field"));
  EXPECT_THAT(ReasonOf(*manager, "m", 1), HasSubstr("config.pbtxt:3:"));
  ASSERT_EQ(ResolvedVersion(*manager), 1);
  EXPECT_TRUE(Infer(manager->Resolve("m", "")).ok());
  EXPECT_THAT(log_->events(), ElementsAre("create #1"));

  testing::WriteFile(repo_.Join("m/config.pbtxt"), good_config);  // fixed
  manager->PollOnce();
  manager->PollOnce();
  EXPECT_EQ(ModelReason(*manager), "");
  EXPECT_EQ(ReasonOf(*manager, "m", 1), "");
  ASSERT_TRUE(AwaitStates(*manager, "1 READY")) << States(*manager);
  ASSERT_TRUE(WaitUntil([&] { return log_->events().size() == 3; }));
  // A config change reloads the version (availability-preserving).
  EXPECT_THAT(log_->events(), ElementsAre("create #1", "create #2", "destroy #1"));
}

// --- Transition policies ---------------------------------------------------

TEST_F(TransitionsTest, AvailabilityPreservingSwapsAtOnceAndUnloadsTheOldVersionWhenReleased) {
  auto manager = Create(ModelControlMode::kExplicit);
  ASSERT_NE(manager, nullptr);
  auto pin = manager->Resolve("m", "");  // an in-flight request on version 1
  ASSERT_TRUE(pin.ok()) << pin.status();
  WriteVersion(2);
  ASSERT_OK(manager->Load(Spec("m")));
  EXPECT_EQ(ResolvedVersion(*manager), 2);  // new requests go to version 2 at once
  EXPECT_EQ(States(*manager), "1 UNLOADING, 2 READY");
  auto to_1 = manager->Resolve("m", "1");
  EXPECT_TRUE(absl::IsUnavailable(to_1.status())) << to_1.status();
  EXPECT_THAT(std::string(to_1.status().message()), HasSubstr("unloading"));
  // The request that holds version 1 still completes on it.
  auto response = Infer(*pin);
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->model_version, 1);
  EXPECT_THAT(log_->events(), ElementsAre("create #1", "create #2"));
  pin->reset();
  ASSERT_TRUE(AwaitStates(*manager, "2 READY")) << States(*manager);
  EXPECT_THAT(log_->events(), ElementsAre("create #1", "create #2", "destroy #1"));
}

TEST_F(TransitionsTest, ResourcePreservingUnloadsTheOldVersionBeforeLoadingTheNew) {
  auto options = Options(ModelControlMode::kExplicit);
  options.transition_policy = TransitionPolicy::kResourcePreserving;
  auto manager = Create(std::move(options));
  ASSERT_NE(manager, nullptr);
  auto pin = manager->Resolve("m", "");
  ASSERT_TRUE(pin.ok()) << pin.status();
  WriteVersion(2);

  base::Notification done;
  absl::Status load_status;
  std::atomic<bool> pin_released{false};
  bool released_before_done = false;
  manager->LoadAsync(Spec("m"), [&](absl::Status status) {
    released_before_done = pin_released.load();
    load_status = std::move(status);
    done.Notify();
  });
  // Version 1 leaves service first; version 2 waits (LOADING, saying why)
  // and is not created while the pin holds version 1.
  ASSERT_TRUE(AwaitStates(*manager, "1 UNLOADING, 2 LOADING")) << States(*manager);
  EXPECT_THAT(ReasonOf(*manager, "m", 2), HasSubstr("resource-preserving"));
  EXPECT_FALSE(done.HasBeenNotified());
  // The documented window: requests get Unavailable with that reason.
  auto resolved = manager->Resolve("m", "");
  EXPECT_TRUE(absl::IsUnavailable(resolved.status())) << resolved.status();
  EXPECT_THAT(std::string(resolved.status().message()), HasSubstr("resource-preserving"));
  EXPECT_THAT(log_->events(), ElementsAre("create #1"));
  EXPECT_TRUE(Infer(*pin).ok());  // the pinned request still completes

  pin_released = true;
  pin->reset();
  done.WaitForNotification();
  ASSERT_TRUE(load_status.ok()) << load_status;
  EXPECT_TRUE(released_before_done);
  EXPECT_EQ(States(*manager), "2 READY");
  EXPECT_EQ(ResolvedVersion(*manager), 2);
  EXPECT_THAT(log_->events(), ElementsAre("create #1", "destroy #1", "create #2"));
}

TEST_F(TransitionsTest, TheConfigParameterChoosesThePolicyPerModel) {
  constexpr char kResource[] = R"(
  parameters { key: "version_transition_policy" value: { string_value: "resource_preserving" } })";
  constexpr char kAvailability[] = R"(
  parameters { key: "version_transition_policy" value: { string_value: "availability_preserving" } })";
  WriteModel("m", FakeConfig(std::string(kIO) + kResource), {1});
  {
    auto manager = Create(ModelControlMode::kExplicit);  // server default: availability
    ASSERT_NE(manager, nullptr);
    WriteVersion(2);
    ASSERT_OK(manager->Load(Spec("m")));
    EXPECT_THAT(log_->events(), ElementsAre("create #1", "destroy #1", "create #2"));
  }
  // And the other way round: the server says resource, the model availability.
  testing::TempDir other;
  testing::WriteFakeModel(other.path(),
                          {"m", FakeConfig(std::string(kIO) + kAvailability), kModelFile, {1}});
  auto log = std::make_shared<EventLog>();
  auto options = Options(ModelControlMode::kExplicit);
  options.repositories = {other.path()};
  options.loader.scheduler_factory = test::LoggingSchedulerFactory(InlineSchedulerFactory(), log);
  options.transition_policy = TransitionPolicy::kResourcePreserving;
  auto manager = Create(std::move(options));
  ASSERT_NE(manager, nullptr);
  testing::WriteFile(other.Join("m/2/model.fake"), kModelFile);
  ASSERT_OK(manager->Load(Spec("m")));
  ASSERT_TRUE(AwaitStates(*manager, "2 READY")) << States(*manager);
  EXPECT_THAT(log->events(), ElementsAre("create #1", "create #2", "destroy #1"));
}

// --- Explicit control ------------------------------------------------------

TEST_F(TransitionsTest, ExplicitLoadAndUnload) {
  auto options = Options(ModelControlMode::kExplicit);
  options.startup_models.clear();
  auto manager = Create(std::move(options));
  ASSERT_NE(manager, nullptr);
  EXPECT_EQ(States(*manager), "(absent)");
  EXPECT_TRUE(absl::IsNotFound(manager->Resolve("m", "").status()));
  ASSERT_OK(manager->Load(Spec("m")));
  EXPECT_EQ(States(*manager), "1 READY");
  ASSERT_OK(manager->Load(Spec("m")));  // nothing changed: nothing reloads
  EXPECT_THAT(log_->events(), ElementsAre("create #1"));
  ASSERT_OK(manager->Unload("m"));
  // Unload returns once the version is released, and the index says why.
  EXPECT_EQ(States(*manager), "1 UNAVAILABLE");
  EXPECT_EQ(ReasonOf(*manager, "m", 1), "unloaded");
  EXPECT_THAT(log_->events(), ElementsAre("create #1", "destroy #1"));
  auto resolved = manager->Resolve("m", "");
  EXPECT_TRUE(absl::IsUnavailable(resolved.status())) << resolved.status();
  EXPECT_THAT(std::string(resolved.status().message()), HasSubstr("unloaded"));
  EXPECT_FALSE(manager->Snapshot()->models.at("m").wanted);
  ASSERT_OK(manager->Load(Spec("m")));  // and back
  EXPECT_EQ(States(*manager), "1 READY");
  EXPECT_EQ(ReasonOf(*manager, "m", 1), "");
}

TEST_F(TransitionsTest, UnloadReturnsOnlyAfterThePinnedVersionIsReleased) {
  auto manager = Create(ModelControlMode::kExplicit);
  ASSERT_NE(manager, nullptr);
  auto pin = manager->Resolve("m", "");
  ASSERT_TRUE(pin.ok()) << pin.status();
  base::Notification done;
  absl::Status unload_status;
  manager->UnloadAsync("m", [&](absl::Status status) {
    unload_status = std::move(status);
    done.Notify();
  });
  ASSERT_TRUE(AwaitStates(*manager, "1 UNLOADING")) << States(*manager);
  EXPECT_FALSE(done.HasBeenNotified());
  EXPECT_TRUE(Infer(*pin).ok());
  pin->reset();
  done.WaitForNotification();
  ASSERT_TRUE(unload_status.ok()) << unload_status;
  EXPECT_EQ(States(*manager), "1 UNAVAILABLE");
  EXPECT_EQ(ReasonOf(*manager, "m", 1), "unloaded");
}

TEST_F(TransitionsTest, LoadAndUnloadNeedExplicitMode) {
  for (ModelControlMode mode : {ModelControlMode::kNone, ModelControlMode::kPoll}) {
    auto manager = Create(mode);
    ASSERT_NE(manager, nullptr);
    const absl::Status load = manager->Load(Spec("m"));
    EXPECT_TRUE(absl::IsFailedPrecondition(load)) << load;
    EXPECT_THAT(std::string(load.message()), HasSubstr("--model-control-mode"));
    EXPECT_TRUE(absl::IsFailedPrecondition(manager->Unload("m")));
    EXPECT_EQ(States(*manager), "1 READY");
  }
}

TEST_F(TransitionsTest, UnknownModelsAreNotFound) {
  auto manager = Create(ModelControlMode::kExplicit);
  ASSERT_NE(manager, nullptr);
  const absl::Status unload = manager->Unload("nope");
  EXPECT_TRUE(absl::IsNotFound(unload)) << unload;
  const absl::Status load = manager->Load(Spec("nope"));
  EXPECT_TRUE(absl::IsNotFound(load)) << load;
  EXPECT_EQ(States(*manager, "nope"), "(absent)");
}

TEST_F(TransitionsTest, LoadWithAConfigOverride) {
  auto manager = Create(ModelControlMode::kExplicit);
  ASSERT_NE(manager, nullptr);
  auto before = manager->Resolve("m", "");
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ((*before)->config().max_batch_size(), 0);
  before->reset();
  ASSERT_OK(manager->Load(Spec("m", kOverrideJson)));
  auto version = manager->Resolve("m", "");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ((*version)->config().max_batch_size(), 2);
  EXPECT_EQ(manager->Snapshot()->models.at("m").config->max_batch_size(), 2);
  version->reset();
  // Loading without the override goes back to config.pbtxt.
  ASSERT_OK(manager->Load(Spec("m")));
  auto after = manager->Resolve("m", "");
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ((*after)->config().max_batch_size(), 0);
  after->reset();
  // 3 created, 2 destroyed (the unloader deletes the replaced ones).
  EXPECT_TRUE(WaitUntil([&] { return log_->events().size() == 5; }));
  EXPECT_EQ(States(*manager), "1 READY");

  const absl::Status bad_json = manager->Load(Spec("m", "{ not json"));
  EXPECT_TRUE(absl::IsInvalidArgument(bad_json)) << bad_json;
  EXPECT_EQ(States(*manager), "1 READY");
}

TEST_F(TransitionsTest, LoadFromFileParameters) {
  auto manager = Create(ModelControlMode::kExplicit);
  ASSERT_NE(manager, nullptr);
  ASSERT_OK(manager->Load(Spec("sent", kOverrideJson, {{"1/model.fake", kModelFile}})));
  EXPECT_EQ(States(*manager, "sent"), "1 READY");
  auto version = manager->Resolve("sent", "");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ((*version)->name(), "sent");
  auto response = Infer(*version, 7);
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_THAT(testing::TensorValues<int32_t>(response->outputs.at(0)), ElementsAre(7, 8, 9, 10));
  version->reset();

  // A broken upload fails and leaves the working one serving.
  const absl::Status broken =
      manager->Load(Spec("sent", kOverrideJson, {{"1/model.fake", "fail_load\n"}}));
  EXPECT_FALSE(broken.ok());
  EXPECT_THAT(std::string(broken.message()), HasSubstr("fail_load"));
  EXPECT_EQ(States(*manager, "sent"), "1 READY");
  EXPECT_TRUE(Infer(manager->Resolve("sent", "")).ok());

  const absl::Status no_config = manager->Load(Spec("other", "", {{"1/model.fake", kModelFile}}));
  EXPECT_TRUE(absl::IsInvalidArgument(no_config)) << no_config;
  EXPECT_THAT(std::string(no_config.message()), HasSubstr("requires the 'config' parameter"));
}

// --- Shutdown and readiness ------------------------------------------------

TEST_F(TransitionsTest, UnloadAllAnswersTheStillQueuedRequestsWhenTheDrainRunsOut) {
  auto queued = std::make_shared<std::atomic<int>>(0);
  auto manager = Create(Options(
      ModelControlMode::kNone,
      [queued](const inference::ModelConfig&,
               std::vector<std::unique_ptr<backends::BackendInstance>> instances,
               const std::string&) -> absl::StatusOr<std::unique_ptr<scheduling::Scheduler>> {
        return std::make_unique<QueueingScheduler>(std::move(instances), queued);
      }));
  ASSERT_NE(manager, nullptr);
  CapturedResult result;
  {
    auto version = manager->Resolve("m", "");
    ASSERT_TRUE(version.ok()) << version.status();
    auto request = std::make_unique<core::InferRequest>();
    request->inputs.push_back(
        testing::MakeTensor<int32_t>("INPUT0", core::DataType::kInt32, {4}, {1, 2, 3, 4}));
    (*version)->Submit(std::make_unique<INFERD_Request>(
        std::move(request), result.Callback(), (*version)->io(),
        std::vector<std::string>{"OUTPUT0"}, 1, std::shared_ptr<const void>(*version, nullptr)));
  }  // only the queued request pins the version now
  ASSERT_EQ(queued->load(), 1);
  EXPECT_FALSE(result.done());
  manager->UnloadAll(std::chrono::milliseconds(10), absl::UnavailableError("drain test: expired"));
  // UnloadAll returned: the request was answered, and the version unloaded.
  ASSERT_TRUE(result.done());
  EXPECT_EQ(result.calls(), 1);
  const auto answer = result.Wait();
  EXPECT_TRUE(absl::IsUnavailable(answer.status())) << answer.status();
  EXPECT_EQ(answer.status().message(), "drain test: expired");
  EXPECT_EQ(States(*manager), "");
  EXPECT_THAT(log_->events(), ElementsAre("create #1", "destroy #1"));
  EXPECT_TRUE(absl::IsUnavailable(manager->Resolve("m", "").status()));
}

TEST_F(TransitionsTest, AllReadyWaitsForStartupAndEveryWantedModel) {
  auto options = Options(ModelControlMode::kNone);
  options.load_at_create = false;
  auto manager = Create(std::move(options));
  ASSERT_NE(manager, nullptr);
  EXPECT_FALSE(manager->StartupDone());
  EXPECT_FALSE(manager->AllReady());
  manager->LoadStartupModels();
  EXPECT_TRUE(manager->StartupDone());
  EXPECT_TRUE(manager->AllReady());
}

TEST_F(TransitionsTest, AllReadyIsFalseWithAFailedWantedModelUntilItIsUnloaded) {
  WriteModel("broken", FakeConfig(kIO), {1});
  WriteVersion(1, "fail_load\n", "broken");
  auto options = Options(ModelControlMode::kExplicit);
  options.startup_models = {"m", "broken"};
  options.load_at_create = false;
  options.load_threads = 2;
  auto manager = Create(std::move(options));
  ASSERT_NE(manager, nullptr);
  EXPECT_FALSE(manager->AllReady());
  manager->LoadStartupModels();
  EXPECT_EQ(States(*manager), "1 READY");
  EXPECT_EQ(States(*manager, "broken"), "1 UNAVAILABLE");
  EXPECT_FALSE(manager->AllReady());
  ASSERT_OK(manager->Unload("broken"));
  EXPECT_TRUE(manager->AllReady());
  // Loading it again (still broken) makes readiness false again.
  EXPECT_FALSE(manager->Load(Spec("broken")).ok());
  EXPECT_FALSE(manager->AllReady());
}

// --- Concurrency -----------------------------------------------------------

// Requests keep arriving on several threads while the model swaps versions
// 20 times through the load API: none of them fails, and each is answered
// by the version it resolved to.
TEST_F(TransitionsTest, VersionSwapsUnderConcurrentRequestsFailNone) {
  constexpr int kSwaps = 20;
  constexpr int kClients = 4;
  auto options = Options(ModelControlMode::kExplicit);
  options.load_threads = 2;
  auto manager = Create(std::move(options));
  ASSERT_NE(manager, nullptr);

  std::atomic<bool> stop{false};
  std::atomic<int> ok{0};
  std::atomic<int> failed{0};
  base::Mutex errors_mu;
  std::vector<std::string> errors;
  auto record_error = [&](const std::string& error) {
    failed.fetch_add(1);
    base::MutexLock lock(&errors_mu);
    if (errors.size() < 10) errors.push_back(error);
  };
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int32_t i = 0; !stop.load() || i < 10; ++i) {
        auto version = manager->Resolve("m", "");
        if (!version.ok()) {
          record_error(version.status().ToString());
          continue;
        }
        const int64_t resolved = (*version)->version();
        const int32_t value = c * 1'000'000 + i;
        CapturedResult result;
        // Like InferAsync, the resolving pin is dropped right after Submit:
        // only the request keeps the version alive.
        auto request = std::make_unique<core::InferRequest>();
        request->model_name = "m";
        request->inputs.push_back(testing::MakeTensor<int32_t>("INPUT0", core::DataType::kInt32,
                                                               {4}, {value, value, value, value}));
        auto io = (*version)->io();
        std::shared_ptr<const void> pin(*version, nullptr);
        auto& target = **version;
        target.Submit(std::make_unique<INFERD_Request>(std::move(request), result.Callback(), io,
                                                       std::vector<std::string>{"OUTPUT0"}, 1,
                                                       std::move(pin)));
        version->reset();
        const auto response = result.Wait();
        if (!response.ok()) {
          record_error(response.status().ToString());
        } else if (response->model_version != resolved ||
                   testing::TensorValues<int32_t>(response->outputs.at(0)) !=
                       std::vector<int32_t>{value, value, value, value}) {
          record_error(absl::StrCat("wrong answer from version ", response->model_version,
                                    " (resolved ", resolved, ")"));
        } else {
          ok.fetch_add(1);
        }
      }
    });
  }
  for (int v = 2; v <= kSwaps + 1; ++v) {
    WriteVersion(v);
    const absl::Status loaded = manager->Load(Spec("m"));
    EXPECT_TRUE(loaded.ok()) << loaded;
    EXPECT_EQ(ResolvedVersion(*manager), v);
  }
  stop = true;
  for (auto& client : clients) client.join();
  EXPECT_EQ(failed.load(), 0) << absl::StrJoin(errors, "\n");
  EXPECT_GE(ok.load(), kClients * 10);
  ASSERT_TRUE(AwaitStates(*manager, absl::StrCat(kSwaps + 1, " READY"))) << States(*manager);
  EXPECT_EQ(log_->events().size(), 2u * kSwaps + 1);  // every old version was unloaded
}

}  // namespace
}  // namespace inferd::lifecycle
