// SPDX-License-Identifier: Apache-2.0
// Finding model folders in repositories and reading their config.pbtxt.
#include "repository/model_repository.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace inferd::repository {
namespace {

using ::testing::HasSubstr;

TEST(ModelRepositoryTest, ListsModelFoldersSortedByName) {
  testing::TempDir repo;
  for (const char* name : {"zeta", "alpha", "mid", ".hidden"})
    testing::MakeDirectory(repo.Join(name));
  testing::WriteFile(repo.Join("README.md"), "not a model");
  auto models = ListModels({repo.path()});
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->size(), 3u);
  EXPECT_EQ((*models)[0].name, "alpha");
  EXPECT_EQ((*models)[0].directory, repo.Join("alpha"));
  EXPECT_FALSE((*models)[0].problem.has_value());
  EXPECT_EQ((*models)[1].name, "mid");
  EXPECT_EQ((*models)[2].name, "zeta");
}

TEST(ModelRepositoryTest, MergesRepositoriesAndFlagsDuplicates) {
  testing::TempDir a, b;
  testing::MakeDirectory(a.Join("one"));
  testing::MakeDirectory(a.Join("both"));
  testing::MakeDirectory(b.Join("two"));
  testing::MakeDirectory(b.Join("both"));
  auto models = ListModels({a.path(), b.path()});
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->size(), 3u);
  EXPECT_EQ((*models)[0].name, "both");
  ASSERT_TRUE((*models)[0].problem.has_value());
  EXPECT_THAT(*(*models)[0].problem, HasSubstr("model 'both' exists in more than one repository"));
  EXPECT_FALSE((*models)[1].problem.has_value());
  EXPECT_FALSE((*models)[2].problem.has_value());
}

TEST(ModelRepositoryTest, EmptyRepositoryHasNoModels) {
  testing::TempDir repo;
  auto models = ListModels({repo.path()});
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_TRUE(models->empty());
}

TEST(ModelRepositoryTest, MissingRepositoryIsNotFound) {
  testing::TempDir repo;
  auto models = ListModels({repo.path(), repo.Join("missing")});
  ASSERT_FALSE(models.ok());
  EXPECT_TRUE(absl::IsNotFound(models.status()));
  EXPECT_THAT(std::string(models.status().message()), HasSubstr("missing"));
}

TEST(ModelRepositoryTest, ReadModelConfigFile) {
  testing::TempDir repo;
  testing::WriteFile(repo.Join("m/config.pbtxt"), "name: \"m\"\nmax_batch_size: 4\n");
  auto config = ReadModelConfigFile(repo.Join("m"));
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_TRUE(config->has_value());
  EXPECT_EQ((*config)->max_batch_size(), 4);
}

TEST(ModelRepositoryTest, MissingConfigIsNotAnError) {
  testing::TempDir repo;
  testing::MakeDirectory(repo.Join("m/1"));
  auto config = ReadModelConfigFile(repo.Join("m"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->has_value());
}

TEST(ModelRepositoryTest, ParseErrorsNameTheConfigPath) {
  testing::TempDir repo;
  testing::WriteFile(repo.Join("m/config.pbtxt"), "name: \"m\"\nbogus: 1\n");
  auto config = ReadModelConfigFile(repo.Join("m"));
  ASSERT_FALSE(config.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(config.status()));
  EXPECT_THAT(std::string(config.status().message()),
              HasSubstr(repo.Join("m/config.pbtxt") + ":2:"));
}

}  // namespace
}  // namespace inferd::repository
