// SPDX-License-Identifier: Apache-2.0
// Which versions of one model to load, keep and unload when what the
// repository holds changes: a pure function, so that the policies are
// unit-tested without loading anything.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace inferd::lifecycle {

struct TransitionPlan {
  std::vector<int64_t> load;    // to load (new, changed on disk, or not ready), ascending
  std::vector<int64_t> keep;    // serving and unchanged, ascending
  std::vector<int64_t> retire;  // serving and no longer wanted as they are, ascending
  bool empty() const { return load.empty() && retire.empty(); }
};

// `selected`: the versions the version policy picks now (ascending), with
// `on_disk` their current fingerprints. `serving`: the versions serving now,
// with the fingerprint each was loaded from. `model_changed`: the config or
// a file outside the version folders changed, so every version reloads.
// A version that is selected and serving with the same fingerprint is kept;
// selected and serving but changed is both loaded and retired (the new one
// replaces it); serving but no longer selected is retired.
TransitionPlan PlanTransition(const std::vector<int64_t>& selected,
                              const std::map<int64_t, uint64_t>& on_disk,
                              const std::map<int64_t, uint64_t>& serving, bool model_changed);

}  // namespace inferd::lifecycle
