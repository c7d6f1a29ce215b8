// SPDX-License-Identifier: Apache-2.0
// A model repository held in an object store, copied into a local cache
// folder that the lifecycle reads like any other repository. Each refresh
// lists the store, decides with PlanSync what to copy or remove, downloads
// each part into a staging folder beside the models and moves it into place
// with one rename, so the cache folder never holds a half-downloaded part.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "repository/object_listing.h"
#include "repository/object_store.h"
#include "repository/repository_source.h"

namespace inferd::repository {

class ObjectStoreRepository final : public RepositorySource {
 public:
  // Makes a new folder of its own below `cache_directory` (created if
  // missing), so that servers sharing one cache directory never meet.
  static absl::StatusOr<std::unique_ptr<ObjectStoreRepository>> Create(
      std::unique_ptr<ObjectStore> store, const std::string& cache_directory);
  // Removes the cache folder.
  ~ObjectStoreRepository() override;

  const std::string& name() const override { return store_->url(); }
  const std::string& local_folder() const override { return folder_; }
  absl::Status Check() override;
  absl::Status Refresh(RefreshMode mode) override;

 private:
  ObjectStoreRepository(std::unique_ptr<ObjectStore> store, std::string folder);
  // Downloads `units` of one model into a new staging folder; returns it.
  absl::StatusOr<std::string> Stage(const std::string& model, const std::vector<UnitKey>& units,
                                    const UnitListing& listing);
  absl::Status FetchModel(const std::string& model, const std::vector<UnitKey>& units,
                          const UnitListing& listing);
  void RemoveUnit(const UnitKey& unit);
  bool ModelCached(const std::string& model) const;

  const std::unique_ptr<ObjectStore> store_;
  const std::string folder_;
  std::mutex mu_;  // one refresh at a time; guards the members below
  std::optional<UnitListing> previous_;
  std::map<UnitKey, uint64_t> cached_;  // what the folder holds: part -> digest
  uint64_t next_staging_ = 0;
};

// The default parent of cache folders: $TMPDIR (or /tmp) + "/inferd-model-cache".
std::string DefaultCacheDirectory();

}  // namespace inferd::repository
