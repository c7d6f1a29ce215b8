// SPDX-License-Identifier: Apache-2.0
// HTTP body compression as Triton does it: request Content-Encoding
// gzip/deflate(zlib stream)/identity, response coding chosen from
// Accept-Encoding q-weights. Decompression is bounded so that a small
// compressed body cannot expand without limit.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace inferd::frontends::http {

enum class ContentCoding { kIdentity, kGzip, kDeflate };

// Content-Encoding of a request: empty or "identity" -> kIdentity; nullopt
// for a coding we do not decode (answered with 501).
std::optional<ContentCoding> ParseContentEncoding(std::string_view header);
// The coding of the response: the acceptable one (q > 0) among identity,
// gzip and deflate with the highest weight; the first listed wins a tie.
ContentCoding ChooseResponseCoding(std::string_view accept_encoding);
// "gzip", "deflate" or "identity".
std::string_view ContentCodingName(ContentCoding coding);

// InvalidArgument for a corrupt or truncated stream, or when the output would
// exceed `max_output` bytes.
absl::StatusOr<std::string> Decompress(std::string_view data, ContentCoding coding,
                                       size_t max_output);
// Compresses the concatenation of `pieces`. Internal on a zlib failure.
absl::StatusOr<std::string> Compress(absl::Span<const std::string_view> pieces,
                                     ContentCoding coding);

}  // namespace inferd::frontends::http
