// SPDX-License-Identifier: Apache-2.0
// Version folders (docs/configuration.md) and the version policy.
#include "repository/model_versions.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repository/model_config_parser.h"
#include "testing/temp_dir.h"

namespace inferd::repository {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(ParseVersionFolderTest, AcceptsDecimalNames) {
  EXPECT_EQ(ParseVersionFolder("1"), 1);
  EXPECT_EQ(ParseVersionFolder("0"), 0);  // a bare 0 is version 0
  EXPECT_EQ(ParseVersionFolder("10"), 10);
  EXPECT_EQ(ParseVersionFolder("123456789012345678"), 123456789012345678);
}

TEST(ParseVersionFolderTest, RejectsOtherNames) {
  for (const char* name : {"", "01", "007", "a", "1a", "v1", "-1", "+1", " 1", "1 ", "1.0", "0x1",
                           "configs", "warmup", "initial_state", "1234567890123456789"}) {
    EXPECT_FALSE(ParseVersionFolder(name).has_value()) << "'" << name << "'";
  }
}

TEST(ListVersionsTest, NumericFoldersOnlyAscending) {
  testing::TempDir dir;
  for (const char* folder : {"10", "2", "1", "01", "configs", "warmup", "initial_state", "x"}) {
    testing::MakeDirectory(dir.Join(folder));
  }
  testing::WriteFile(dir.Join("3"), "a file, not a version folder");
  testing::WriteFile(dir.Join("config.pbtxt"), "");
  EXPECT_THAT(ListVersions(dir.path()), ElementsAre(1, 2, 10));
}

TEST(ListVersionsTest, MissingFolderHasNoVersions) {
  EXPECT_THAT(ListVersions("/nonexistent/inferd/model"), IsEmpty());
}

inference::ModelVersionPolicy Policy(const std::string& text) {
  auto config = ParseModelConfig("version_policy " + text, "config.pbtxt");
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? config->version_policy() : inference::ModelVersionPolicy();
}

TEST(SelectVersionsTest, DefaultIsLatestOne) {
  EXPECT_THAT(SelectVersions(inference::ModelVersionPolicy(), {1, 2, 3}), ElementsAre(3));
  EXPECT_THAT(SelectVersions(inference::ModelVersionPolicy(), {}), IsEmpty());
}

TEST(SelectVersionsTest, LatestN) {
  EXPECT_THAT(SelectVersions(Policy("{ latest { num_versions: 2 } }"), {1, 2, 5}),
              ElementsAre(2, 5));
  EXPECT_THAT(SelectVersions(Policy("{ latest { num_versions: 9 } }"), {1, 2}), ElementsAre(1, 2));
  EXPECT_THAT(SelectVersions(Policy("{ latest { num_versions: 1 } }"), {0}), ElementsAre(0));
  // `latest { }` means 0 versions, unlike an absent policy (docs/configuration.md).
  EXPECT_THAT(SelectVersions(Policy("{ latest { } }"), {1, 2}), IsEmpty());
}

TEST(SelectVersionsTest, All) {
  EXPECT_THAT(SelectVersions(Policy("{ all { } }"), {1, 2, 7}), ElementsAre(1, 2, 7));
  EXPECT_THAT(SelectVersions(Policy("{ all { } }"), {}), IsEmpty());
}

TEST(SelectVersionsTest, SpecificKeepsTheListedOnesThatExist) {
  EXPECT_THAT(SelectVersions(Policy("{ specific { versions: [ 7, 1, 4 ] } }"), {1, 2, 3, 7}),
              ElementsAre(1, 7));
  EXPECT_THAT(SelectVersions(Policy("{ specific { versions: [ 9 ] } }"), {1, 2}), IsEmpty());
  EXPECT_THAT(SelectVersions(Policy("{ specific { } }"), {1, 2}), IsEmpty());
}

}  // namespace
}  // namespace inferd::repository
