// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/http_reply.h"

#include "absl/strings/str_cat.h"
#include "boost/beast/http/status.hpp"
#include "core/status_mapping.h"

namespace inferd::frontends::http {

size_t HttpReply::ContentLength() const {
  size_t total = body.size();
  for (const core::Buffer& buffer : tail) total += buffer.size;
  return total;
}

std::string SerializeReplyHead(const HttpReply& reply, unsigned version, bool close) {
  namespace http = boost::beast::http;
  const auto reason =
      http::obsolete_reason(http::int_to_status(static_cast<unsigned>(reply.status)));
  std::string head = absl::StrCat(version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ", reply.status, " ",
                                  absl::string_view(reason.data(), reason.size()), "\r\n");
  if (!reply.content_type.empty())
    absl::StrAppend(&head, "Content-Type: ", reply.content_type, "\r\n");
  for (const auto& [name, value] : reply.headers) absl::StrAppend(&head, name, ": ", value, "\r\n");
  absl::StrAppend(&head, "Content-Length: ", reply.ContentLength(), "\r\n");
  if (close) {
    head += "Connection: close\r\n";
  } else if (version == 10) {
    head += "Connection: keep-alive\r\n";
  }
  head += "\r\n";
  return head;
}

std::string SerializeStreamHead(const HttpReply& head, unsigned version, bool close) {
  namespace http = boost::beast::http;
  const auto reason =
      http::obsolete_reason(http::int_to_status(static_cast<unsigned>(head.status)));
  std::string text = absl::StrCat(version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ", head.status, " ",
                                  absl::string_view(reason.data(), reason.size()), "\r\n");
  if (!head.content_type.empty())
    absl::StrAppend(&text, "Content-Type: ", head.content_type, "\r\n");
  for (const auto& [name, value] : head.headers) absl::StrAppend(&text, name, ": ", value, "\r\n");
  if (version == 10) {
    text += "Connection: close\r\n";
  } else {
    text += "Transfer-Encoding: chunked\r\n";
    if (close) text += "Connection: close\r\n";
  }
  text += "\r\n";
  return text;
}

std::string ChunkFrame(std::string_view data) {
  return absl::StrCat(absl::Hex(data.size()), "\r\n", absl::string_view(data.data(), data.size()),
                      "\r\n");
}

HttpReply JsonReply(int status, std::string json) {
  HttpReply reply;
  reply.status = status;
  reply.content_type = "application/json";
  reply.body = std::move(json);
  return reply;
}

HttpReply EmptyReply(int status) {
  HttpReply reply;
  reply.status = status;
  return reply;
}

HttpReply ErrorReply(const absl::Status& status) {
  return ErrorReply(core::HttpStatusCode(status),
                    std::string_view(status.message().data(), status.message().size()));
}

HttpReply ErrorReply(int http_status, std::string_view message) {
  return JsonReply(http_status, core::ErrorJson(message));
}

}  // namespace inferd::frontends::http
