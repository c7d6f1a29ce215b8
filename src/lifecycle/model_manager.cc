// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/model_manager.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_system.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "lifecycle/model_dependencies.h"
#include "lifecycle/transition_plan.h"
#include "repository/model_repository.h"
#include "repository/model_versions.h"

namespace inferd::lifecycle {
namespace {

constexpr char kTransitionParameter[] = "version_transition_policy";
constexpr char kUnloadedReason[] = "unloaded";

bool SameConfig(const std::shared_ptr<const inference::ModelConfig>& a,
                const std::shared_ptr<const inference::ModelConfig>& b) {
  return a && b && google::protobuf::util::MessageDifferencer::Equals(*a, *b);
}

// Digest of the override config, folded into model_files so that a load
// with a different `config` counts as a change.
uint64_t Fold(uint64_t digest, const std::string& text) {
  uint64_t hash = digest ^ 0xcbf29ce484222325ull;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

}  // namespace

absl::StatusOr<std::optional<int64_t>> ParseRequestedVersion(std::string_view model,
                                                             std::string_view version) {
  if (version.empty()) return std::optional<int64_t>();
  auto parsed = repository::ParseVersionFolder(version);
  if (!parsed) {
    return absl::NotFoundError(absl::StrCat("Request for unknown model: '", std::string(model),
                                            "' version ", std::string(version),
                                            " is not found (a version is a number)"));
  }
  return std::optional<int64_t>(*parsed);
}

namespace {

std::vector<std::string> LocalFolders(
    const std::vector<std::unique_ptr<repository::RepositorySource>>& sources) {
  std::vector<std::string> folders;
  for (const auto& source : sources) folders.push_back(source->local_folder());
  return folders;
}

bool AnyRemote(const std::vector<std::unique_ptr<repository::RepositorySource>>& sources) {
  return std::any_of(sources.begin(), sources.end(),
                     [](const auto& source) { return source->local_folder() != source->name(); });
}

}  // namespace

ModelManager::ModelManager(ModelManagerOptions options,
                           std::vector<std::unique_ptr<repository::RepositorySource>> sources)
    : options_(std::move(options)),
      sources_(std::move(sources)),
      folders_(LocalFolders(sources_)),
      has_remote_sources_(AnyRemote(sources_)),
      loader_(options_.loader),
      unloader_([this](uint64_t id) { OnReleased(id); }),
      pool_(std::max(1, options_.load_threads), "inferd-load") {}

absl::StatusOr<std::unique_ptr<ModelManager>> ModelManager::Create(ModelManagerOptions options) {
  // Fails early for a missing repository folder or an unreadable remote
  // repository, before any thread starts. A remote one is copied into its
  // cache folder only by LoadStartupModels, so that the server's endpoints
  // (liveness) need not wait for the download.
  std::vector<std::unique_ptr<repository::RepositorySource>> sources;
  for (const auto& spec : options.repositories) {
    INFERD_ASSIGN_OR_RETURN(auto source, repository::OpenRepositorySource(spec, options.sources));
    INFERD_RETURN_IF_ERROR(source->Check());
    sources.push_back(std::move(source));
  }
  INFERD_RETURN_IF_ERROR(repository::ListModels(LocalFolders(sources)).status());
  const bool load_now = options.load_at_create;
  std::unique_ptr<ModelManager> manager(new ModelManager(std::move(options), std::move(sources)));
  if (load_now) manager->LoadStartupModels();
  return manager;
}

ModelManager::~ModelManager() {
  UnloadAll();
  {
    base::MutexLock lock(&poll_thread_mu_);
    poll_stop_ = true;
  }
  if (poll_thread_.joinable()) poll_thread_.join();
}

ModelManager::Record& ModelManager::RecordFor(const std::string& name) {
  std::lock_guard<std::mutex> lock(records_mu_);
  auto& slot = records_[name];
  if (!slot) slot = std::make_unique<Record>(name);
  return *slot;
}

absl::StatusOr<ModelManager::Target> ModelManager::FindInRepositories(
    const std::string& name) const {
  INFERD_ASSIGN_OR_RETURN(auto locations, repository::ListModels(folders_));
  for (auto& location : locations) {
    if (location.name != name) continue;
    Target target;
    target.fingerprint = repository::FingerprintModel(location.directory);
    target.source = ModelSource{location.name, location.directory, location.problem, {}};
    return target;
  }
  return absl::NotFoundError(absl::StrCat("no model repository has a model named '", name, "'"));
}

absl::StatusOr<ModelManager::Target> ModelManager::TargetFor(const ModelLoadSpec& spec) const {
  if (!spec.files.empty() && spec.config_json.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "loading model '", spec.name, "' from file parameters requires the 'config' parameter"));
  }
  Target target;
  if (!spec.files.empty()) {
    INFERD_ASSIGN_OR_RETURN(target.override_folder,
                            repository::OverrideModelFolder::Create(spec.name, spec.files));
    target.source = ModelSource{spec.name, target.override_folder->model_directory(), {}, {}};
    target.fingerprint = repository::FingerprintModel(target.source.directory);
  } else {
    auto found = FindInRepositories(spec.name);
    if (!found.ok()) {
      // Triton's words for a model no repository has (docs/api.md, "Error messages").
      return absl::Status(
          found.status().code(),
          absl::StrCat("failed to load '", spec.name,
                       "', failed to poll from model repository: ", found.status().message()));
    }
    target = *std::move(found);
  }
  if (!spec.config_json.empty()) {
    INFERD_ASSIGN_OR_RETURN(target.source.config_override,
                            repository::ParseModelConfigJson(spec.config_json));
    target.fingerprint.model_files = Fold(target.fingerprint.model_files, spec.config_json);
  }
  return target;
}

absl::Status ModelManager::RefreshRemoteSources(repository::RefreshMode mode) {
  absl::Status first;
  if (!has_remote_sources_) return first;
  for (const auto& source : sources_) {
    auto status = source->Refresh(mode);
    if (status.ok()) continue;
    // What the cache folder holds keeps serving; the next refresh tries again.
    INFERD_LOG_ERROR("model repository '{}' could not be refreshed: {}", source->name(),
                     status.ToString());
    first.Update(status);
  }
  return first;
}

void ModelManager::RunOnPool(const std::string& name,
                             std::function<absl::Status(Record&)> operation, ControlDone done) {
  Record& record = RecordFor(name);
  pool_.Schedule([this, &record, operation = std::move(operation), done = std::move(done)] {
    absl::Status status;
    {
      std::lock_guard<base::TimedMutex> lock(record.op_mu);
      status = stopping_.load(std::memory_order_acquire)
                   ? absl::UnavailableError("server is shutting down")
                   : operation(record);
    }
    done(std::move(status));
  });
}

TransitionPolicy ModelManager::PolicyOf(const inference::ModelConfig& config) const {
  const auto it = config.parameters().find(kTransitionParameter);
  if (it != config.parameters().end()) {
    if (auto policy = ParseTransitionPolicy(it->second.string_value())) return *policy;
  }
  return options_.transition_policy;
}

absl::Status ModelManager::ApplyLoad(Record& record, const Target& target) {
  record.wanted = true;
  record.unloaded = false;
  auto prepared = loader_.Prepare(target.source);
  // An ensemble loads after what it calls.
  std::map<std::string, std::string> unavailable;
  if (prepared.ok()) {
    if (auto dependencies = LoadDependencies(record.name, *prepared->config, unavailable);
        !dependencies.ok()) {
      prepared = dependencies;
    }
  }
  if (!prepared.ok()) {
    // Whatever serves keeps serving; the index says why the change failed.
    record.applied = target.fingerprint;
    record.reason = std::string(prepared.status().message());
    record.failed.clear();
    for (int64_t v : DefaultPolicyVersions(target.source.directory)) {
      if (!record.serving.count(v)) record.failed[v] = record.reason;
    }
    PublishRecord(record);
    INFERD_LOG_ERROR("model '{}' failed to load: {}", record.name, record.reason);
    return absl::InvalidArgumentError(
        absl::StrCat("load failed for model '", record.name, "': ", record.reason));
  }
  const auto& config = prepared->config;
  const bool model_changed = record.serving.empty() ||
                             record.applied.model_files != target.fingerprint.model_files ||
                             !SameConfig(record.config, config);
  std::map<int64_t, uint64_t> serving;
  for (const auto& [v, s] : record.serving) serving[v] = s.fingerprint;
  const TransitionPlan plan =
      PlanTransition(prepared->versions, target.fingerprint.versions, serving, model_changed);
  record.applied = target.fingerprint;
  record.reason.clear();
  record.failed.clear();
  if (plan.empty()) {
    PublishRecord(record);
    return absl::OkStatus();
  }
  const TransitionPolicy policy = PolicyOf(*config);
  const bool unload_first = policy == TransitionPolicy::kResourcePreserving && !plan.retire.empty();
  // LOADING is published together with the old versions leaving, so that
  // the window's error always says why.
  for (int64_t v : plan.load) {
    record.loading[v] =
        unload_first
            ? "loading (resource-preserving transition: the previous version was unloaded first)"
            : "loading";
  }
  if (unload_first) {
    WaitReleased(Retire(record, plan.retire));
    if (stopping_.load(std::memory_order_acquire)) {
      record.loading.clear();
      return absl::UnavailableError("server is shutting down");
    }
  } else {
    PublishRecord(record);
  }

  std::map<int64_t, Record::Serving> loaded;
  std::vector<std::string> failures;
  // An ensemble's steps are checked against what its composing models serve now.
  const scheduling::ComposingConfigLookup composing =
      [this, &unavailable](
          const std::string& model,
          int64_t version) -> absl::StatusOr<std::shared_ptr<const inference::ModelConfig>> {
    if (auto it = unavailable.find(model); it != unavailable.end()) {
      return absl::UnavailableError(it->second);
    }
    auto config = ServingConfig(*table_.Get(), model, version);
    if (config == nullptr) return absl::UnavailableError("it is not ready");
    return config;
  };
  for (int64_t v : plan.load) {
    auto version = loader_.LoadVersion(config, target.source.directory, v, composing);
    record.loading.erase(v);
    if (!version.ok()) {
      record.failed[v] = std::string(version.status().message());
      failures.push_back(absl::StrCat("version ", v, ": ", version.status().message()));
      INFERD_LOG_ERROR("model '{}' version {} failed to load: {}", record.name, v,
                       record.failed[v]);
      continue;
    }
    const uint64_t id = next_id_.fetch_add(1);
    auto fingerprint = target.fingerprint.versions.find(v);
    loaded[v] = Record::Serving{
        unloader_.Adopt(std::move(*version), id),
        fingerprint == target.fingerprint.versions.end() ? 0 : fingerprint->second, id};
    INFERD_LOG_INFO("model '{}' version {} is ready", record.name, v);
  }
  std::vector<int64_t> retire;
  if (policy == TransitionPolicy::kAvailabilityPreserving) {
    // A broken new version never takes down a working old one: the old
    // ones leave only when the model has a ready version among those the
    // policy now selects.
    const bool replacement_ready = !loaded.empty() || !plan.keep.empty();
    if (replacement_ready) retire = plan.retire;
  }
  if (!loaded.empty() || record.serving.empty() ||
      policy == TransitionPolicy::kResourcePreserving) {
    record.config = config;
  }
  // The new versions take the traffic and the old ones leave in one publish.
  std::vector<std::pair<int64_t, Record::Serving>> leaving;
  for (int64_t v : retire) {
    leaving.emplace_back(v, std::move(record.serving[v]));
    record.serving.erase(v);
  }
  for (auto& [v, serving_version] : loaded) record.serving[v] = std::move(serving_version);
  {
    std::vector<Retiring> entries;
    for (const auto& [v, s] : leaving) entries.push_back({record.name, v, s.id, s.version});
    base::MutexLock lock(&publish_mu_);
    for (auto& entry : entries) retiring_[entry.id] = std::move(entry);
  }
  PublishRecord(record);
  for (auto& [v, s] : leaving) {
    INFERD_LOG_INFO("model '{}' version {} is unloading", record.name, v);
    s.version.reset();  // the unloader deletes it once its last request is done
  }
  if (target.override_folder) record.override_folder = target.override_folder;
  if (!failures.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("load failed for model '", record.name, "': ", absl::StrJoin(failures, "; ")));
  }
  return absl::OkStatus();
}

std::vector<uint64_t> ModelManager::Retire(Record& record, const std::vector<int64_t>& versions) {
  std::vector<uint64_t> ids;
  std::vector<std::shared_ptr<ModelVersion>> dropping;
  {
    base::MutexLock lock(&publish_mu_);
    for (int64_t v : versions) {
      auto it = record.serving.find(v);
      if (it == record.serving.end()) continue;
      retiring_[it->second.id] = Retiring{record.name, v, it->second.id, it->second.version};
      ids.push_back(it->second.id);
      dropping.push_back(std::move(it->second.version));
      record.serving.erase(it);
    }
  }
  PublishRecord(record);
  for (auto& version : dropping) {
    INFERD_LOG_INFO("model '{}' version {} is unloading", record.name, version->version());
  }
  dropping.clear();  // outside every lock: may hand the version to the unloader
  return ids;
}

void ModelManager::WaitReleased(const std::vector<uint64_t>& ids) {
  base::MutexLock lock(&publish_mu_);
  publish_mu_.Await([this, &ids]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(publish_mu_) {
    return std::none_of(ids.begin(), ids.end(),
                        [this](uint64_t id) { return retiring_.count(id) > 0; });
  });
}

void ModelManager::OnReleased(uint64_t id) {
  base::MutexLock lock(&publish_mu_);
  auto it = retiring_.find(id);
  if (it == retiring_.end()) return;
  INFERD_LOG_INFO("model '{}' version {} is unloaded", it->second.model, it->second.version);
  retiring_.erase(it);
  RepublishLocked();
}

absl::Status ModelManager::ApplyUnload(Record& record, bool keep_entry) {
  std::vector<int64_t> versions;
  for (const auto& [v, s] : record.serving) versions.push_back(v);
  std::set<int64_t> shown(versions.begin(), versions.end());
  for (const auto& [v, reason] : record.failed) shown.insert(v);
  record.wanted = false;
  record.unloaded = keep_entry;
  record.loading.clear();
  record.failed.clear();
  record.reason.clear();
  if (keep_entry) {
    // Every version the index listed now says "unloaded" (a model that
    // never loaded says it at model level).
    for (int64_t v : shown) record.failed[v] = kUnloadedReason;
    if (shown.empty()) record.reason = kUnloadedReason;
  }
  WaitReleased(Retire(record, versions));
  record.applied = {};
  record.config.reset();
  record.override_folder.reset();
  PublishRecord(record, /*remove=*/!keep_entry);
  return absl::OkStatus();
}

void ModelManager::PublishRecord(const Record& record, bool remove) {
  ModelStatus status;
  status.name = record.name;
  status.config = record.config;
  status.reason = record.reason;
  status.wanted = record.wanted;
  std::map<int64_t, VersionStatus> versions;
  for (const auto& [v, reason] : record.failed) {
    versions[v] = VersionStatus{v, VersionState::kUnavailable, reason, nullptr};
  }
  for (const auto& [v, reason] : record.loading) {
    versions[v] = VersionStatus{v, VersionState::kLoading, reason, nullptr};
  }
  // A failed change leaves the old versions serving: their entries say so.
  const std::string serving_reason =
      record.reason.empty()
          ? std::string()
          : absl::StrCat("serving; the latest change failed to load: ", record.reason);
  for (const auto& [v, s] : record.serving) {
    versions[v] = VersionStatus{v, VersionState::kReady, serving_reason, s.version};
  }
  for (auto& [v, entry] : versions) status.versions.push_back(std::move(entry));
  base::MutexLock lock(&publish_mu_);
  if (remove) {
    published_.erase(record.name);
  } else {
    published_[record.name] = std::move(status);
  }
  RepublishLocked();
}

void ModelManager::RepublishLocked() {
  auto snapshot = std::make_shared<ServingSnapshot>();
  snapshot->models = published_;
  for (const auto& [id, entry] : retiring_) {
    ModelStatus& status = snapshot->models[entry.model];
    status.name = entry.model;
    auto it = std::find_if(status.versions.begin(), status.versions.end(),
                           [&](const VersionStatus& v) { return v.version == entry.version; });
    if (it == status.versions.end()) {
      status.versions.push_back({entry.version, VersionState::kUnloading, "unloading", nullptr});
      std::sort(
          status.versions.begin(), status.versions.end(),
          [](const VersionStatus& a, const VersionStatus& b) { return a.version < b.version; });
    } else if (it->state == VersionState::kUnavailable) {
      *it = {entry.version, VersionState::kUnloading, "unloading", nullptr};
    }
  }
  ApplyEnsembleReadiness(snapshot->models);
  table_.Publish(std::move(snapshot));
}

absl::StatusOr<std::shared_ptr<ModelVersion>> ModelManager::Resolve(
    std::string_view model, std::string_view version) const {
  // Triton's words first (clients match on them: docs/api.md, "Error
  // messages"), then why.
  const std::string prefix = absl::StrCat("Request for unknown model: '", std::string(model), "'");
  const auto snapshot = table_.Get();
  const auto it = snapshot->models.find(model);
  if (it == snapshot->models.end())
    return absl::NotFoundError(absl::StrCat(prefix, " is not found"));
  INFERD_ASSIGN_OR_RETURN(auto requested, ParseRequestedVersion(model, version));
  const ModelStatus& status = it->second;
  const VersionStatus* chosen = requested ? status.Find(*requested) : status.NewestReady();
  if (requested && chosen == nullptr) {
    return absl::NotFoundError(absl::StrCat(prefix, " version ", *requested, " is not found"));
  }
  if (chosen == nullptr || chosen->state != VersionState::kReady || !chosen->loaded) {
    std::string reason = chosen != nullptr ? chosen->reason : status.reason;
    // No version is ready and the model as a whole did not fail: say why the newest did.
    if (reason.empty() && chosen == nullptr && !status.versions.empty()) {
      reason = status.versions.back().reason;
    }
    return absl::UnavailableError(
        absl::StrCat(prefix,
                     requested ? absl::StrCat(" version ", *requested, " is not at ready state")
                               : std::string(" has no available versions"),
                     reason.empty() ? "" : absl::StrCat(": ", reason)));
  }
  return chosen->loaded;
}

bool ModelManager::AllReady() const {
  if (!StartupDone()) return false;
  const auto snapshot = table_.Get();
  for (const auto& [name, status] : snapshot->models) {
    if (status.wanted && status.NewestReady() == nullptr) return false;
  }
  return true;
}

}  // namespace inferd::lifecycle
