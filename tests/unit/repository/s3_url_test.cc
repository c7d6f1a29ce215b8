// SPDX-License-Identifier: Apache-2.0
// Triton's three spellings of an S3 repository, and what is refused.
#include "repository/s3_url.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::repository {
namespace {

using ::testing::HasSubstr;

TEST(S3UrlTest, BucketAndPath) {
  auto parsed = ParseS3Url("s3://models/prod/cpu");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, (S3Location{"", "models", "prod/cpu/"}));
}

TEST(S3UrlTest, BucketAloneAndTrailingSlashes) {
  EXPECT_EQ(*ParseS3Url("s3://models"), (S3Location{"", "models", ""}));
  EXPECT_EQ(*ParseS3Url("s3://models/"), (S3Location{"", "models", ""}));
  EXPECT_EQ(*ParseS3Url("s3://models/a/b//"), (S3Location{"", "models", "a/b/"}));
}

TEST(S3UrlTest, HostAndPortMeanAnHttpEndpoint) {
  EXPECT_EQ(*ParseS3Url("s3://127.0.0.1:7070/bucket/repo"),
            (S3Location{"http://127.0.0.1:7070", "bucket", "repo/"}));
  EXPECT_EQ(*ParseS3Url("s3://s3.local:9000/bucket"),
            (S3Location{"http://s3.local:9000", "bucket", ""}));
}

TEST(S3UrlTest, ExplicitScheme) {
  EXPECT_EQ(*ParseS3Url("s3://https://s3.example.com:443/bucket/m"),
            (S3Location{"https://s3.example.com:443", "bucket", "m/"}));
  EXPECT_EQ(*ParseS3Url("s3://http://localhost:80/bucket"),
            (S3Location{"http://localhost:80", "bucket", ""}));
}

TEST(S3UrlTest, Refusals) {
  for (const char* url : {"s3://", "s3:///path", "s3://host:port/bucket", "s3://host:70000x/b",
                          "s3://127.0.0.1:7070", "s3://https://host/bucket", "s3://a/b",
                          "s3://bad bucket/x", "s3://bucket/a//b", "gs://bucket/x"}) {
    auto parsed = ParseS3Url(url);
    EXPECT_FALSE(parsed.ok()) << url;
    EXPECT_THAT(parsed.status().message(), HasSubstr("is not a valid S3 URL")) << url;
  }
}

TEST(S3UrlTest, UriEncoding) {
  EXPECT_EQ(S3UriEncode("models/a b/1/model.onnx", true), "models/a%20b/1/model.onnx");
  EXPECT_EQ(S3UriEncode("models/", false), "models%2F");
  EXPECT_EQ(S3UriEncode("a+b=c~d_e.f-g", false), "a%2Bb%3Dc~d_e.f-g");
  EXPECT_EQ(S3UriEncode("\xc3\xa9", false), "%C3%A9");
}

}  // namespace
}  // namespace inferd::repository
