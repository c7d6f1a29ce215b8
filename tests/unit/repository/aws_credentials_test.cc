// SPDX-License-Identifier: Apache-2.0
// Credentials and region: the environment first, then the credentials file.
#include "repository/aws_credentials.h"

#include <map>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace inferd::repository {
namespace {

using ::testing::HasSubstr;

EnvironmentLookup Env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

constexpr char kFile[] = R"(# rotated weekly
[default]
aws_access_key_id = AKIDEFAULT
aws_secret_access_key=secret/default+1

[ci]
; temporary
aws_access_key_id = AKICI
aws_secret_access_key = secret-ci
aws_session_token = token-ci
[broken]
aws_access_key_id = AKIBROKEN
)";

TEST(AwsCredentialsTest, EnvironmentWins) {
  testing::TempDir dir;
  testing::WriteFile(dir.Join("credentials"), kFile);
  auto resolved =
      ResolveAwsCredentials(Env({{"AWS_ACCESS_KEY_ID", "AKIENV"},
                                 {"AWS_SECRET_ACCESS_KEY", "s"},
                                 {"AWS_SESSION_TOKEN", "t"},
                                 {"AWS_SHARED_CREDENTIALS_FILE", dir.Join("credentials")}}));
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(**resolved, (AwsCredentials{"AKIENV", "s", "t", "the environment"}));
}

TEST(AwsCredentialsTest, HalfAPairIsAnError) {
  auto resolved = ResolveAwsCredentials(Env({{"AWS_ACCESS_KEY_ID", "AKIENV"}}));
  EXPECT_THAT(resolved.status().message(), HasSubstr("must be set together"));
}

TEST(AwsCredentialsTest, FileProfiles) {
  testing::TempDir dir;
  testing::WriteFile(dir.Join("credentials"), kFile);
  const std::string path = dir.Join("credentials");
  auto fallback = ResolveAwsCredentials(Env({{"AWS_SHARED_CREDENTIALS_FILE", path}}));
  ASSERT_TRUE(fallback.ok()) << fallback.status();
  EXPECT_EQ((*fallback)->access_key_id, "AKIDEFAULT");
  EXPECT_EQ((*fallback)->secret_access_key, "secret/default+1");
  EXPECT_EQ((*fallback)->session_token, "");

  auto ci =
      ResolveAwsCredentials(Env({{"AWS_SHARED_CREDENTIALS_FILE", path}, {"AWS_PROFILE", "ci"}}));
  ASSERT_TRUE(ci.ok()) << ci.status();
  EXPECT_EQ(**ci,
            (AwsCredentials{"AKICI", "secret-ci", "token-ci", "profile 'ci' of '" + path + "'"}));

  auto missing =
      ResolveAwsCredentials(Env({{"AWS_SHARED_CREDENTIALS_FILE", path}, {"AWS_PROFILE", "prod"}}));
  EXPECT_THAT(missing.status().message(), HasSubstr("has no profile 'prod'"));
  auto broken = ResolveAwsCredentials(
      Env({{"AWS_SHARED_CREDENTIALS_FILE", path}, {"AWS_PROFILE", "broken"}}));
  EXPECT_THAT(broken.status().message(), HasSubstr("lacks aws_access_key_id or aws_secret"));
}

TEST(AwsCredentialsTest, HomeFileAndAnonymous) {
  testing::TempDir dir;
  auto none = ResolveAwsCredentials(Env({{"HOME", dir.path()}}));
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());  // no file, no variables: unsigned requests
  testing::WriteFile(dir.Join(".aws/credentials"), kFile);
  auto home = ResolveAwsCredentials(Env({{"HOME", dir.path()}}));
  ASSERT_TRUE(home.ok()) << home.status();
  EXPECT_EQ((*home)->access_key_id, "AKIDEFAULT");
  auto named =
      ResolveAwsCredentials(Env({{"HOME", dir.path() + "/nowhere"}, {"AWS_PROFILE", "x"}}));
  EXPECT_THAT(named.status().message(), HasSubstr("no credentials file"));
}

TEST(AwsCredentialsTest, Region) {
  EXPECT_EQ(ResolveAwsRegion(Env({})), "us-east-1");
  EXPECT_EQ(ResolveAwsRegion(Env({{"AWS_DEFAULT_REGION", "eu-west-1"}})), "eu-west-1");
  EXPECT_EQ(
      ResolveAwsRegion(Env({{"AWS_DEFAULT_REGION", "eu-west-1"}, {"AWS_REGION", "ap-south-1"}})),
      "ap-south-1");
}

}  // namespace
}  // namespace inferd::repository
