// SPDX-License-Identifier: Apache-2.0
// The dependency graph between models: an ensemble depends on the models
// its steps name. The model manager uses it for load order (composing
// models first), for readiness (an ensemble is READY only while every step
// can run), for `unload_dependents`, and to refuse cycles before it takes
// any lock (docs/architecture.md, "Lifecycle").
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lifecycle/serving_table.h"
#include "model_config.pb.h"

namespace inferd::lifecycle {

// The models `config` depends on (its steps' models, each once, sorted);
// empty for a model that is not an ensemble.
std::vector<std::string> DependenciesOf(const inference::ModelConfig& config);

// Marks every READY version of an ensemble whose steps cannot all run
// UNAVAILABLE, with a reason naming the first such step and why; an
// ensemble of ensembles follows its inner ensembles. Applied to each
// snapshot as it is published, so readiness follows the composing models
// both ways (unloaded: down; back: up again).
void ApplyEnsembleReadiness(std::map<std::string, ModelStatus, std::less<>>& models);

// The config of the version an ensemble step would run on (`version` > 0,
// or the newest ready one), or null.
std::shared_ptr<const inference::ModelConfig> ServingConfig(const ServingSnapshot& snapshot,
                                                            const std::string& model,
                                                            int64_t version);

// Reads configs through `read` (null for a model no repository has) and
// returns a dependency cycle through `model` as "a -> b -> a", if any.
using ConfigReader = std::function<std::optional<inference::ModelConfig>(const std::string& model)>;
std::optional<std::string> FindDependencyCycle(const std::string& model, const ConfigReader& read);

// The models that depend on `model` in `snapshot` (their serving configs).
std::vector<std::string> DependentsOf(const ServingSnapshot& snapshot, const std::string& model);

}  // namespace inferd::lifecycle
