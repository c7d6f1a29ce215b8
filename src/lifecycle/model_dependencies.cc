// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/model_dependencies.h"

#include <functional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace inferd::lifecycle {
namespace {

bool IsEnsemble(const inference::ModelConfig& config) { return config.platform() == "ensemble"; }

// Why `step` of an ensemble cannot run now, or nullopt when it can.
std::optional<std::string> StepProblem(
    const std::map<std::string, ModelStatus, std::less<>>& models,
    const inference::ModelEnsembling::Step& step, int index) {
  const std::string label = absl::StrCat("step ", index + 1, " ('", step.model_name(), "')");
  const auto it = models.find(step.model_name());
  if (it == models.end()) {
    return absl::StrCat("composing model '", step.model_name(), "' (", label, ") is not loaded");
  }
  const ModelStatus& status = it->second;
  const VersionStatus* chosen =
      step.model_version() > 0 ? status.Find(step.model_version()) : status.NewestReady();
  if (chosen != nullptr && chosen->state == VersionState::kReady && chosen->loaded) {
    return std::nullopt;
  }
  std::string why = chosen != nullptr ? chosen->reason : status.reason;
  if (why.empty() && !status.versions.empty()) why = status.versions.back().reason;
  return absl::StrCat(
      "composing model '", step.model_name(), "'",
      step.model_version() > 0 ? absl::StrCat(" version ", step.model_version()) : "", " (", label,
      ") is not ready", why.empty() ? "" : absl::StrCat(": ", why));
}

}  // namespace

std::vector<std::string> DependenciesOf(const inference::ModelConfig& config) {
  if (!IsEnsemble(config)) return {};
  std::set<std::string> names;
  for (const auto& step : config.ensemble_scheduling().step()) {
    if (!step.model_name().empty()) names.insert(step.model_name());
  }
  return {names.begin(), names.end()};
}

void ApplyEnsembleReadiness(std::map<std::string, ModelStatus, std::less<>>& models) {
  // Each pass can take down ensembles that use an ensemble taken down in the
  // pass before; nesting is acyclic, so it settles in at most n passes.
  for (size_t pass = 0; pass <= models.size(); ++pass) {
    bool changed = false;
    for (auto& [name, status] : models) {
      if (status.config == nullptr || !IsEnsemble(*status.config)) continue;
      const auto& steps = status.config->ensemble_scheduling().step();
      for (auto& version : status.versions) {
        if (version.state != VersionState::kReady || !version.loaded) continue;
        // The version's own config: a swap in progress may differ.
        const auto& config = version.loaded->config();
        const auto& version_steps =
            IsEnsemble(config) ? config.ensemble_scheduling().step() : steps;
        for (int i = 0; i < version_steps.size(); ++i) {
          if (auto problem = StepProblem(models, version_steps[i], i)) {
            version.state = VersionState::kUnavailable;
            version.reason = std::move(*problem);
            version.loaded.reset();  // this snapshot only; the manager keeps the version
            changed = true;
            break;
          }
        }
      }
    }
    if (!changed) return;
  }
}

std::shared_ptr<const inference::ModelConfig> ServingConfig(const ServingSnapshot& snapshot,
                                                            const std::string& model,
                                                            int64_t version) {
  const auto it = snapshot.models.find(model);
  if (it == snapshot.models.end()) return nullptr;
  const VersionStatus* chosen = version > 0 ? it->second.Find(version) : it->second.NewestReady();
  if (chosen == nullptr || chosen->state != VersionState::kReady || !chosen->loaded) {
    return nullptr;
  }
  return chosen->loaded->shared_config();
}

std::optional<std::string> FindDependencyCycle(const std::string& model, const ConfigReader& read) {
  std::vector<std::string> path;
  std::set<std::string> finished;
  std::function<bool(const std::string&)> visit = [&](const std::string& name) {
    for (const auto& on_path : path) {
      if (on_path == name) {
        path.push_back(name);
        return true;
      }
    }
    if (finished.count(name)) return false;
    const auto config = read(name);
    if (!config || !IsEnsemble(*config)) {
      finished.insert(name);
      return false;
    }
    path.push_back(name);
    for (const auto& dependency : DependenciesOf(*config)) {
      if (visit(dependency)) return true;
    }
    path.pop_back();
    finished.insert(name);
    return false;
  };
  if (!visit(model)) return std::nullopt;
  // Only the cycle itself, from its first model.
  const std::string& start = path.back();
  size_t first = 0;
  while (path[first] != start) ++first;
  return absl::StrJoin(path.begin() + static_cast<std::ptrdiff_t>(first), path.end(), " -> ");
}

std::vector<std::string> DependentsOf(const ServingSnapshot& snapshot, const std::string& model) {
  std::vector<std::string> dependents;
  for (const auto& [name, status] : snapshot.models) {
    if (status.config == nullptr || name == model) continue;
    for (const auto& dependency : DependenciesOf(*status.config)) {
      if (dependency == model) {
        dependents.push_back(name);
        break;
      }
    }
  }
  return dependents;
}

}  // namespace inferd::lifecycle
