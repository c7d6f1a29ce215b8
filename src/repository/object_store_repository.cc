// SPDX-License-Identifier: Apache-2.0
#include "repository/object_store_repository.h"

#include <fcntl.h>
#include <stdio.h>  // renameat2, RENAME_EXCHANGE
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/logging.h"
#include "repository/model_versions.h"

namespace inferd::repository {
namespace {

namespace fs = std::filesystem;

constexpr char kStagingPrefix[] = ".staging-";  // hidden: never scanned as a model

// A folder name from a URL: letters, digits, '-', '_' and '.', at most 64.
std::string FolderNameOf(const std::string& url) {
  std::string name;
  for (char c : url) {
    if (name.size() >= 64) break;
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.';
    name.push_back(plain ? c : '_');
  }
  return name;
}

std::string Describe(const UnitKey& unit) {
  return unit.version.empty() ? absl::StrCat("model '", unit.model, "' (its files)")
                              : absl::StrCat("model '", unit.model, "' version ", unit.version);
}

void RemoveQuietly(const fs::path& path) {
  std::error_code ignored;
  fs::remove_all(path, ignored);
}

// The entries of a model folder that are not version folders (collected
// first: the caller removes them).
std::vector<fs::path> ModelFilesIn(const fs::path& model) {
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(model, error)) {
    if (!ParseVersionFolder(entry.path().filename().string())) files.push_back(entry.path());
  }
  return files;
}

}  // namespace

std::string DefaultCacheDirectory() {
  const char* tmp = getenv("TMPDIR");
  return absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/inferd-model-cache");
}

absl::StatusOr<std::unique_ptr<ObjectStoreRepository>> ObjectStoreRepository::Create(
    std::unique_ptr<ObjectStore> store, const std::string& cache_directory) {
  const std::string parent = cache_directory.empty() ? DefaultCacheDirectory() : cache_directory;
  std::error_code error;
  fs::create_directories(parent, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat("cannot create the model cache folder '",
                                                      parent, "' for '", store->url(),
                                                      "': ", error.message()));
  }
  std::string pattern = absl::StrCat(parent, "/", FolderNameOf(store->url()), "-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat("cannot create a folder in '", parent,
                                                      "' for '", store->url(),
                                                      "': ", std::strerror(errno)));
  }
  return std::unique_ptr<ObjectStoreRepository>(
      new ObjectStoreRepository(std::move(store), std::move(pattern)));
}

ObjectStoreRepository::ObjectStoreRepository(std::unique_ptr<ObjectStore> store, std::string folder)
    : store_(std::move(store)), folder_(std::move(folder)) {}

ObjectStoreRepository::~ObjectStoreRepository() { RemoveQuietly(folder_); }

bool ObjectStoreRepository::ModelCached(const std::string& model) const {
  const auto it = cached_.lower_bound(UnitKey{model, ""});
  return it != cached_.end() && it->first.model == model;
}

absl::Status ObjectStoreRepository::Check() {
  std::lock_guard<std::mutex> lock(mu_);
  return store_->List().status();
}

absl::Status ObjectStoreRepository::Refresh(RefreshMode mode) {
  std::lock_guard<std::mutex> lock(mu_);
  auto listed = store_->List();
  if (!listed.ok()) return listed.status();
  UnitListing now = GroupListing(*listed);
  const bool use_previous = mode == RefreshMode::kStable && previous_.has_value();
  const SyncPlan plan = PlanSync(now, use_previous ? &*previous_ : nullptr, cached_);
  previous_ = now;

  std::map<std::string, std::vector<UnitKey>> fetch_by_model;
  for (const auto& unit : plan.fetch) fetch_by_model[unit.model].push_back(unit);
  std::vector<std::string> failures;
  absl::StatusCode code = absl::StatusCode::kOk;
  for (const auto& [model, units] : fetch_by_model) {
    if (auto fetched = FetchModel(model, units, now); !fetched.ok()) {
      if (code == absl::StatusCode::kOk) code = fetched.code();
      failures.push_back(std::string(fetched.message()));
    }
  }
  std::set<std::string> touched;
  for (const auto& unit : plan.remove) {
    RemoveUnit(unit);
    touched.insert(unit.model);
  }
  for (const auto& model : touched) {
    if (!ModelCached(model)) {
      INFERD_LOG_INFO("{}: model '{}' is gone", store_->url(), model);
      RemoveQuietly(fs::path(folder_) / model);
    }
  }
  if (failures.empty()) return absl::OkStatus();
  return absl::Status(code, absl::StrCat(store_->url(), ": ", absl::StrJoin(failures, "; "),
                                         " (the cache keeps what it had; the next refresh "
                                         "tries again)"));
}

absl::StatusOr<std::string> ObjectStoreRepository::Stage(const std::string& model,
                                                         const std::vector<UnitKey>& units,
                                                         const UnitListing& listing) {
  const std::string staging =
      absl::StrCat(folder_, "/", kStagingPrefix, FolderNameOf(model), "-", next_staging_++);
  RemoveQuietly(staging);
  for (const auto& unit : units) {
    for (const auto& object : listing.at(unit).objects) {
      const fs::path path = fs::path(staging) / object.key;
      std::error_code error;
      fs::create_directories(path.parent_path(), error);
      absl::Status fetched =
          error ? absl::InternalError(absl::StrCat("cannot create '", path.parent_path().string(),
                                                   "': ", error.message()))
                : store_->Fetch(object, path.string());
      if (!fetched.ok()) {
        RemoveQuietly(staging);
        return absl::Status(fetched.code(), absl::StrCat(Describe(unit), ": ", fetched.message()));
      }
    }
  }
  return staging;
}

absl::Status ObjectStoreRepository::FetchModel(const std::string& model,
                                               const std::vector<UnitKey>& units,
                                               const UnitListing& listing) {
  const fs::path target = fs::path(folder_) / model;
  if (!ModelCached(model)) {
    // A new model: every part is staged, then the whole folder moves in.
    auto staging = Stage(model, units, listing);
    if (!staging.ok()) return staging.status();
    RemoveQuietly(target);
    std::error_code error;
    fs::rename(fs::path(*staging) / model, target, error);
    RemoveQuietly(*staging);
    if (error) {
      return absl::InternalError(absl::StrCat("model '", model, "': cannot move it into '",
                                              target.string(), "': ", error.message()));
    }
    for (const auto& unit : units) cached_[unit] = listing.at(unit).digest;
    INFERD_LOG_INFO("{}: model '{}' copied into the cache", store_->url(), model);
    return absl::OkStatus();
  }
  std::vector<std::string> failures;
  absl::StatusCode code = absl::StatusCode::kOk;
  for (const auto& unit : units) {
    auto staging = Stage(model, {unit}, listing);
    if (!staging.ok()) {
      if (code == absl::StatusCode::kOk) code = staging.status().code();
      failures.push_back(std::string(staging.status().message()));
      continue;
    }
    const fs::path staged = fs::path(*staging) / model;
    std::error_code error;
    if (!unit.version.empty()) {
      // One version folder: swapped in with one rename (RENAME_EXCHANGE when
      // it replaces an older copy), so a scan sees the old or the new one.
      const fs::path version_target = target / unit.version;
      const fs::path version_staged = staged / unit.version;
      if (fs::exists(version_target)) {
        if (renameat2(AT_FDCWD, version_staged.c_str(), AT_FDCWD, version_target.c_str(),
                      RENAME_EXCHANGE) != 0) {
          error = std::error_code(errno, std::generic_category());
        }
      } else {
        fs::rename(version_staged, version_target, error);
      }
    } else {
      // The model's own files (config.pbtxt, labels, configs/, ...): the old
      // ones leave, the new ones move in. A poll scans only after the
      // refresh has finished, so it never sees the two halves.
      for (const auto& old_file : ModelFilesIn(target)) RemoveQuietly(old_file);
      for (const auto& new_file : ModelFilesIn(staged)) {
        fs::rename(new_file, target / new_file.filename(), error);
        if (error) break;
      }
    }
    RemoveQuietly(*staging);
    if (error) {
      if (code == absl::StatusCode::kOk) code = absl::StatusCode::kInternal;
      failures.push_back(absl::StrCat(Describe(unit), ": cannot move it into '", target.string(),
                                      "': ", error.message()));
      continue;
    }
    cached_[unit] = listing.at(unit).digest;
    INFERD_LOG_INFO("{}: {} copied into the cache", store_->url(), Describe(unit));
  }
  if (failures.empty()) return absl::OkStatus();
  return absl::Status(code, absl::StrJoin(failures, "; "));
}

void ObjectStoreRepository::RemoveUnit(const UnitKey& unit) {
  cached_.erase(unit);
  const fs::path model = fs::path(folder_) / unit.model;
  if (!unit.version.empty()) {
    // Moved aside first, so a scan never sees a version folder half deleted.
    const fs::path aside = absl::StrCat(folder_, "/", kStagingPrefix, "removed-", next_staging_++);
    std::error_code error;
    fs::rename(model / unit.version, aside, error);
    RemoveQuietly(error ? model / unit.version : aside);
  } else {
    for (const auto& file : ModelFilesIn(model)) RemoveQuietly(file);
  }
  INFERD_LOG_INFO("{}: {} removed from the cache", store_->url(), Describe(unit));
}

}  // namespace inferd::repository
