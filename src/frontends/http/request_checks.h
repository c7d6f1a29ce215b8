// SPDX-License-Identifier: Apache-2.0
// Request-header checks that Boost.Beast 1.74 does not make itself (it accepts all of these):
// obsolete line folding, transfer codings other than plain chunked, chunked
// together with Content-Length, and HTTP/1.1 without exactly one Host.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "boost/beast/http/fields.hpp"

namespace inferd::frontends::http {

// `raw_header` is the header block as received, up to and including the
// blank line. InvalidArgument when a header line is folded (starts with
// space or tab), which Beast would silently join.
absl::Status CheckRawHeader(std::string_view raw_header);

// InvalidArgument for the cases above. `version` is 10 or 11.
absl::Status CheckRequestHeader(const boost::beast::http::fields& fields, unsigned version);

}  // namespace inferd::frontends::http
