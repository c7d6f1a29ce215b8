// SPDX-License-Identifier: Apache-2.0
// How the set of loaded models changes after start-up, and how one version
// replaces another. Plain values shared by ServerOptions and the lifecycle.
#pragma once

#include <optional>
#include <string_view>

namespace inferd::lifecycle {

enum class ModelControlMode {
  kNone,      // load every model at start-up; nothing changes afterwards
  kPoll,      // also rescan the repositories and apply what changed
  kExplicit,  // load only what is asked for (--load-model, the load API)
};

enum class TransitionPolicy {
  // The new version is loaded and warmed up while the old one serves; then
  // it takes the traffic and the old one is unloaded once its requests are
  // done. Needs memory for both for a while. The default.
  kAvailabilityPreserving,
  // The old version is unloaded first, then the new one is loaded: no
  // version of the model serves in between (requests get Unavailable).
  kResourcePreserving,
};

std::optional<ModelControlMode> ParseModelControlMode(std::string_view text);
std::string_view ModelControlModeName(ModelControlMode mode);
// "availability_preserving" or "resource_preserving".
std::optional<TransitionPolicy> ParseTransitionPolicy(std::string_view text);
std::string_view TransitionPolicyName(TransitionPolicy policy);

}  // namespace inferd::lifecycle
