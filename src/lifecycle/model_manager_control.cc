// SPDX-License-Identifier: Apache-2.0
// ModelManager, part 2: what asks for transitions — the start-up load, the
// explicit load/unload API (with an ensemble's composing models), and
// repository polling. model_manager.cc applies them; model_manager_drain.cc
// takes everything down at shutdown.
#include <set>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "lifecycle/model_dependencies.h"
#include "lifecycle/model_manager.h"
#include "repository/model_repository.h"

namespace inferd::lifecycle {

void ModelManager::LoadStartupModels() {
  // The remote repositories as they are now (docs/deployment.md, "Object
  // storage"); one that fails keeps an empty cache folder (logged), which a
  // poll fills once it can.
  (void)RefreshRemoteSources(repository::RefreshMode::kCurrent);
  auto locations = repository::ListModels(folders_);
  if (!locations.ok()) {
    INFERD_LOG_ERROR("cannot list the model repositories: {}", locations.status().ToString());
    startup_done_.store(true, std::memory_order_release);
    return;
  }
  std::set<std::string> wanted;
  bool all = options_.mode != ModelControlMode::kExplicit;
  for (const auto& name : options_.startup_models) {
    if (name == "*") all = true;
    wanted.insert(name);
  }
  std::vector<std::string> names;
  for (const auto& location : *locations) {
    if (all || wanted.count(location.name)) names.push_back(location.name);
    wanted.erase(location.name);
  }
  wanted.erase("*");
  for (const auto& missing : wanted) {
    INFERD_LOG_ERROR("--load-model {}: no repository has a model of that name", missing);
  }
  // Every model on the pool at once; wait for all of them.
  base::Mutex mu;
  size_t remaining = names.size();
  for (const auto& name : names) {
    auto target = FindInRepositories(name);
    RunOnPool(
        name,
        [this, target = std::move(target)](Record& record) -> absl::Status {
          if (!target.ok()) return target.status();
          {
            std::lock_guard<std::mutex> poll_lock(poll_mu_);
            last_scan_[record.name] = target->fingerprint;
            last_applied_[record.name] = target->fingerprint;
          }
          return ApplyLoad(record, *target);
        },
        [&mu, &remaining](absl::Status) {
          base::MutexLock lock(&mu);
          --remaining;
        });
  }
  {
    base::MutexLock lock(&mu);
    mu.Await([&remaining]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return remaining == 0; });
  }
  startup_done_.store(true, std::memory_order_release);
  if (options_.mode == ModelControlMode::kPoll &&
      options_.poll_interval > std::chrono::milliseconds::zero()) {
    poll_thread_ = std::thread([this] { PollLoop(); });
  }
}

void ModelManager::LoadAsync(ModelLoadSpec spec, ControlDone done) {
  if (options_.mode != ModelControlMode::kExplicit) {
    done(absl::FailedPreconditionError(
        absl::StrCat("explicit model load / unload is not allowed: the server runs with "
                     "--model-control-mode ",
                     std::string(ModelControlModeName(options_.mode)), " (use explicit)")));
    return;
  }
  if (stopping_.load(std::memory_order_acquire)) {
    done(absl::UnavailableError("server is shutting down"));
    return;
  }
  if (has_remote_sources_ && spec.files.empty()) {
    // The remote repositories are brought up to date first, on the pool (a
    // download may take long), so the load takes what they hold now.
    std::string name = spec.name;
    RunOnPool(
        name,
        [this, spec = std::move(spec)](Record& record) -> absl::Status {
          if (auto refreshed = RefreshRemoteSources(repository::RefreshMode::kCurrent);
              !refreshed.ok()) {
            return absl::Status(
                refreshed.code(),
                absl::StrCat("failed to load '", spec.name,
                             "', failed to poll from model repository: ", refreshed.message()));
          }
          INFERD_ASSIGN_OR_RETURN(auto target, TargetFor(spec));
          return ApplyLoad(record, target);
        },
        std::move(done));
    return;
  }
  // Checked and written here (not on the pool) so that a bad request is
  // answered without waiting behind loads.
  auto target = TargetFor(spec);
  if (!target.ok()) {
    done(target.status());
    return;
  }
  RunOnPool(
      spec.name,
      [this, target = std::move(*target)](Record& record) { return ApplyLoad(record, target); },
      std::move(done));
}

void ModelManager::UnloadAsync(std::string name, ControlDone done, bool unload_dependents) {
  if (options_.mode != ModelControlMode::kExplicit) {
    done(absl::FailedPreconditionError(
        absl::StrCat("explicit model load / unload is not allowed: the server runs with "
                     "--model-control-mode ",
                     std::string(ModelControlModeName(options_.mode)), " (use explicit)")));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(records_mu_);
    if (records_.find(name) == records_.end()) {
      done(absl::NotFoundError(
          absl::StrCat("Request for unknown model: '", name, "' is not found")));
      return;
    }
  }
  RunOnPool(
      name,
      [this, unload_dependents](Record& record) {
        const std::vector<std::string> dependencies =
            record.config ? DependenciesOf(*record.config) : std::vector<std::string>();
        auto status = ApplyUnload(record, /*keep_entry=*/true);
        if (status.ok() && unload_dependents) UnloadDependencies(dependencies);
        return status;
      },
      std::move(done));
}

absl::Status ModelManager::LoadDependencies(const std::string& name,
                                            const inference::ModelConfig& config,
                                            std::map<std::string, std::string>& unavailable) {
  const std::vector<std::string> dependencies = DependenciesOf(config);
  if (dependencies.empty()) return absl::OkStatus();
  // Refused before any lock is taken: two ensembles loading each other on
  // two pool threads would otherwise wait for each other forever.
  auto cycle = FindDependencyCycle(name, [this](const std::string& model) {
    auto target = FindInRepositories(model);
    std::optional<inference::ModelConfig> config;
    if (target.ok()) {
      auto read = repository::ReadModelConfigFile(target->source.directory);
      if (read.ok() && *read) config = std::move(**read);
    }
    return config;
  });
  if (cycle) {
    return absl::InvalidArgumentError(
        absl::StrCat("ensemble '", name, "' depends on itself: ", *cycle));
  }
  for (const auto& dependency : dependencies) {
    Record& record = RecordFor(dependency);
    std::lock_guard<base::TimedMutex> lock(record.op_mu);
    if (stopping_.load(std::memory_order_acquire)) {
      return absl::UnavailableError("server is shutting down");
    }
    if (!record.serving.empty()) continue;
    auto target = FindInRepositories(dependency);
    if (!target.ok()) {
      unavailable[dependency] = "it is not in any model repository";
      continue;
    }
    INFERD_LOG_INFO("loading '{}', which ensemble '{}' uses", dependency, name);
    if (auto loaded = ApplyLoad(record, *target); !loaded.ok()) {
      unavailable[dependency] = std::string(loaded.message());
    }
  }
  return absl::OkStatus();
}

void ModelManager::UnloadDependencies(const std::vector<std::string>& dependencies) {
  for (const auto& dependency : dependencies) {
    if (!DependentsOf(*table_.Get(), dependency).empty()) continue;  // still used
    {
      std::lock_guard<std::mutex> lock(records_mu_);
      if (records_.find(dependency) == records_.end()) continue;
    }
    Record& record = RecordFor(dependency);
    std::vector<std::string> nested;
    {
      std::lock_guard<base::TimedMutex> lock(record.op_mu);
      if (record.serving.empty()) continue;
      if (record.config) nested = DependenciesOf(*record.config);
      INFERD_LOG_INFO("unloading '{}' (unload_dependents)", dependency);
      (void)ApplyUnload(record, /*keep_entry=*/true);
    }
    UnloadDependencies(nested);
  }
}

absl::Status ModelManager::Load(ModelLoadSpec spec) {
  base::Notification finished;
  absl::Status result;
  LoadAsync(std::move(spec), [&](absl::Status status) {
    result = std::move(status);
    finished.Notify();
  });
  finished.WaitForNotification();
  return result;
}

absl::Status ModelManager::Unload(std::string name, bool unload_dependents) {
  base::Notification finished;
  absl::Status result;
  UnloadAsync(
      std::move(name),
      [&](absl::Status status) {
        result = std::move(status);
        finished.Notify();
      },
      unload_dependents);
  finished.WaitForNotification();
  return result;
}

void ModelManager::PollOnce() {
  if (options_.mode != ModelControlMode::kPoll || stopping_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> poll_lock(poll_mu_);
  // A remote repository that cannot be read now keeps its cache folder as it
  // was, so its models stay as they are (the error is logged).
  (void)RefreshRemoteSources(repository::RefreshMode::kStable);
  auto locations = repository::ListModels(folders_);
  if (!locations.ok()) {
    INFERD_LOG_ERROR("repository poll failed: {}", locations.status().ToString());
    return;
  }
  std::map<std::string, Target> now;
  for (auto& location : *locations) {
    Target target;
    target.fingerprint = repository::FingerprintModel(location.directory);
    target.source = ModelSource{location.name, location.directory, location.problem, {}};
    now.emplace(location.name, std::move(target));
  }
  base::Mutex mu;
  size_t remaining = 0;
  auto count_down = [&mu, &remaining](absl::Status) {
    base::MutexLock lock(&mu);
    --remaining;
  };
  // Added or changed models, once stable across two polls.
  for (auto& [name, target] : now) {
    absent_once_.erase(name);
    const auto previous = last_scan_.find(name);
    const bool stable = previous != last_scan_.end() && previous->second == target.fingerprint;
    last_scan_[name] = target.fingerprint;
    const auto applied = last_applied_.find(name);
    if (!stable || (applied != last_applied_.end() && applied->second == target.fingerprint)) {
      continue;
    }
    last_applied_[name] = target.fingerprint;
    {
      base::MutexLock lock(&mu);
      ++remaining;
    }
    RunOnPool(
        name, [this, target = target](Record& record) { return ApplyLoad(record, target); },
        count_down);
  }
  // Removed models, once absent in two polls.
  for (auto it = last_scan_.begin(); it != last_scan_.end();) {
    if (now.count(it->first)) {
      ++it;
      continue;
    }
    const std::string name = it->first;
    if (absent_once_.insert(name).second) {  // seen absent once; removed if still absent next time
      ++it;
      continue;
    }
    absent_once_.erase(name);
    it = last_scan_.erase(it);
    last_applied_.erase(name);
    {
      base::MutexLock lock(&mu);
      ++remaining;
    }
    RunOnPool(
        name, [this](Record& record) { return ApplyUnload(record, /*keep_entry=*/false); },
        count_down);
  }
  base::MutexLock lock(&mu);
  mu.Await([&remaining]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return remaining == 0; });
}

void ModelManager::PollLoop() {
  for (;;) {
    {
      base::MutexLock lock(&poll_thread_mu_);
      if (poll_thread_mu_.AwaitWithTimeout(
              [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(poll_thread_mu_) { return poll_stop_; },
              options_.poll_interval)) {
        return;
      }
    }
    PollOnce();
  }
}

}  // namespace inferd::lifecycle
