// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/compression.h"

#include <zlib.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace inferd::frontends::http {
namespace {

using ::inferd::frontends::http::testing::StatusIs;

std::string Pack(std::string_view data, ContentCoding coding) {
  const std::vector<std::string_view> pieces{data};
  return *Compress(pieces, coding);
}

TEST(CompressionTest, ParsesContentEncoding) {
  EXPECT_EQ(ParseContentEncoding(""), ContentCoding::kIdentity);
  EXPECT_EQ(ParseContentEncoding("identity"), ContentCoding::kIdentity);
  EXPECT_EQ(ParseContentEncoding("gzip"), ContentCoding::kGzip);
  EXPECT_EQ(ParseContentEncoding(" GZIP "), ContentCoding::kGzip);
  EXPECT_EQ(ParseContentEncoding("deflate"), ContentCoding::kDeflate);
  EXPECT_EQ(ParseContentEncoding("br"), std::nullopt);
  EXPECT_EQ(ParseContentEncoding("gzip, deflate"), std::nullopt);
}

TEST(CompressionTest, ChoosesResponseCodingByWeight) {
  EXPECT_EQ(ChooseResponseCoding(""), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseResponseCoding("gzip"), ContentCoding::kGzip);
  EXPECT_EQ(ChooseResponseCoding("gzip, deflate"), ContentCoding::kGzip);  // first wins a tie
  EXPECT_EQ(ChooseResponseCoding("deflate, gzip"), ContentCoding::kDeflate);
  EXPECT_EQ(ChooseResponseCoding("gzip;q=0.4, deflate;q=0.5"), ContentCoding::kDeflate);
  EXPECT_EQ(ChooseResponseCoding("gzip;q=0"), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseResponseCoding("br, zstd"), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseResponseCoding("identity;q=1, gzip;q=0.9"), ContentCoding::kIdentity);
  EXPECT_EQ(ChooseResponseCoding("gzip;q=abc, deflate"), ContentCoding::kDeflate);
  EXPECT_EQ(ChooseResponseCoding("gzip ; q=0.8 , deflate;q=0.2"), ContentCoding::kGzip);
}

TEST(CompressionTest, RoundTrips) {
  const std::string data(100000, 'x');
  for (ContentCoding coding : {ContentCoding::kGzip, ContentCoding::kDeflate}) {
    const std::string packed = Pack(data, coding);
    EXPECT_LT(packed.size(), data.size());
    EXPECT_EQ(*Decompress(packed, coding, data.size()), data);
  }
  // Pieces are compressed as one stream.
  const std::vector<std::string_view> pieces{"ab", "", "cd"};
  EXPECT_EQ(*Decompress(*Compress(pieces, ContentCoding::kGzip), ContentCoding::kGzip, 10), "abcd");
  EXPECT_EQ(*Decompress("plain", ContentCoding::kIdentity, 10), "plain");
  EXPECT_EQ(*Decompress(Pack("", ContentCoding::kGzip), ContentCoding::kGzip, 10), "");
}

TEST(CompressionTest, GzipHeaderIsStandardAndDeflateIsZlib) {
  const std::string gz = Pack("hello", ContentCoding::kGzip);
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  // zlib.compress output (what the Python client sends for "deflate").
  uLongf size = compressBound(5);
  std::string zlib_stream(size, '\0');
  ASSERT_EQ(compress(reinterpret_cast<Bytef*>(zlib_stream.data()), &size,
                     reinterpret_cast<const Bytef*>("hello"), 5),
            Z_OK);
  zlib_stream.resize(size);
  EXPECT_EQ(*Decompress(zlib_stream, ContentCoding::kDeflate, 5), "hello");
}

TEST(CompressionTest, BoundsDecompressedSize) {
  const std::string bomb = Pack(std::string(10 << 20, '\0'), ContentCoding::kGzip);
  EXPECT_LT(bomb.size(), 64u * 1024);
  EXPECT_THAT(Decompress(bomb, ContentCoding::kGzip, 1 << 20).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "exceeds"));
  EXPECT_THAT(Decompress("12345", ContentCoding::kIdentity, 4).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "exceeds"));
  const std::string exact = Pack("abcd", ContentCoding::kDeflate);
  EXPECT_EQ(*Decompress(exact, ContentCoding::kDeflate, 4), "abcd");
  EXPECT_FALSE(Decompress(exact, ContentCoding::kDeflate, 3).ok());
}

TEST(CompressionTest, RejectsCorruptStreams) {
  const std::string packed = Pack(std::string(1000, 'y'), ContentCoding::kGzip);
  EXPECT_THAT(
      Decompress(packed.substr(0, packed.size() / 2), ContentCoding::kGzip, 1 << 20).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "truncated"));
  EXPECT_THAT(Decompress("not gzip at all", ContentCoding::kGzip, 1 << 20).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "malformed"));
  EXPECT_THAT(Decompress("not zlib", ContentCoding::kDeflate, 1 << 20).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
  const std::string deflated = Pack("abc", ContentCoding::kDeflate);
  EXPECT_THAT(Decompress(deflated + "junk", ContentCoding::kDeflate, 1 << 20).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "after the end"));
  EXPECT_FALSE(Decompress("", ContentCoding::kGzip, 10).ok());
}

TEST(CompressionTest, AcceptsConcatenatedGzipMembers) {
  const std::string two = Pack("ab", ContentCoding::kGzip) + Pack("cd", ContentCoding::kGzip);
  EXPECT_EQ(*Decompress(two, ContentCoding::kGzip, 10), "abcd");
}

}  // namespace
}  // namespace inferd::frontends::http
