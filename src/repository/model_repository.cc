// SPDX-License-Identifier: Apache-2.0
#include "repository/model_repository.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "base/file_system.h"
#include "base/status_macros.h"
#include "repository/model_config_parser.h"

namespace inferd::repository {

absl::StatusOr<std::vector<ModelLocation>> ListModels(
    const std::vector<std::string>& repositories) {
  std::map<std::string, ModelLocation> by_name;
  for (const auto& repository : repositories) {
    if (!base::IsDirectory(repository)) {
      return absl::NotFoundError(
          absl::StrCat("model repository '", repository, "' is not a folder"));
    }
    INFERD_ASSIGN_OR_RETURN(auto names, base::ListSubdirectories(repository));
    for (const auto& name : names) {
      if (name.empty() || name.front() == '.') continue;  // hidden folders are not models
      const std::string dir = base::JoinPath(repository, name);
      auto [it, inserted] = by_name.try_emplace(name, ModelLocation{name, dir, std::nullopt});
      if (!inserted) {
        it->second.problem =
            absl::StrCat("model '", name, "' exists in more than one repository: '",
                         it->second.directory, "' and '", dir, "'");
      }
    }
  }
  std::vector<ModelLocation> models;
  for (auto& [name, location] : by_name) models.push_back(std::move(location));
  return models;
}

absl::StatusOr<std::optional<inference::ModelConfig>> ReadModelConfigFile(
    const std::string& model_dir) {
  const std::string path = base::JoinPath(model_dir, "config.pbtxt");
  if (!base::FileExists(path)) return std::optional<inference::ModelConfig>();
  INFERD_ASSIGN_OR_RETURN(std::string text, base::ReadFile(path));
  INFERD_ASSIGN_OR_RETURN(auto config, ParseModelConfig(text, path));
  return std::optional<inference::ModelConfig>(std::move(config));
}

}  // namespace inferd::repository
