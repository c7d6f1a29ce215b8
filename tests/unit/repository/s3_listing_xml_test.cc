// SPDX-License-Identifier: Apache-2.0
// ListObjectsV2 pages and S3 error bodies, as S3 (and versitygw) write them.
#include "repository/s3_listing_xml.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::repository {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kPage[] = R"(<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>bucket</Name><Prefix>repo/</Prefix><KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys>
  <IsTruncated>true</IsTruncated>
  <Contents><Key>repo/simple/config.pbtxt</Key><LastModified>2026-12-02T10:00:00.000Z</LastModified>
    <ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>412</Size>
    <StorageClass>STANDARD</StorageClass></Contents>
  <Contents><Key>repo/simple/1/model &amp; more.onnx</Key>
    <ETag>"d41d8cd98f00b204e9800998ecf8427e-2"</ETag><Size>10485760</Size></Contents>
  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
</ListBucketResult>)";

TEST(S3ListingXmlTest, ParsesAPage) {
  auto page = ParseListObjectsV2(kPage);
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_THAT(page->objects, ElementsAre(ObjectInfo{"repo/simple/config.pbtxt", 412,
                                                    "9b2cf535f27731c974343645a3985328"},
                                         ObjectInfo{"repo/simple/1/model & more.onnx", 10485760,
                                                    "d41d8cd98f00b204e9800998ecf8427e-2"}));
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_continuation_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
}

TEST(S3ListingXmlTest, EmptyLastPage) {
  auto page = ParseListObjectsV2(
      "<ListBucketResult><Name>b</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated>"
      "</ListBucketResult>");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_TRUE(page->objects.empty());
  EXPECT_FALSE(page->truncated);
}

TEST(S3ListingXmlTest, Refusals) {
  EXPECT_THAT(ParseListObjectsV2("<ListBucketResult><Contents>").status().message(),
              HasSubstr("not valid XML"));
  EXPECT_THAT(ParseListObjectsV2("<Error><Code>X</Code></Error>").status().message(),
              HasSubstr("not a ListBucketResult"));
  EXPECT_THAT(ParseListObjectsV2("<ListBucketResult><Contents><Key>a</Key><Size>big</Size>"
                                 "</Contents></ListBucketResult>")
                  .status()
                  .message(),
              HasSubstr("not a number"));
  EXPECT_THAT(ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated>"
                                 "</ListBucketResult>")
                  .status()
                  .message(),
              HasSubstr("no NextContinuationToken"));
}

TEST(S3ListingXmlTest, ErrorBody) {
  auto error = ParseS3Error(
      "<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket "
      "does not exist</Message><BucketName>x</BucketName></Error>");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->code, "NoSuchBucket");
  EXPECT_EQ(error->message, "The specified bucket does not exist");
  EXPECT_FALSE(ParseS3Error("").has_value());
  EXPECT_FALSE(ParseS3Error("<html>502 Bad Gateway</html>").has_value());
}

}  // namespace
}  // namespace inferd::repository
