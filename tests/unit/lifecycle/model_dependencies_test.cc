// SPDX-License-Identifier: Apache-2.0
// The dependency graph between models: ensemble readiness following the
// composing models (both ways, nested, fixed or newest version), cycle
// detection, and the dependents / dependencies of a model.
#include "lifecycle/model_dependencies.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace inferd::lifecycle {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using Models = std::map<std::string, ModelStatus, std::less<>>;

// Readiness never submits; a request reaching it is a bug in the test.
class NoScheduler final : public scheduling::Scheduler {
 public:
  void Submit(std::unique_ptr<INFERD_Request> request) override {
    request->Complete(absl::InternalError("not for running"));
  }
  void Stop() override {}
  void FailQueued(const absl::Status&) override {}
};

std::shared_ptr<const inference::ModelConfig> Config(const std::string& text) {
  auto config = std::make_shared<inference::ModelConfig>();
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, config.get())) << text;
  return config;
}

std::shared_ptr<const inference::ModelConfig> Leaf(const std::string& name) {
  return Config("name: '" + name + "' platform: 'onnxruntime_onnx'");
}

// An ensemble whose steps run `steps` (a model name, or "name:version").
std::shared_ptr<const inference::ModelConfig> Ensemble(const std::string& name,
                                                       const std::vector<std::string>& steps) {
  std::string text = "name: '" + name + "' platform: 'ensemble' ensemble_scheduling {";
  for (const auto& step : steps) {
    const auto colon = step.find(':');
    text += " step { model_name: '" + step.substr(0, colon) + "'";
    if (colon != std::string::npos) text += " model_version: " + step.substr(colon + 1);
    text += " }";
  }
  return Config(text + " }");
}

VersionStatus Ready(const std::shared_ptr<const inference::ModelConfig>& config, int64_t version) {
  VersionStatus status;
  status.version = version;
  status.state = VersionState::kReady;
  status.loaded =
      std::make_shared<ModelVersion>(config, version, nullptr, std::make_unique<NoScheduler>());
  return status;
}

VersionStatus NotReady(int64_t version, VersionState state, std::string reason) {
  VersionStatus status;
  status.version = version;
  status.state = state;
  status.reason = std::move(reason);
  return status;
}

void Add(Models& models, std::shared_ptr<const inference::ModelConfig> config,
         std::vector<VersionStatus> versions) {
  ModelStatus& status = models[config->name()];
  status.name = config->name();
  status.config = std::move(config);
  status.versions = std::move(versions);
}

// A model with version 1 ready.
void AddReady(Models& models, std::shared_ptr<const inference::ModelConfig> config) {
  auto ready = Ready(config, 1);
  Add(models, std::move(config), {std::move(ready)});
}

bool IsReady(const Models& models, const std::string& name, int64_t version = 1) {
  const VersionStatus* status = models.at(name).Find(version);
  return status != nullptr && status->state == VersionState::kReady && status->loaded != nullptr;
}

std::string Reason(const Models& models, const std::string& name, int64_t version = 1) {
  const VersionStatus* status = models.at(name).Find(version);
  return status == nullptr ? "(no such version)" : status->reason;
}

TEST(EnsembleReadinessTest, ReadyWhileEveryStepCanRun) {
  Models models;
  AddReady(models, Leaf("m"));
  AddReady(models, Ensemble("ens", {"m"}));
  ApplyEnsembleReadiness(models);
  EXPECT_TRUE(IsReady(models, "ens"));
  EXPECT_TRUE(IsReady(models, "m"));
}

TEST(EnsembleReadinessTest, ComposingModelMissingNotReadyAndBack) {
  const auto ens = Ensemble("ens", {"m"});
  Models missing;
  AddReady(missing, ens);
  ApplyEnsembleReadiness(missing);
  EXPECT_FALSE(IsReady(missing, "ens"));
  EXPECT_EQ(missing.at("ens").versions[0].state, VersionState::kUnavailable);
  EXPECT_EQ(Reason(missing, "ens"), "composing model 'm' (step 1 ('m')) is not loaded");

  // Loaded but its only version failed.
  Models failed;
  AddReady(failed, ens);
  Add(failed, Leaf("m"), {NotReady(1, VersionState::kUnavailable, "bad weights")});
  ApplyEnsembleReadiness(failed);
  EXPECT_EQ(Reason(failed, "ens"), "composing model 'm' (step 1 ('m')) is not ready: bad weights");

  // Still loading, or failed as a whole (the model's own reason).
  Models loading;
  AddReady(loading, ens);
  Add(loading, Leaf("m"), {NotReady(1, VersionState::kLoading, "")});
  ApplyEnsembleReadiness(loading);
  EXPECT_EQ(Reason(loading, "ens"), "composing model 'm' (step 1 ('m')) is not ready");
  Models broken;
  AddReady(broken, ens);
  Add(broken, Leaf("m"), {});
  broken.at("m").reason = "config.pbtxt: parse error";
  ApplyEnsembleReadiness(broken);
  EXPECT_EQ(Reason(broken, "ens"),
            "composing model 'm' (step 1 ('m')) is not ready: config.pbtxt: parse error");

  // Each snapshot is judged afresh: with m back, the same ensemble version
  // is ready again.
  Models back;
  back["ens"] = missing.at("ens");
  back.at("ens").versions = {Ready(ens, 1)};
  AddReady(back, Leaf("m"));
  ApplyEnsembleReadiness(back);
  EXPECT_TRUE(IsReady(back, "ens"));
}

TEST(EnsembleReadinessTest, NamesTheFirstStepThatCannotRun) {
  Models models;
  AddReady(models, Leaf("a"));
  AddReady(models, Ensemble("ens", {"a", "b", "c"}));
  ApplyEnsembleReadiness(models);
  EXPECT_EQ(Reason(models, "ens"), "composing model 'b' (step 2 ('b')) is not loaded");
}

TEST(EnsembleReadinessTest, NestedEnsemblesFollowTheirInnerOnes) {
  // Alphabetically the outer ones come first, so one pass in map order is
  // not enough: top -> mid -> ens -> m.
  Models models;
  AddReady(models, Ensemble("a_top", {"b_mid"}));
  AddReady(models, Ensemble("b_mid", {"ens"}));
  AddReady(models, Ensemble("ens", {"m"}));
  ApplyEnsembleReadiness(models);
  EXPECT_FALSE(IsReady(models, "ens"));
  EXPECT_FALSE(IsReady(models, "b_mid"));
  EXPECT_FALSE(IsReady(models, "a_top"));
  // The reason carries the inner one's.
  EXPECT_EQ(Reason(models, "b_mid"),
            "composing model 'ens' (step 1 ('ens')) is not ready: composing model 'm' (step 1 "
            "('m')) is not loaded");

  // With m loaded, all three are ready.
  AddReady(models, Leaf("m"));
  for (const char* name : {"a_top", "b_mid", "ens"}) {
    models.at(name).versions = {Ready(models.at(name).config, 1)};
  }
  ApplyEnsembleReadiness(models);
  EXPECT_TRUE(IsReady(models, "a_top"));
  EXPECT_TRUE(IsReady(models, "b_mid"));
  EXPECT_TRUE(IsReady(models, "ens"));
}

TEST(EnsembleReadinessTest, FixedVersionOrNewestReady) {
  const auto ens = Ensemble("ens", {"m", "n:2"});
  const auto m = Leaf("m");
  const auto n = Leaf("n");
  auto build = [&](std::vector<VersionStatus> m_versions, std::vector<VersionStatus> n_versions) {
    Models models;
    AddReady(models, ens);
    Add(models, m, std::move(m_versions));
    Add(models, n, std::move(n_versions));
    ApplyEnsembleReadiness(models);
    return models;
  };
  // The step on m takes whichever version is newest and ready: 1 will do
  // while 2 is still loading.
  auto models = build({Ready(m, 1), NotReady(2, VersionState::kLoading, "")}, {Ready(n, 2)});
  EXPECT_TRUE(IsReady(models, "ens"));
  // The step on n wants version 2 exactly: a ready 1 and 3 do not help.
  models = build({Ready(m, 1)},
                 {Ready(n, 1), NotReady(2, VersionState::kUnavailable, "version 2 failed to load"),
                  Ready(n, 3)});
  EXPECT_FALSE(IsReady(models, "ens"));
  EXPECT_EQ(Reason(models, "ens"),
            "composing model 'n' version 2 (step 2 ('n')) is not ready: version 2 failed to load");
  // Version 2 ready next to a failed 3 is fine.
  models = build({Ready(m, 1)},
                 {Ready(n, 2), NotReady(3, VersionState::kUnavailable, "version 3 failed")});
  EXPECT_TRUE(IsReady(models, "ens"));
  // Version 2 not there at all.
  models = build({Ready(m, 1)}, {Ready(n, 1)});
  EXPECT_FALSE(IsReady(models, "ens"));
  EXPECT_THAT(Reason(models, "ens"),
              ::testing::StartsWith("composing model 'n' version 2 (step 2 ('n')) is not ready"));
}

TEST(EnsembleReadinessTest, EachVersionIsJudgedByItsOwnConfig) {
  // Version 1 was loaded from an older config that ran "old"; version 2
  // (the current config) runs m.
  Models models;
  const auto current = Ensemble("ens", {"m"});
  Add(models, current, {Ready(Ensemble("ens", {"old"}), 1), Ready(current, 2)});
  AddReady(models, Leaf("m"));
  ApplyEnsembleReadiness(models);
  EXPECT_FALSE(IsReady(models, "ens", 1));
  EXPECT_EQ(Reason(models, "ens", 1), "composing model 'old' (step 1 ('old')) is not loaded");
  EXPECT_TRUE(IsReady(models, "ens", 2));
}

TEST(EnsembleReadinessTest, VersionsNotReadyAndLeafModelsAreLeftAlone) {
  Models models;
  Add(models, Ensemble("ens", {"m"}), {NotReady(1, VersionState::kUnloading, "unloading")});
  Add(models, Leaf("m"), {NotReady(1, VersionState::kUnavailable, "bad")});
  ApplyEnsembleReadiness(models);
  EXPECT_EQ(models.at("ens").versions[0].state, VersionState::kUnloading);
  EXPECT_EQ(Reason(models, "ens"), "unloading");
  EXPECT_EQ(Reason(models, "m"), "bad");
}

TEST(ServingConfigTest, TheVersionAStepWouldRunOn) {
  ServingSnapshot snapshot;
  const auto v1 = Config("name: 'm' max_batch_size: 1");
  const auto v2 = Config("name: 'm' max_batch_size: 2");
  Add(snapshot.models, v2, {Ready(v1, 1), Ready(v2, 2), NotReady(3, VersionState::kLoading, "")});
  ASSERT_NE(ServingConfig(snapshot, "m", 0), nullptr);
  EXPECT_EQ(ServingConfig(snapshot, "m", 0)->max_batch_size(), 2);
  ASSERT_NE(ServingConfig(snapshot, "m", 1), nullptr);
  EXPECT_EQ(ServingConfig(snapshot, "m", 1)->max_batch_size(), 1);
  EXPECT_EQ(ServingConfig(snapshot, "m", 3), nullptr);
  EXPECT_EQ(ServingConfig(snapshot, "m", 4), nullptr);
  EXPECT_EQ(ServingConfig(snapshot, "other", 0), nullptr);
}

// FindDependencyCycle reads configs through a map; a missing name is a
// model no repository has.
ConfigReader Reader(const std::vector<std::shared_ptr<const inference::ModelConfig>>& configs) {
  auto by_name = std::make_shared<std::map<std::string, inference::ModelConfig>>();
  for (const auto& config : configs) (*by_name)[config->name()] = *config;
  return [by_name](const std::string& model) -> std::optional<inference::ModelConfig> {
    const auto it = by_name->find(model);
    if (it == by_name->end()) return std::nullopt;
    return it->second;
  };
}

TEST(DependencyCycleTest, Self) {
  EXPECT_EQ(FindDependencyCycle("e", Reader({Ensemble("e", {"m", "e"}), Leaf("m")})), "e -> e");
}

TEST(DependencyCycleTest, TwoModels) {
  const auto read = Reader({Ensemble("a", {"b"}), Ensemble("b", {"a"})});
  EXPECT_EQ(FindDependencyCycle("a", read), "a -> b -> a");
  EXPECT_EQ(FindDependencyCycle("b", read), "b -> a -> b");
}

TEST(DependencyCycleTest, ThreeModels) {
  const auto read =
      Reader({Ensemble("a", {"m", "b"}), Ensemble("b", {"c"}), Ensemble("c", {"a"}), Leaf("m")});
  EXPECT_EQ(FindDependencyCycle("a", read), "a -> b -> c -> a");
  EXPECT_EQ(FindDependencyCycle("c", read), "c -> a -> b -> c");
  // Reached from a model outside it, only the cycle itself is shown.
  const auto outside = Reader(
      {Ensemble("x", {"b"}), Ensemble("a", {"b"}), Ensemble("b", {"c"}), Ensemble("c", {"a"})});
  EXPECT_EQ(FindDependencyCycle("x", outside), "b -> c -> a -> b");
}

TEST(DependencyCycleTest, NoCycle) {
  // A diamond reaches d twice; that is no cycle.
  const auto read =
      Reader({Ensemble("a", {"b", "c"}), Ensemble("b", {"d"}), Ensemble("c", {"d"}), Leaf("d")});
  EXPECT_EQ(FindDependencyCycle("a", read), std::nullopt);
  // Nested ensembles without a cycle.
  EXPECT_EQ(FindDependencyCycle("outer", Reader({Ensemble("outer", {"inner", "m"}),
                                                 Ensemble("inner", {"m"}), Leaf("m")})),
            std::nullopt);
  // Models no repository has end the search.
  EXPECT_EQ(FindDependencyCycle("a", Reader({Ensemble("a", {"nowhere"})})), std::nullopt);
  EXPECT_EQ(FindDependencyCycle("nowhere", Reader({})), std::nullopt);
}

TEST(DependencyCycleTest, NonEnsembleLeafEndsThePath) {
  // m is not an ensemble, so the steps its config happens to list are no
  // dependencies: a -> m is no cycle.
  auto m = std::make_shared<inference::ModelConfig>(*Ensemble("m", {"a"}));
  m->set_platform("onnxruntime_onnx");
  const auto read = Reader({Ensemble("a", {"m"}), m});
  EXPECT_EQ(FindDependencyCycle("a", read), std::nullopt);
  EXPECT_EQ(FindDependencyCycle("m", read), std::nullopt);
}

TEST(DependenciesTest, DependenciesOf) {
  EXPECT_THAT(DependenciesOf(*Ensemble("e", {"z", "a", "z", "", "m:2"})),
              ElementsAre("a", "m", "z"));
  EXPECT_THAT(DependenciesOf(*Leaf("m")), IsEmpty());
  auto not_ensemble = std::make_shared<inference::ModelConfig>(*Ensemble("m", {"a"}));
  not_ensemble->set_platform("onnxruntime_onnx");
  EXPECT_THAT(DependenciesOf(*not_ensemble), IsEmpty());
}

TEST(DependenciesTest, DependentsOf) {
  ServingSnapshot snapshot;
  AddReady(snapshot.models, Leaf("m"));
  AddReady(snapshot.models, Leaf("n"));
  AddReady(snapshot.models, Ensemble("ens", {"m", "n"}));
  AddReady(snapshot.models, Ensemble("also", {"m"}));
  AddReady(snapshot.models, Ensemble("outer", {"ens"}));
  AddReady(snapshot.models, Ensemble("self", {"self"}));
  snapshot.models["unreadable"].name = "unreadable";  // no config
  EXPECT_THAT(DependentsOf(snapshot, "m"), ElementsAre("also", "ens"));
  EXPECT_THAT(DependentsOf(snapshot, "n"), ElementsAre("ens"));
  EXPECT_THAT(DependentsOf(snapshot, "ens"), ElementsAre("outer"));
  EXPECT_THAT(DependentsOf(snapshot, "outer"), IsEmpty());
  EXPECT_THAT(DependentsOf(snapshot, "self"), IsEmpty());  // not its own dependent
  EXPECT_THAT(DependentsOf(snapshot, "unknown"), IsEmpty());
}

}  // namespace
}  // namespace inferd::lifecycle
