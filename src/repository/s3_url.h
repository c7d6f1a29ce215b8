// SPDX-License-Identifier: Apache-2.0
// Triton's spellings of an S3 model repository (docs/deployment.md, "Object
// storage"):
//   s3://bucket/path                       AWS (or the configured endpoint)
//   s3://host:port/bucket/path             an S3-compatible server over HTTP
//   s3://https://host:port/bucket/path     the same over HTTPS (http:// too)
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace inferd::repository {

struct S3Location {
  std::string endpoint;  // "http://host:port" / "https://host:port"; empty: not in the URL
  std::string bucket;
  std::string prefix;  // "" or "path/" (never a leading '/', always a trailing one)

  bool operator==(const S3Location&) const = default;
};

bool IsS3Url(std::string_view spec);
// InvalidArgument, saying what is wrong, for anything else.
absl::StatusOr<S3Location> ParseS3Url(std::string_view url);

// S3's URI encoding (SigV4): letters, digits and "-_.~" stay, every other
// byte is %XX (upper case); '/' stays too when `keep_slash`.
std::string S3UriEncode(std::string_view text, bool keep_slash);

}  // namespace inferd::repository
