// SPDX-License-Identifier: Apache-2.0
// A remote repository's listing cut into the parts that are copied into the
// cache folder as one step each — a model's files outside its version
// folders, and each version folder — and the rule that decides which parts a
// refresh copies or removes (docs/deployment.md, "Object storage").
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "repository/object_store.h"

namespace inferd::repository {

struct UnitKey {
  std::string model;
  std::string version;  // a version folder's name; "" for the model's own files

  auto operator<=>(const UnitKey&) const = default;
};

struct Unit {
  std::vector<ObjectInfo> objects;  // keys as listed ("<model>/..."), sorted
  uint64_t digest = 0;              // of every object's key, size and ETag
};

using UnitListing = std::map<UnitKey, Unit>;

// Groups a listing. Skipped: objects at the top level (not in a model
// folder), folder markers (keys ending in '/'), and keys that could leave
// the cache folder or are not plain relative paths ("..", ".", empty
// segments, a leading '/', a backslash or NUL).
UnitListing GroupListing(const std::vector<ObjectInfo>& objects);

struct SyncPlan {
  std::vector<UnitKey> fetch;   // copy (again): new or changed
  std::vector<UnitKey> remove;  // no longer listed
};

// What a refresh does, given the listing now, the previous one (nullptr:
// take `now` as it is) and the digests of what the cache folder holds.
// With a previous listing, the stability rule: a part is copied only when
// it is listed with the same digest in both listings, a model not yet in the
// cache only when all its parts are, and a part is removed only when it is
// missing from both. So an upload (or a deletion) in progress, whose listing
// changes from one poll to the next, is never copied half done.
SyncPlan PlanSync(const UnitListing& now, const UnitListing* previous,
                  const std::map<UnitKey, uint64_t>& cached);

}  // namespace inferd::repository
