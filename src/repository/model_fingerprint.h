// SPDX-License-Identifier: Apache-2.0
// What a model folder looks like on disk, reduced to comparable values, so
// that polling can tell added, removed and changed models and versions apart
// and can wait until a folder being copied has stopped changing.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace inferd::repository {

// Each value digests the names, types, sizes, modification times (ns) and
// inode numbers of every file and folder below it (recursively, sorted by
// relative path). File contents are not read: a copy or an in-place edit
// always changes the size or the mtime, and reading multi-GB models on every
// poll would cost more than the poll interval.
struct ModelFingerprint {
  // Everything outside the version folders: config.pbtxt, configs/, label
  // files, warmup/, ... A change here reloads every version.
  uint64_t model_files = 0;
  // One digest per numeric version folder (repository::ParseVersionFolder).
  std::map<int64_t, uint64_t> versions;

  bool operator==(const ModelFingerprint&) const = default;
};

// Fingerprint of <model_dir>. A folder that does not exist (or vanishes while
// being read) gives an empty fingerprint; never fails.
ModelFingerprint FingerprintModel(const std::string& model_dir);

}  // namespace inferd::repository
