// SPDX-License-Identifier: Apache-2.0
#include "repository/repository_source.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/file_system.h"
#include "repository/object_store_repository.h"
#include "repository/s3_store.h"

namespace inferd::repository {
namespace {

class LocalFolderSource final : public RepositorySource {
 public:
  explicit LocalFolderSource(std::string folder) : folder_(std::move(folder)) {}
  const std::string& name() const override { return folder_; }
  const std::string& local_folder() const override { return folder_; }
  absl::Status Check() override {
    if (base::IsDirectory(folder_)) return absl::OkStatus();
    return absl::NotFoundError(absl::StrCat("model repository '", folder_, "' is not a folder"));
  }
  absl::Status Refresh(RefreshMode) override { return Check(); }

 private:
  const std::string folder_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RepositorySource>> OpenRepositorySource(
    const std::string& spec, const SourceOptions& options) {
  // One branch per kind of object store; each makes its ObjectStore.
  if (IsS3Url(spec)) {
    auto store = S3Store::Create(spec, options.s3_endpoint, ProcessEnvironment());
    if (!store.ok()) return store.status();
    auto source = ObjectStoreRepository::Create(*std::move(store), options.cache_directory);
    if (!source.ok()) return source.status();
    return std::unique_ptr<RepositorySource>(*std::move(source));
  }
  if (absl::StrContains(spec, "://")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model repository '", spec, "': only local folders and s3:// URLs are supported"));
  }
  return std::make_unique<LocalFolderSource>(spec);
}

}  // namespace inferd::repository
