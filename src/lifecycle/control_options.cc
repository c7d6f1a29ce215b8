// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/control_options.h"

namespace inferd::lifecycle {

std::optional<ModelControlMode> ParseModelControlMode(std::string_view text) {
  if (text == "none") return ModelControlMode::kNone;
  if (text == "poll") return ModelControlMode::kPoll;
  if (text == "explicit") return ModelControlMode::kExplicit;
  return std::nullopt;
}

std::string_view ModelControlModeName(ModelControlMode mode) {
  switch (mode) {
    case ModelControlMode::kPoll:
      return "poll";
    case ModelControlMode::kExplicit:
      return "explicit";
    case ModelControlMode::kNone:
    default:
      return "none";
  }
}

std::optional<TransitionPolicy> ParseTransitionPolicy(std::string_view text) {
  if (text == "availability_preserving") return TransitionPolicy::kAvailabilityPreserving;
  if (text == "resource_preserving") return TransitionPolicy::kResourcePreserving;
  return std::nullopt;
}

std::string_view TransitionPolicyName(TransitionPolicy policy) {
  return policy == TransitionPolicy::kResourcePreserving ? "resource_preserving"
                                                         : "availability_preserving";
}

}  // namespace inferd::lifecycle
