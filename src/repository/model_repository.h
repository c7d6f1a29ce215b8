// SPDX-License-Identifier: Apache-2.0
// Finds the models of one or more local repositories (folders in Triton's
// layout). Knows nothing of backends: it reports where models are and reads
// their config.pbtxt; completing and loading them is the lifecycle's job.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model_config.pb.h"

namespace inferd::repository {

struct ModelLocation {
  std::string name;       // the folder name
  std::string directory;  // <repository>/<name>
  // Set when the model cannot be loaded for a reason found while scanning
  // (e.g. the same name in two repositories).
  std::optional<std::string> problem;
};

// Every model folder of every repository, sorted by name. NotFound when a
// repository folder does not exist.
absl::StatusOr<std::vector<ModelLocation>> ListModels(const std::vector<std::string>& repositories);

// Reads <model>/config.pbtxt. nullopt when the file does not exist (the
// caller decides whether auto-complete may derive one).
absl::StatusOr<std::optional<inference::ModelConfig>> ReadModelConfigFile(
    const std::string& model_dir);

}  // namespace inferd::repository
