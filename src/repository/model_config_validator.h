// SPDX-License-Identifier: Apache-2.0
// Checks a completed model config against Triton's load-time rules and
// reports every problem at once, so a user fixes a config in one pass.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "model_config.pb.h"

namespace inferd::repository {

// InvalidArgument listing every problem ("model 'm': ...; ..."), or OK.
// `config_path` prefixes the message so users know which file to fix.
absl::Status ValidateModelConfig(const inference::ModelConfig& config,
                                 const std::string& config_path);

}  // namespace inferd::repository
