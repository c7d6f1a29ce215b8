// SPDX-License-Identifier: Apache-2.0
// The two things the repository load API may send instead of what is on
// disk (docs/api.md, "Load"): a `config` JSON that replaces
// config.pbtxt, and `file:<version>/<path>` contents that replace the model
// folder. Both are checked here, before anything is loaded.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "model_config.pb.h"

namespace inferd::repository {

// Parses a ModelConfig written as JSON (protobuf's JSON mapping, which is
// what tritonclient's load_model(config=...) sends). InvalidArgument naming
// the problem for anything else, including unknown fields.
absl::StatusOr<inference::ModelConfig> ParseModelConfigJson(const std::string& json);

// A private model folder written from `file:` parameters; removed (with
// everything in it) when the last owner lets go.
class OverrideModelFolder {
 public:
  // Writes `files` (keys are "<version>/<relative path>", values the raw
  // bytes) under a new temporary folder <tmp>/<model_name>/. InvalidArgument
  // when a key is not "<version>/<path>" with a valid version folder name, or
  // when a path is absolute or leaves the folder (".."); Internal when the
  // files cannot be written (the message names the path and errno text).
  static absl::StatusOr<std::shared_ptr<OverrideModelFolder>> Create(
      const std::string& model_name, const std::map<std::string, std::string>& files);
  ~OverrideModelFolder();
  OverrideModelFolder(const OverrideModelFolder&) = delete;
  OverrideModelFolder& operator=(const OverrideModelFolder&) = delete;

  // <tmp>/<model_name>: the folder to load the model from.
  const std::string& model_directory() const { return model_directory_; }

 private:
  OverrideModelFolder(std::string root, std::string model_directory)
      : root_(std::move(root)), model_directory_(std::move(model_directory)) {}

  const std::string root_;  // the temporary folder; removed in the destructor
  const std::string model_directory_;
};

}  // namespace inferd::repository
