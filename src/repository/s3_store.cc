// SPDX-License-Identifier: Apache-2.0
#include "repository/s3_store.h"

#include <curl/curl.h>

#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "repository/s3_listing_xml.h"

namespace inferd::repository {
namespace {

constexpr size_t kMaxErrorBody = 64 * 1024;
// S3 wants the payload's SHA-256 in a signed x-amz-content-sha256 header.
// libcurl 7.88 signs the headers it is given but adds this one only from
// 8.x on, so it is set here: every request is a GET without a body, and this
// is the hash of the empty string (which libcurl signs as the payload hash).
constexpr char kEmptyPayloadHeader[] =
    "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

absl::StatusOr<std::string> NormalizeEndpoint(std::string endpoint, absl::string_view origin) {
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  if (!absl::StartsWith(endpoint, "http://") && !absl::StartsWith(endpoint, "https://")) {
    return absl::InvalidArgumentError(absl::StrCat("the S3 endpoint '", endpoint, "' (", origin,
                                                   ") must start with http:// or https://"));
  }
  return endpoint;
}

absl::StatusCode CodeForHttp(long status) {
  switch (status) {
    case 400:
      return absl::StatusCode::kInvalidArgument;
    case 401:
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 301:
    case 307:
      return absl::StatusCode::kFailedPrecondition;  // another region's endpoint
    case 412:
      return absl::StatusCode::kAborted;
    default:
      return status >= 500 ? absl::StatusCode::kUnavailable : absl::StatusCode::kUnknown;
  }
}

}  // namespace

struct S3Store::Response {
  long status = 0;
  std::string body;  // the answer's body unless it went to a file
  std::string etag;  // the ETag header, unquoted
  uint64_t file_bytes = 0;
  std::FILE* file = nullptr;
  void* curl = nullptr;
};

absl::StatusOr<std::unique_ptr<S3Store>> S3Store::Create(const std::string& url,
                                                         const std::string& endpoint,
                                                         EnvironmentLookup env) {
  auto location = ParseS3Url(url);
  if (!location.ok()) return location.status();
  const std::string region = ResolveAwsRegion(env);
  std::string chosen;
  std::string origin;
  if (!location->endpoint.empty()) {
    chosen = location->endpoint;
    origin = "from the URL";
  } else if (!endpoint.empty()) {
    chosen = endpoint;
    origin = "--s3-endpoint";
  } else if (auto value = env("AWS_ENDPOINT_URL_S3"); value && !value->empty()) {
    chosen = *value;
    origin = "AWS_ENDPOINT_URL_S3";
  } else if (auto value = env("AWS_ENDPOINT_URL"); value && !value->empty()) {
    chosen = *value;
    origin = "AWS_ENDPOINT_URL";
  }
  std::string base_url;
  if (chosen.empty()) {
    base_url = absl::StrCat("https://", location->bucket, ".s3.", region, ".amazonaws.com");
  } else {
    auto normalized = NormalizeEndpoint(chosen, origin);
    if (!normalized.ok()) return normalized.status();
    base_url = absl::StrCat(*normalized, "/", location->bucket);
  }
  GlobalInitOnce();
  return std::unique_ptr<S3Store>(
      new S3Store(url, *std::move(location), std::move(base_url), region, std::move(env)));
}

S3Store::S3Store(std::string url, S3Location location, std::string base_url, std::string region,
                 EnvironmentLookup env)
    : url_(std::move(url)),
      location_(std::move(location)),
      base_url_(std::move(base_url)),
      region_(std::move(region)),
      env_(std::move(env)),
      curl_(curl_easy_init()) {}

S3Store::~S3Store() {
  if (curl_ != nullptr) curl_easy_cleanup(static_cast<CURL*>(curl_));
}

absl::StatusOr<S3Store::Response> S3Store::Get(const std::string& request_url, std::FILE* file) {
  std::lock_guard<std::mutex> lock(mu_);
  CURL* curl = static_cast<CURL*>(curl_);
  if (curl == nullptr) return absl::ResourceExhaustedError("cannot create a libcurl handle");
  curl_easy_reset(curl);  // keeps the connection cache
  Response response;
  response.file = file;
  response.curl = curl;
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, request_url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
  // A transfer that stalls (under 1 byte/s for 30 s) fails instead of hanging
  // the poll; a large model may take as long as it needs otherwise.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 30L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  if (auto bundle = env_("AWS_CA_BUNDLE"); bundle && !bundle->empty()) {
    curl_easy_setopt(curl, CURLOPT_CAINFO, bundle->c_str());
  }
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char* data, size_t size, size_t count, void* user) {
        auto* r = static_cast<Response*>(user);
        const size_t bytes = size * count;
        long status = 0;
        curl_easy_getinfo(static_cast<CURL*>(r->curl), CURLINFO_RESPONSE_CODE, &status);
        if (r->file != nullptr && status == 200) {
          if (std::fwrite(data, 1, bytes, r->file) != bytes) return size_t{0};  // disk full
          r->file_bytes += bytes;
          return bytes;
        }
        if (r->body.size() < kMaxErrorBody || r->file == nullptr) r->body.append(data, bytes);
        return bytes;
      });
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(
      curl, CURLOPT_HEADERFUNCTION, +[](char* data, size_t size, size_t count, void* user) {
        const size_t bytes = size * count;
        absl::string_view line(data, bytes);
        if (absl::StartsWithIgnoreCase(line, "etag:")) {
          absl::string_view value = absl::StripAsciiWhitespace(line.substr(5));
          if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
            value = value.substr(1, value.size() - 2);
          }
          static_cast<Response*>(user)->etag = std::string(value);
        }
        return bytes;
      });
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response);
  curl_slist* headers = nullptr;
  const std::string sigv4 = absl::StrCat("aws:amz:", region_, ":s3");
  if (credentials_) {
    headers = curl_slist_append(headers, kEmptyPayloadHeader);
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4.c_str());
    curl_easy_setopt(curl, CURLOPT_USERNAME, credentials_->access_key_id.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, credentials_->secret_access_key.c_str());
    if (!credentials_->session_token.empty()) {
      const std::string token = absl::StrCat("x-amz-security-token: ", credentials_->session_token);
      headers = curl_slist_append(headers, token.c_str());
    }
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  const CURLcode code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  curl_slist_free_all(headers);
  response.file = nullptr;
  response.curl = nullptr;
  if (code != CURLE_OK) {
    // Each a network (or disk) failure: retrying later may succeed.
    return absl::UnavailableError(
        absl::StrCat(code == CURLE_WRITE_ERROR ? "cannot write the file" : curl_easy_strerror(code),
                     error_buffer[0] != '\0' ? absl::StrCat(" (", error_buffer, ")") : ""));
  }
  return response;
}

absl::Status S3Store::HttpError(const Response& response, absl::string_view what) const {
  std::string detail;
  if (auto error = ParseS3Error(response.body)) {
    detail = absl::StrCat(" ", error->code, ": ", error->message);
  }
  std::string hint;
  if (response.status == 403) {
    hint = credentials_ ? absl::StrCat(" (credentials from ", credentials_->origin, ")")
                        : " (no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                          "or a credentials file)";
  }
  return absl::Status(CodeForHttp(response.status), absl::StrCat(url_, ": ", what, " failed: HTTP ",
                                                                 response.status, detail, hint));
}

absl::StatusOr<std::vector<ObjectInfo>> S3Store::List() {
  auto credentials = ResolveAwsCredentials(env_);
  if (!credentials.ok()) {
    return absl::Status(
        credentials.status().code(),
        absl::StrCat(url_, ": no usable credentials: ", credentials.status().message()));
  }
  credentials_ = *std::move(credentials);
  std::vector<ObjectInfo> objects;
  std::string token;
  // Parameters in sorted order and S3-encoded: that is their SigV4
  // canonical form. libcurl 7.88 signs the query string as written (sorting
  // came in 8.x), so written any other way S3 would refuse the signature.
  const std::string list_url = absl::StrCat(base_url_, location_.endpoint.empty() ? "/" : "");
  do {
    std::string request_url = absl::StrCat(list_url, "?");
    if (!token.empty()) {
      absl::StrAppend(&request_url, "continuation-token=", S3UriEncode(token, false), "&");
    }
    absl::StrAppend(&request_url, "list-type=2&prefix=", S3UriEncode(location_.prefix, false));
    auto response = Get(request_url, nullptr);
    if (!response.ok()) {
      return absl::Status(
          response.status().code(),
          absl::StrCat(url_, ": cannot list the objects: ", response.status().message()));
    }
    if (response->status != 200) return HttpError(*response, "listing the objects");
    auto page = ParseListObjectsV2(response->body);
    if (!page.ok()) {
      return absl::Status(page.status().code(), absl::StrCat(url_, ": ", page.status().message()));
    }
    for (auto& object : page->objects) {
      if (!absl::StartsWith(object.key, location_.prefix)) continue;
      object.key.erase(0, location_.prefix.size());
      objects.push_back(std::move(object));
    }
    token = page->truncated ? page->next_continuation_token : "";
  } while (!token.empty());
  return objects;
}

absl::Status S3Store::Fetch(const ObjectInfo& object, const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create '", path, "'"));
  }
  // Same-origin path-style for a custom endpoint; "/" then the key for AWS.
  const std::string request_url =
      absl::StrCat(base_url_, "/", S3UriEncode(location_.prefix + object.key, true));
  auto response = Get(request_url, file);
  const bool closed = std::fclose(file) == 0;
  const std::string what = absl::StrCat("'", object.key, "'");
  if (!response.ok()) {
    return absl::Status(response.status().code(),
                        absl::StrCat("downloading ", what, " from ", url_,
                                     " failed: ", response.status().message()));
  }
  if (response->status != 200) return HttpError(*response, absl::StrCat("downloading ", what));
  if (!closed) return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  if (response->file_bytes != object.size ||
      (!response->etag.empty() && !object.etag.empty() && response->etag != object.etag)) {
    return absl::AbortedError(absl::StrCat(
        what, " changed while it was downloaded (listed ", object.size, " bytes, ETag ",
        object.etag, "; got ", response->file_bytes, " bytes, ETag ", response->etag, ")"));
  }
  return absl::OkStatus();
}

}  // namespace inferd::repository
