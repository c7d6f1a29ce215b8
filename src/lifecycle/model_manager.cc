// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/model_manager.h"

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "repository/model_versions.h"

namespace inferd::lifecycle {

absl::StatusOr<std::optional<int64_t>> ParseRequestedVersion(std::string_view model, std::string_view version) {
  if (version.empty()) return std::optional<int64_t>();
  auto parsed = repository::ParseVersionFolder(version);
  if (!parsed) {
    return absl::NotFoundError(absl::StrCat("model '", std::string(model), "' has no version '", std::string(version), "'"));
  }
  return std::optional<int64_t>(*parsed);
}

absl::StatusOr<std::unique_ptr<ModelManager>> ModelManager::Create(ModelManagerOptions options) {
  std::unique_ptr<ModelManager> manager(new ModelManager(std::move(options)));
  INFERD_RETURN_IF_ERROR(manager->LoadAll());
  return manager;
}

ModelManager::~ModelManager() { UnloadAll(); }

absl::Status ModelManager::LoadAll() {
  INFERD_ASSIGN_OR_RETURN(auto locations, repository::ListModels(options_.repositories));
  ModelLoader loader(options_.loader);
  auto snapshot = std::make_shared<ServingSnapshot>();
  for (const auto& location : locations) {
    ModelStatus status = loader.Load(location);
    if (!status.reason.empty() && status.versions.empty()) {
      INFERD_LOG_ERROR("model '{}' failed to load: {}", status.name, status.reason);
    }
    for (const auto& version : status.versions) {
      if (version.state != VersionState::kReady) {
        INFERD_LOG_ERROR("model '{}' version {} failed to load: {}", status.name, version.version, version.reason);
      }
    }
    snapshot->models.emplace(status.name, std::move(status));
  }
  table_.Publish(std::move(snapshot));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<ModelVersion>> ModelManager::Resolve(std::string_view model,
                                                                    std::string_view version) const {
  const auto snapshot = table_.Get();
  const auto it = snapshot->models.find(model);
  if (it == snapshot->models.end()) {
    return absl::NotFoundError(absl::StrCat("unknown model: '", std::string(model), "'"));
  }
  INFERD_ASSIGN_OR_RETURN(auto requested, ParseRequestedVersion(model, version));
  const ModelStatus& status = it->second;
  const VersionStatus* chosen = requested ? status.Find(*requested) : status.NewestReady();
  if (requested && chosen == nullptr) {
    return absl::NotFoundError(absl::StrCat("model '", std::string(model), "' has no version ", *requested));
  }
  if (chosen == nullptr || chosen->state != VersionState::kReady || !chosen->loaded) {
    std::string reason = chosen != nullptr ? chosen->reason : status.reason;
    // No version is ready and the model as a whole did not fail: say why the newest did.
    if (reason.empty() && chosen == nullptr && !status.versions.empty()) reason = status.versions.back().reason;
    return absl::UnavailableError(absl::StrCat("model '", std::string(model), "'", requested ? absl::StrCat(" version ", *requested) : "",
                                               " is not ready", reason.empty() ? "" : absl::StrCat(": ", reason)));
  }
  return chosen->loaded;
}

bool ModelManager::AllReady() const {
  const auto snapshot = table_.Get();
  for (const auto& [name, status] : snapshot->models) {
    if (status.versions.empty()) return false;
    for (const auto& version : status.versions) {
      if (version.state != VersionState::kReady) return false;
    }
  }
  return true;
}

void ModelManager::UnloadAll() {
  const auto snapshot = table_.Get();
  for (const auto& [name, status] : snapshot->models) {
    for (const auto& version : status.versions) {
      if (version.loaded) version.loaded->Stop();
    }
  }
  table_.Publish(std::make_shared<const ServingSnapshot>());
}

}  // namespace inferd::lifecycle
