// SPDX-License-Identifier: Apache-2.0
// Fingerprints tell which parts of a model folder changed: the files shared by
// every version, or one version folder. mtimes are set explicitly, so that
// the tests need no sleeps and do not depend on the file system's clock.
#include "repository/model_fingerprint.h"

#include <chrono>
#include <filesystem>
#include <string>
#include <system_error>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace inferd::repository {
namespace {

using ::testing::ElementsAre;
using ::testing::Key;

namespace fs = std::filesystem;

// Moves the mtime of `path` by `delta` (positive or negative).
void ShiftMtime(const std::string& path, std::chrono::nanoseconds delta) {
  std::error_code ec;
  const fs::file_time_type now = fs::last_write_time(path, ec);
  ASSERT_FALSE(ec) << ec.message();
  fs::last_write_time(path, now + delta, ec);
  ASSERT_FALSE(ec) << ec.message();
}

// Sets the mtime of `path` to a fixed, distinct value.
void SetMtime(const std::string& path, int64_t seconds_since_epoch) {
  std::error_code ec;
  const std::chrono::sys_seconds when{std::chrono::seconds(seconds_since_epoch)};
  fs::last_write_time(path, std::chrono::file_clock::from_sys(when), ec);
  ASSERT_FALSE(ec) << ec.message();
}

class ModelFingerprintTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::WriteFile(Path("config.pbtxt"), "name: \"m\"");
    testing::WriteFile(Path("labels.txt"), "cat\ndog\n");
    testing::WriteFile(Path("warmup/x.bin"), std::string(16, '\0'));
    testing::WriteFile(Path("1/model.onnx"), "one");
    testing::WriteFile(Path("2/model.onnx"), "two");
    testing::WriteFile(Path("2/sub/extra.bin"), "extra");
  }

  std::string Path(const std::string& relative) const { return dir_.Join("m/" + relative); }
  std::string ModelDir() const { return dir_.Join("m"); }

  testing::TempDir dir_;
};

TEST_F(ModelFingerprintTest, SameFolderTwiceIsEqual) {
  const ModelFingerprint a = FingerprintModel(ModelDir());
  const ModelFingerprint b = FingerprintModel(ModelDir());
  EXPECT_EQ(a, b);
  EXPECT_NE(a.model_files, 0u);
  EXPECT_THAT(a.versions, ElementsAre(Key(1), Key(2)));
  EXPECT_NE(a.versions.at(1), a.versions.at(2));
}

TEST_F(ModelFingerprintTest, TrailingSlashDoesNotMatter) {
  EXPECT_EQ(FingerprintModel(ModelDir()), FingerprintModel(ModelDir() + "/"));
}

TEST_F(ModelFingerprintTest, TouchingAVersionFileChangesOnlyThatVersion) {
  const ModelFingerprint before = FingerprintModel(ModelDir());
  ShiftMtime(Path("2/model.onnx"), std::chrono::seconds(5));
  const ModelFingerprint after = FingerprintModel(ModelDir());
  EXPECT_EQ(after.model_files, before.model_files);
  EXPECT_EQ(after.versions.at(1), before.versions.at(1));
  EXPECT_NE(after.versions.at(2), before.versions.at(2));
}

TEST_F(ModelFingerprintTest, NanosecondMtimeChangesCount) {
  const ModelFingerprint before = FingerprintModel(ModelDir());
  ShiftMtime(Path("2/sub/extra.bin"), std::chrono::nanoseconds(1000));
  EXPECT_NE(FingerprintModel(ModelDir()).versions.at(2), before.versions.at(2));
}

TEST_F(ModelFingerprintTest, RewritingAVersionFileChangesOnlyThatVersion) {
  // Same mtime as before: the size alone must tell the files apart.
  SetMtime(Path("2/model.onnx"), 1'600'000'000);
  const ModelFingerprint before = FingerprintModel(ModelDir());
  testing::WriteFile(Path("2/model.onnx"), "two, but longer");
  SetMtime(Path("2/model.onnx"), 1'600'000'000);
  const ModelFingerprint after = FingerprintModel(ModelDir());
  EXPECT_EQ(after.model_files, before.model_files);
  EXPECT_EQ(after.versions.at(1), before.versions.at(1));
  EXPECT_NE(after.versions.at(2), before.versions.at(2));
}

TEST_F(ModelFingerprintTest, ReplacingAFileWithSameSizeAndMtimeIsSeenByItsInode) {
  SetMtime(Path("1/model.onnx"), 1'600'000'000);
  SetMtime(Path("1"), 1'600'000'000);
  const ModelFingerprint before = FingerprintModel(ModelDir());
  // A copy renamed over the original: new inode, same size, same mtime.
  testing::WriteFile(Path("1/model.onnx.tmp"), "ONE");
  SetMtime(Path("1/model.onnx.tmp"), 1'600'000'000);
  std::error_code ec;
  fs::rename(Path("1/model.onnx.tmp"), Path("1/model.onnx"), ec);
  ASSERT_FALSE(ec) << ec.message();
  SetMtime(Path("1"), 1'600'000'000);  // the folder's own mtime is back, too
  const ModelFingerprint after = FingerprintModel(ModelDir());
  EXPECT_NE(after.versions.at(1), before.versions.at(1));
  EXPECT_EQ(after.versions.at(2), before.versions.at(2));
  EXPECT_EQ(after.model_files, before.model_files);
}

TEST_F(ModelFingerprintTest, ChangingConfigChangesOnlyModelFiles) {
  const ModelFingerprint before = FingerprintModel(ModelDir());
  testing::WriteFile(Path("config.pbtxt"), "name: \"m\" max_batch_size: 8");
  const ModelFingerprint after = FingerprintModel(ModelDir());
  EXPECT_NE(after.model_files, before.model_files);
  EXPECT_EQ(after.versions, before.versions);
}

TEST_F(ModelFingerprintTest, NonVersionFoldersBelongToModelFiles) {
  const ModelFingerprint before = FingerprintModel(ModelDir());
  ShiftMtime(Path("warmup/x.bin"), std::chrono::seconds(3));
  const ModelFingerprint warmup_changed = FingerprintModel(ModelDir());
  EXPECT_NE(warmup_changed.model_files, before.model_files);
  EXPECT_EQ(warmup_changed.versions, before.versions);

  // "01" and "v3" are not version folders (ParseVersionFolder), "3" is a file.
  testing::WriteFile(Path("01/model.onnx"), "x");
  testing::WriteFile(Path("v3/model.onnx"), "x");
  testing::WriteFile(Path("3"), "a file, not a folder");
  const ModelFingerprint after = FingerprintModel(ModelDir());
  EXPECT_NE(after.model_files, warmup_changed.model_files);
  EXPECT_EQ(after.versions, before.versions);
}

TEST_F(ModelFingerprintTest, AddingAndRemovingVersionFolders) {
  const ModelFingerprint before = FingerprintModel(ModelDir());
  testing::WriteFile(Path("10/model.onnx"), "ten");
  const ModelFingerprint added = FingerprintModel(ModelDir());
  EXPECT_THAT(added.versions, ElementsAre(Key(1), Key(2), Key(10)));
  EXPECT_EQ(added.versions.at(1), before.versions.at(1));
  EXPECT_EQ(added.versions.at(2), before.versions.at(2));
  // The model folder's own mtime changed, but that is not a model file.
  EXPECT_EQ(added.model_files, before.model_files);

  std::error_code ec;
  fs::remove_all(Path("1"), ec);
  ASSERT_FALSE(ec) << ec.message();
  const ModelFingerprint removed = FingerprintModel(ModelDir());
  EXPECT_THAT(removed.versions, ElementsAre(Key(2), Key(10)));
  EXPECT_EQ(removed.versions.at(2), before.versions.at(2));
  EXPECT_EQ(removed.model_files, before.model_files);
}

TEST_F(ModelFingerprintTest, AddingAFileToAVersionChangesIt) {
  const ModelFingerprint before = FingerprintModel(ModelDir());
  testing::WriteFile(Path("1/vocab.txt"), "");
  const ModelFingerprint after = FingerprintModel(ModelDir());
  EXPECT_NE(after.versions.at(1), before.versions.at(1));
  EXPECT_EQ(after.versions.at(2), before.versions.at(2));
}

TEST_F(ModelFingerprintTest, EmptyVersionFolderIsAVersion) {
  testing::MakeDirectory(Path("7"));
  EXPECT_THAT(FingerprintModel(ModelDir()).versions, ElementsAre(Key(1), Key(2), Key(7)));
}

TEST_F(ModelFingerprintTest, SymlinkedFileIsFollowed) {
  testing::WriteFile(dir_.Join("elsewhere/model.onnx"), "real");
  std::error_code ec;
  fs::create_symlink(dir_.Join("elsewhere/model.onnx"), Path("1/linked.onnx"), ec);
  ASSERT_FALSE(ec) << ec.message();
  const ModelFingerprint before = FingerprintModel(ModelDir());
  // Editing the target, not the link, is a change of version 1.
  testing::WriteFile(dir_.Join("elsewhere/model.onnx"), "real, rewritten");
  const ModelFingerprint after = FingerprintModel(ModelDir());
  EXPECT_NE(after.versions.at(1), before.versions.at(1));
  EXPECT_EQ(after.versions.at(2), before.versions.at(2));
}

TEST_F(ModelFingerprintTest, SymlinkCycleDoesNotLoop) {
  std::error_code ec;
  fs::create_directory_symlink(ModelDir(), Path("2/loop"), ec);
  ASSERT_FALSE(ec) << ec.message();
  fs::create_symlink(Path("missing"), Path("1/dangling"), ec);
  ASSERT_FALSE(ec) << ec.message();
  const ModelFingerprint fingerprint = FingerprintModel(ModelDir());
  EXPECT_THAT(fingerprint.versions, ElementsAre(Key(1), Key(2)));
  EXPECT_EQ(FingerprintModel(ModelDir()), fingerprint);
}

TEST_F(ModelFingerprintTest, MissingFolderGivesAnEmptyFingerprint) {
  EXPECT_EQ(FingerprintModel(dir_.Join("absent")), ModelFingerprint{});
  testing::WriteFile(dir_.Join("plain_file"), "x");
  EXPECT_EQ(FingerprintModel(dir_.Join("plain_file")), ModelFingerprint{});
  // An existing but empty folder is not the same as a missing one.
  testing::MakeDirectory(dir_.Join("empty"));
  EXPECT_NE(FingerprintModel(dir_.Join("empty")), ModelFingerprint{});
}

}  // namespace
}  // namespace inferd::repository
