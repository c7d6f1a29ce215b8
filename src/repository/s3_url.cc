// SPDX-License-Identifier: Apache-2.0
#include "repository/s3_url.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace inferd::repository {
namespace {

constexpr absl::string_view kScheme = "s3://";

bool IsPort(absl::string_view text) {
  return !text.empty() && text.size() <= 5 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// S3's bucket naming rules, loosely: 3-63 of [a-z0-9.-_] (the underscore
// and capitals for older buckets and S3-compatible servers).
bool IsBucketName(absl::string_view name) {
  if (name.size() < 3 || name.size() > 63) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == '_';
  });
}

}  // namespace

bool IsS3Url(std::string_view spec) {
  return absl::StartsWith(absl::string_view(spec.data(), spec.size()), kScheme);
}

absl::StatusOr<S3Location> ParseS3Url(std::string_view url_text) {
  const absl::string_view url(url_text.data(), url_text.size());
  auto invalid = [url](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("model repository '", url, "' is not a valid S3 URL: ", why,
                     " (s3://bucket/path, s3://host:port/bucket/path or "
                     "s3://https://host:port/bucket/path)"));
  };
  if (!absl::StartsWith(url, kScheme)) return invalid("it does not start with s3://");
  absl::string_view rest = url.substr(kScheme.size());
  S3Location location;
  std::string scheme = "http://";
  for (absl::string_view explicit_scheme : {"http://", "https://"}) {
    if (absl::StartsWith(rest, explicit_scheme)) {
      scheme = std::string(explicit_scheme);
      rest.remove_prefix(explicit_scheme.size());
    }
  }
  const bool scheme_given = rest.size() != url.size() - kScheme.size();
  const size_t slash = rest.find('/');
  absl::string_view first = rest.substr(0, slash);
  const size_t colon = first.rfind(':');
  if (colon != absl::string_view::npos) {
    const absl::string_view host = first.substr(0, colon);
    if (host.empty() || !IsPort(first.substr(colon + 1))) {
      return invalid(absl::StrCat("'", first, "' is not host:port"));
    }
    location.endpoint = absl::StrCat(scheme, first);
    if (slash == absl::string_view::npos) return invalid("it names no bucket");
    rest.remove_prefix(slash + 1);
  } else if (scheme_given) {
    return invalid(absl::StrCat("an endpoint needs a port ('", first, "')"));
  }
  const size_t bucket_end = rest.find('/');
  location.bucket = std::string(rest.substr(0, bucket_end));
  if (location.bucket.empty()) return invalid("it names no bucket");
  if (!IsBucketName(location.bucket)) {
    return invalid(absl::StrCat("'", location.bucket, "' is not a bucket name"));
  }
  if (bucket_end != absl::string_view::npos) {
    absl::string_view path = rest.substr(bucket_end + 1);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    if (absl::StrContains(path, "//")) return invalid("its path has an empty segment");
    if (!path.empty()) location.prefix = absl::StrCat(path, "/");
  }
  return location;
}

std::string S3UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
                            c == '~' || (keep_slash && c == '/');
    if (unreserved) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace inferd::repository
