// SPDX-License-Identifier: Apache-2.0
// The two operations a model repository needs from an object store (S3, and
// whatever comes next: GCS, Azure Blob, plain HTTP). Adding a kind is one
// class implementing this, plus its URL scheme in repository_source.cc;
// ObjectStoreRepository does the rest (docs/architecture.md, "Repository
// sources").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace inferd::repository {

struct ObjectInfo {
  std::string key;  // relative to the repository's prefix: "<model>/<path>"
  uint64_t size = 0;
  std::string etag;  // without quotes; changes whenever the content does

  bool operator==(const ObjectInfo&) const = default;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;
  // The repository's URL, for messages.
  virtual const std::string& url() const = 0;
  // Every object below the repository's prefix (all pages). A failure says
  // why (PermissionDenied for refused credentials, NotFound for a missing
  // bucket, Unavailable for the network) and names the URL.
  virtual absl::StatusOr<std::vector<ObjectInfo>> List() = 0;
  // Writes the object's bytes to `path` (created or truncated). Fails when
  // the transfer breaks, or when the object is no longer the one listed
  // (another ETag or size): the caller then keeps what it had.
  virtual absl::Status Fetch(const ObjectInfo& object, const std::string& path) = 0;
};

}  // namespace inferd::repository
