// SPDX-License-Identifier: Apache-2.0
#include "repository/model_versions.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "base/file_system.h"

namespace inferd::repository {

std::optional<int64_t> ParseVersionFolder(std::string_view name) {
  if (name.empty() || name.size() > 18) return std::nullopt;
  if (!std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  if (name.size() > 1 && name.front() == '0') return std::nullopt;
  int64_t version = 0;
  if (!absl::SimpleAtoi(absl::string_view(name.data(), name.size()), &version)) return std::nullopt;
  return version;
}

std::vector<int64_t> ListVersions(const std::string& model_dir) {
  std::vector<int64_t> versions;
  auto subdirs = base::ListSubdirectories(model_dir);
  if (!subdirs.ok()) return versions;
  for (const auto& name : *subdirs) {
    if (auto version = ParseVersionFolder(name)) versions.push_back(*version);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

std::vector<int64_t> SelectVersions(const inference::ModelVersionPolicy& policy,
                                    const std::vector<int64_t>& available) {
  if (policy.has_all()) return available;
  if (policy.has_specific()) {
    const std::set<int64_t> wanted(policy.specific().versions().begin(),
                                   policy.specific().versions().end());
    std::vector<int64_t> selected;
    for (int64_t v : available) {
      if (wanted.count(v) > 0) selected.push_back(v);
    }
    return selected;
  }
  const size_t n = policy.has_latest() ? policy.latest().num_versions() : 1;
  const size_t keep = std::min(n, available.size());
  return std::vector<int64_t>(available.end() - static_cast<std::ptrdiff_t>(keep), available.end());
}

}  // namespace inferd::repository
