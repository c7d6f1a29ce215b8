// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/serving_table.h"

namespace inferd::lifecycle {

std::string_view VersionStateName(VersionState state) {
  switch (state) {
    case VersionState::kLoading:
      return "LOADING";
    case VersionState::kReady:
      return "READY";
    case VersionState::kUnloading:
      return "UNLOADING";
    case VersionState::kUnavailable:
    default:
      return "UNAVAILABLE";
  }
}

const VersionStatus* ModelStatus::NewestReady() const {
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (it->state == VersionState::kReady) return &*it;
  }
  return nullptr;
}

const VersionStatus* ModelStatus::Find(int64_t version) const {
  for (const auto& v : versions) {
    if (v.version == version) return &v;
  }
  return nullptr;
}

}  // namespace inferd::lifecycle
