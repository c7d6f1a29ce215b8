// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/request_checks.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "frontends/http/string_view_util.h"

namespace inferd::frontends::http {

namespace http = boost::beast::http;

absl::Status CheckRawHeader(std::string_view raw_header) {
  // Skip the request line; any later line starting with SP/HTAB is a fold.
  size_t pos = raw_header.find('\n');
  while (pos != std::string_view::npos && pos + 1 < raw_header.size()) {
    const char next = raw_header[pos + 1];
    if (next == ' ' || next == '\t') {
      return absl::InvalidArgumentError("folded header lines (obs-fold) are not accepted");
    }
    pos = raw_header.find('\n', pos + 1);
  }
  return absl::OkStatus();
}

absl::Status CheckRequestHeader(const http::fields& fields, unsigned version) {
  size_t transfer_encodings = 0;
  size_t hosts = 0;
  for (const auto& field : fields) {
    if (field.name() == http::field::transfer_encoding) {
      ++transfer_encodings;
      const std::string_view value(field.value().data(), field.value().size());
      if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(AsAbsl(value)), "chunked")) {
        return absl::InvalidArgumentError(
            "only 'Transfer-Encoding: chunked' is accepted; use Content-Encoding to compress");
      }
    } else if (field.name() == http::field::host) {
      ++hosts;
    }
  }
  if (transfer_encodings > 1) {
    return absl::InvalidArgumentError("Transfer-Encoding may be given only once");
  }
  if (transfer_encodings == 1 && fields.count(http::field::content_length) > 0) {
    return absl::InvalidArgumentError(
        "a request may not carry both Transfer-Encoding and Content-Length");
  }
  if (version == 10 && transfer_encodings > 0) {
    return absl::InvalidArgumentError("HTTP/1.0 requests may not use Transfer-Encoding");
  }
  if (version >= 11 && hosts != 1) {
    return absl::InvalidArgumentError("HTTP/1.1 requests need exactly one Host header");
  }
  return absl::OkStatus();
}

}  // namespace inferd::frontends::http
