// SPDX-License-Identifier: Apache-2.0
// The cache folder of a remote repository: what a refresh copies, removes,
// and keeps when the store fails. The store here is an in-memory one (the
// S3 store itself is tested against a real server in
// tests/integration/test_s3_repository.py).
#include "repository/object_store_repository.h"

#include <filesystem>
#include <map>

#include "base/file_system.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repository/model_repository.h"
#include "repository/model_versions.h"
#include "testing/temp_dir.h"

namespace inferd::repository {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class MemoryStore : public ObjectStore {
 public:
  struct State {
    std::map<std::string, std::string> objects;  // key -> bytes
    absl::Status list_error;
    std::string fail_fetch_of;  // a key whose download breaks
    int fetches = 0;
  };
  explicit MemoryStore(std::shared_ptr<State> state) : state_(std::move(state)) {}
  const std::string& url() const override { return url_; }
  absl::StatusOr<std::vector<ObjectInfo>> List() override {
    if (!state_->list_error.ok()) return state_->list_error;
    std::vector<ObjectInfo> listed;
    for (const auto& [key, bytes] : state_->objects) {
      listed.push_back({key, bytes.size(), std::to_string(std::hash<std::string>()(bytes))});
    }
    return listed;
  }
  absl::Status Fetch(const ObjectInfo& object, const std::string& path) override {
    ++state_->fetches;
    if (object.key == state_->fail_fetch_of) {
      testing::WriteFile(path, "partial");  // what a broken transfer leaves behind
      return absl::UnavailableError("connection reset");
    }
    testing::WriteFile(path, state_->objects.at(object.key));
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<State> state_;
  const std::string url_ = "mem://bucket/repo";
};

class ObjectStoreRepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state_ = std::make_shared<State>();
    state_->objects = {{"simple/config.pbtxt", "config v1"}, {"simple/1/model.onnx", "one"}};
    auto created =
        ObjectStoreRepository::Create(std::make_unique<MemoryStore>(state_), cache_.path());
    ASSERT_TRUE(created.ok()) << created.status();
    repo_ = *std::move(created);
  }
  std::string Read(const std::string& relative) {
    auto text = base::ReadFile(base::JoinPath(repo_->local_folder(), relative));
    return text.ok() ? *text : "<missing>";
  }
  std::vector<std::string> Models() {
    std::vector<std::string> names;
    auto locations = ListModels({repo_->local_folder()});
    if (!locations.ok()) return {"<" + locations.status().ToString() + ">"};
    for (const auto& location : *locations) names.push_back(location.name);
    return names;
  }

  using State = MemoryStore::State;
  testing::TempDir cache_;
  std::shared_ptr<State> state_;
  std::unique_ptr<ObjectStoreRepository> repo_;
};

TEST_F(ObjectStoreRepositoryTest, StartUpCopiesEverything) {
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kCurrent).ok());
  EXPECT_EQ(repo_->name(), "mem://bucket/repo");
  EXPECT_EQ(Read("simple/config.pbtxt"), "config v1");
  EXPECT_EQ(Read("simple/1/model.onnx"), "one");
  EXPECT_THAT(Models(), ElementsAre("simple"));
  // Nothing changed: nothing downloaded again.
  const int fetches = state_->fetches;
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_EQ(state_->fetches, fetches);
}

TEST_F(ObjectStoreRepositoryTest, PollCopiesANewVersionOnceStable) {
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kCurrent).ok());
  state_->objects["simple/2/model.onnx"] = "two";
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_EQ(ListVersions(repo_->local_folder() + "/simple"), std::vector<int64_t>({1}));
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_EQ(ListVersions(repo_->local_folder() + "/simple"), std::vector<int64_t>({1, 2}));
  EXPECT_EQ(Read("simple/2/model.onnx"), "two");
}

TEST_F(ObjectStoreRepositoryTest, AChangedVersionIsSwappedWhole) {
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kCurrent).ok());
  state_->objects["simple/1/model.onnx"] = "one, retrained";
  state_->objects["simple/1/extra.bin"] = "x";
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_EQ(Read("simple/1/model.onnx"), "one");
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_EQ(Read("simple/1/model.onnx"), "one, retrained");
  EXPECT_EQ(Read("simple/1/extra.bin"), "x");
  // No staging folder is left beside the models.
  std::vector<std::string> entries;
  for (const auto& entry : std::filesystem::directory_iterator(repo_->local_folder())) {
    entries.push_back(entry.path().filename().string());
  }
  EXPECT_THAT(entries, ElementsAre("simple"));
}

TEST_F(ObjectStoreRepositoryTest, ConfigChangesAndDeletedFiles) {
  state_->objects["simple/labels.txt"] = "a\nb";
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kCurrent).ok());
  state_->objects.erase("simple/labels.txt");
  state_->objects["simple/config.pbtxt"] = "config v2";
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_EQ(Read("simple/config.pbtxt"), "config v2");
  EXPECT_EQ(Read("simple/labels.txt"), "<missing>");
  EXPECT_EQ(Read("simple/1/model.onnx"), "one");
}

TEST_F(ObjectStoreRepositoryTest, DeletedVersionAndModelLeaveTheCache) {
  state_->objects["simple/2/model.onnx"] = "two";
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kCurrent).ok());
  state_->objects.erase("simple/2/model.onnx");
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_EQ(ListVersions(repo_->local_folder() + "/simple"), std::vector<int64_t>({1, 2}));
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_EQ(ListVersions(repo_->local_folder() + "/simple"), std::vector<int64_t>({1}));
  state_->objects.clear();
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_TRUE(Models().empty());
}

TEST_F(ObjectStoreRepositoryTest, AFailedListingChangesNothing) {
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kCurrent).ok());
  state_->list_error = absl::PermissionDeniedError("mem://bucket/repo: HTTP 403 AccessDenied");
  state_->objects.clear();  // what a failed listing must not be taken for
  for (int i = 0; i < 3; ++i) {
    auto status = repo_->Refresh(RefreshMode::kStable);
    EXPECT_EQ(status.code(), absl::StatusCode::kPermissionDenied);
  }
  EXPECT_EQ(Read("simple/1/model.onnx"), "one");
}

TEST_F(ObjectStoreRepositoryTest, ABrokenDownloadKeepsTheOldCopyAndIsRetried) {
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kCurrent).ok());
  state_->objects["simple/1/model.onnx"] = "one, retrained";
  state_->objects["simple/2/model.onnx"] = "two";
  state_->fail_fetch_of = "simple/1/model.onnx";
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  auto failed = repo_->Refresh(RefreshMode::kStable);
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(failed.message(), HasSubstr("model 'simple' version 1: connection reset"));
  EXPECT_EQ(Read("simple/1/model.onnx"), "one");  // not "partial"
  EXPECT_EQ(Read("simple/2/model.onnx"), "two");  // the other part went through
  state_->fail_fetch_of.clear();
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_EQ(Read("simple/1/model.onnx"), "one, retrained");
}

TEST_F(ObjectStoreRepositoryTest, ANewModelWhoseDownloadBreaksDoesNotAppear) {
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kCurrent).ok());
  state_->objects["other/config.pbtxt"] = "c";
  state_->objects["other/1/model.onnx"] = "m";
  state_->fail_fetch_of = "other/1/model.onnx";
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_FALSE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_THAT(Models(), ElementsAre("simple"));
  state_->fail_fetch_of.clear();
  ASSERT_TRUE(repo_->Refresh(RefreshMode::kStable).ok());
  EXPECT_THAT(Models(), ElementsAre("other", "simple"));
}

TEST_F(ObjectStoreRepositoryTest, TheCacheFolderIsTheServersOwnAndRemovedAtTheEnd) {
  const std::string folder = repo_->local_folder();
  EXPECT_EQ(folder.rfind(cache_.path() + "/mem___bucket_repo-", 0), 0u) << folder;
  repo_.reset();
  EXPECT_FALSE(base::IsDirectory(folder));
}

TEST(RepositorySourceTest, ALocalFolderIsReadInPlace) {
  testing::TempDir dir;
  auto source = OpenRepositorySource(dir.path(), {});
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_EQ((*source)->local_folder(), dir.path());
  EXPECT_TRUE((*source)->Refresh(RefreshMode::kStable).ok());
  auto missing = OpenRepositorySource(dir.Join("nope"), {});
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ((*missing)->Refresh(RefreshMode::kCurrent).code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(OpenRepositorySource("gs://bucket/x", {}).status().message(),
              HasSubstr("only local folders and s3:// URLs"));
  EXPECT_THAT(OpenRepositorySource("s3://x", {}).status().message(),
              HasSubstr("is not a valid S3 URL"));
}

}  // namespace
}  // namespace inferd::repository
