// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/transition_plan.h"

#include <algorithm>

namespace inferd::lifecycle {

TransitionPlan PlanTransition(const std::vector<int64_t>& selected,
                              const std::map<int64_t, uint64_t>& on_disk,
                              const std::map<int64_t, uint64_t>& serving, bool model_changed) {
  TransitionPlan plan;
  for (int64_t version : selected) {
    const auto now = on_disk.find(version);
    const auto loaded = serving.find(version);
    const bool unchanged = loaded != serving.end() && !model_changed && now != on_disk.end() &&
                           now->second == loaded->second;
    if (unchanged) {
      plan.keep.push_back(version);
    } else {
      plan.load.push_back(version);
      if (loaded != serving.end()) plan.retire.push_back(version);
    }
  }
  for (const auto& [version, fingerprint] : serving) {
    if (!std::binary_search(selected.begin(), selected.end(), version)) {
      plan.retire.push_back(version);
    }
  }
  std::sort(plan.retire.begin(), plan.retire.end());
  return plan;
}

}  // namespace inferd::lifecycle
