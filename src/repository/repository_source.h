// SPDX-License-Identifier: Apache-2.0
// Where a model repository comes from (docs/architecture.md, "Repository
// sources"). The lifecycle reads models only from local folders in Triton's
// layout; a source that is not one (an object store) copies what it holds
// into a local cache folder in Refresh, so that every repository takes the
// same path from there on: scanning, fingerprints, polling, loading.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace inferd::repository {

// How much of a remote repository's current state Refresh takes.
enum class RefreshMode {
  // Everything it holds now: at start-up and for an explicit load request
  // (the operator says the repository is complete, as for a local folder).
  kCurrent,
  // Only what has not changed since the previous Refresh (a poll): a model
  // or version still being uploaded waits until two listings agree.
  kStable,
};

class RepositorySource {
 public:
  virtual ~RepositorySource() = default;
  // As given on the command line: a folder or a URL (for messages).
  virtual const std::string& name() const = 0;
  // The folder in Triton's layout that the lifecycle scans and loads from.
  virtual const std::string& local_folder() const = 0;
  // Checks that the source can be read (a folder exists, a listing
  // succeeds) without copying anything; the error says why not.
  virtual absl::Status Check() = 0;
  // Brings local_folder() up to date with the source. A failure leaves the
  // folder as it was (what serves keeps serving); the message names the
  // source. Thread-safe; refreshes of one source run one at a time.
  virtual absl::Status Refresh(RefreshMode mode) = 0;
};

// What opening a source that is not a local folder needs.
struct SourceOptions {
  // Parent of the cache folders of remote repositories; empty: the system's
  // temporary folder ($TMPDIR or /tmp) + "/inferd-model-cache".
  std::string cache_directory;
  // S3 endpoint (scheme://host[:port]) for URLs that do not name one; empty:
  // AWS_ENDPOINT_URL_S3, then AWS_ENDPOINT_URL, then AWS itself.
  std::string s3_endpoint;
};

// A local folder, or a URL of an object store ("s3://..."). A local folder's
// Refresh only checks that it exists (NotFound otherwise); nothing is copied.
absl::StatusOr<std::unique_ptr<RepositorySource>> OpenRepositorySource(
    const std::string& spec, const SourceOptions& options);

}  // namespace inferd::repository
