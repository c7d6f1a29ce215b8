// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/request_checks.h"

#include "gtest/gtest.h"

namespace inferd::frontends::http {
namespace {

namespace bhttp = boost::beast::http;

TEST(RequestChecksTest, RefusesFoldedHeaders) {
  EXPECT_TRUE(CheckRawHeader("GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n\r\n").ok());
  EXPECT_FALSE(CheckRawHeader("GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n c\r\n\r\n").ok());
  EXPECT_FALSE(CheckRawHeader("GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n\tc\r\n\r\n").ok());
}

TEST(RequestChecksTest, TransferEncoding) {
  bhttp::fields fields;
  fields.set(bhttp::field::host, "a");
  EXPECT_TRUE(CheckRequestHeader(fields, 11).ok());
  fields.set(bhttp::field::transfer_encoding, "chunked");
  EXPECT_TRUE(CheckRequestHeader(fields, 11).ok());
  EXPECT_FALSE(CheckRequestHeader(fields, 10).ok());
  fields.set(bhttp::field::transfer_encoding, "gzip, chunked");
  EXPECT_FALSE(CheckRequestHeader(fields, 11).ok());
  fields.set(bhttp::field::transfer_encoding, "chunked, gzip");
  EXPECT_FALSE(CheckRequestHeader(fields, 11).ok());
  fields.set(bhttp::field::transfer_encoding, "identity");
  EXPECT_FALSE(CheckRequestHeader(fields, 11).ok());
  fields.set(bhttp::field::transfer_encoding, "chunked");
  fields.insert(bhttp::field::transfer_encoding, "chunked");
  EXPECT_FALSE(CheckRequestHeader(fields, 11).ok());
}

TEST(RequestChecksTest, ChunkedWithContentLength) {
  bhttp::fields fields;
  fields.set(bhttp::field::host, "a");
  fields.set(bhttp::field::transfer_encoding, "chunked");
  fields.set(bhttp::field::content_length, "5");
  EXPECT_FALSE(CheckRequestHeader(fields, 11).ok());
}

TEST(RequestChecksTest, Http11NeedsExactlyOneHost) {
  bhttp::fields fields;
  EXPECT_FALSE(CheckRequestHeader(fields, 11).ok());
  EXPECT_TRUE(CheckRequestHeader(fields, 10).ok());
  fields.insert(bhttp::field::host, "a");
  fields.insert(bhttp::field::host, "b");
  EXPECT_FALSE(CheckRequestHeader(fields, 11).ok());
}

}  // namespace
}  // namespace inferd::frontends::http
