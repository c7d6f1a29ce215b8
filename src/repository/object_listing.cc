// SPDX-License-Identifier: Apache-2.0
#include "repository/object_listing.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_split.h"
#include "repository/model_versions.h"

namespace inferd::repository {
namespace {

bool IsPlainRelativePath(const std::string& key) {
  if (key.empty() || key.front() == '/') return false;
  if (key.find('\\') != std::string::npos || key.find('\0') != std::string::npos) return false;
  for (absl::string_view segment : absl::StrSplit(key, '/')) {
    if (segment.empty() || segment == "." || segment == "..") return false;
  }
  return true;
}

uint64_t Mix(uint64_t hash, absl::string_view bytes) {
  for (unsigned char c : bytes) hash = (hash ^ c) * 0x100000001b3ull;
  return (hash ^ 0xff) * 0x100000001b3ull;  // a separator, so "ab"+"c" != "a"+"bc"
}

}  // namespace

UnitListing GroupListing(const std::vector<ObjectInfo>& objects) {
  UnitListing units;
  for (const auto& object : objects) {
    if (!object.key.empty() && object.key.back() == '/') continue;  // a folder marker
    if (!IsPlainRelativePath(object.key)) continue;
    const size_t slash = object.key.find('/');
    if (slash == std::string::npos) continue;  // beside the models, not in one
    UnitKey key{object.key.substr(0, slash), ""};
    const size_t next = object.key.find('/', slash + 1);
    if (next != std::string::npos) {
      std::string folder = object.key.substr(slash + 1, next - slash - 1);
      if (ParseVersionFolder(folder)) key.version = std::move(folder);
    }
    units[key].objects.push_back(object);
  }
  for (auto& [key, unit] : units) {
    std::sort(unit.objects.begin(), unit.objects.end(),
              [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
    uint64_t hash = 0xcbf29ce484222325ull;
    for (const auto& object : unit.objects) {
      hash = Mix(hash, object.key);
      hash = Mix(hash, std::to_string(object.size));
      hash = Mix(hash, object.etag);
    }
    unit.digest = hash;
  }
  return units;
}

SyncPlan PlanSync(const UnitListing& now, const UnitListing* previous,
                  const std::map<UnitKey, uint64_t>& cached) {
  auto stable = [&](const UnitKey& key, const Unit& unit) {
    if (previous == nullptr) return true;
    const auto it = previous->find(key);
    return it != previous->end() && it->second.digest == unit.digest;
  };
  std::set<std::string> cached_models;
  for (const auto& [key, digest] : cached) cached_models.insert(key.model);
  // A model not in the cache yet appears whole: every part of it stable.
  std::set<std::string> unsettled_new_models;
  for (const auto& [key, unit] : now) {
    if (!cached_models.count(key.model) && !stable(key, unit)) {
      unsettled_new_models.insert(key.model);
    }
  }
  SyncPlan plan;
  for (const auto& [key, unit] : now) {
    if (!stable(key, unit) || unsettled_new_models.count(key.model)) continue;
    const auto it = cached.find(key);
    if (it == cached.end() || it->second != unit.digest) plan.fetch.push_back(key);
  }
  for (const auto& [key, digest] : cached) {
    if (now.count(key)) continue;
    if (previous != nullptr && previous->count(key)) continue;  // vanished only now
    plan.remove.push_back(key);
  }
  return plan;
}

}  // namespace inferd::repository
