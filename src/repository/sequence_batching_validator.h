// SPDX-License-Identifier: Apache-2.0
// The load-time checks of `sequence_batching` (docs/configuration.md,
// "Sequence batching"): strategies, control inputs and their values,
// implicit states and their initial state, and names that clash with the
// model's own inputs and outputs. Part of ValidateModelConfig.
#pragma once

#include <string>
#include <vector>

#include "model_config.pb.h"

namespace inferd::repository {

// Appends one message per problem to `problems`; nothing when the config
// has no sequence_batching.
void CheckSequenceBatching(const inference::ModelConfig& config,
                           std::vector<std::string>& problems);

}  // namespace inferd::repository
