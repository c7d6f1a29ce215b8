// SPDX-License-Identifier: Apache-2.0
// An HTTP response as handlers produce it, before the session serializes it:
// status, headers, a body and binary tails written after the body without
// being copied (infer outputs).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/tensor.h"

namespace inferd::frontends::http {

struct HttpReply {
  int status = 200;
  std::string content_type;  // empty: no Content-Type header
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Sent after `body`, in order; the buffers' owners keep the bytes alive
  // until the write completes.
  std::vector<core::Buffer> tail;
  // Close the connection after this reply (the request was not fully read).
  bool close_connection = false;

  // Bytes of body plus tail.
  size_t ContentLength() const;
};

// Status line and headers for `reply` (Content-Length included), ending
// with the blank line. `version` is the request's (10 or 11); `close` adds
// "Connection: close", and an HTTP/1.0 reply that stays open says keep-alive.
std::string SerializeReplyHead(const HttpReply& reply, unsigned version, bool close);

// The status line and headers that open a streamed reply (Server-Sent
// Events): no Content-Length; "Transfer-Encoding: chunked" for HTTP/1.1, or
// for HTTP/1.0 a body that ends when the connection closes ("Connection:
// close"); `close` adds "Connection: close" to an HTTP/1.1 reply too.
std::string SerializeStreamHead(const HttpReply& head, unsigned version, bool close);
// One chunk of a chunked body: "<size in hex>\r\n<data>\r\n". Empty data is
// not a chunk (it would end the body): the caller sends kLastChunk instead.
std::string ChunkFrame(std::string_view data);
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

// 200-style reply with `json` as an application/json body.
HttpReply JsonReply(int status, std::string json);
// A reply with no body (health probes).
HttpReply EmptyReply(int status);
// {"error": message} with the KServe status for `status` (core::HttpStatusCode).
HttpReply ErrorReply(const absl::Status& status);
// {"error": message} with an explicit HTTP status (404/405/413 from routing).
HttpReply ErrorReply(int http_status, std::string_view message);

}  // namespace inferd::frontends::http
