// SPDX-License-Identifier: Apache-2.0
// ObjectStore over S3's REST API with libcurl: ListObjectsV2 and GetObject,
// signed with AWS Signature Version 4 by libcurl itself (CURLOPT_AWS_SIGV4),
// over HTTP or HTTPS (the system's CA certificates, or AWS_CA_BUNDLE).
// A custom endpoint is addressed path-style (endpoint/bucket/key), as
// S3-compatible servers expect; AWS itself virtual-hosted
// (bucket.s3.region.amazonaws.com/key).
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "repository/aws_credentials.h"
#include "repository/object_store.h"
#include "repository/s3_url.h"

namespace inferd::repository {

class S3Store final : public ObjectStore {
 public:
  // `url` as given (s3://...); `endpoint` is SourceOptions::s3_endpoint.
  // InvalidArgument for a bad URL or endpoint.
  static absl::StatusOr<std::unique_ptr<S3Store>> Create(const std::string& url,
                                                         const std::string& endpoint,
                                                         EnvironmentLookup env);
  ~S3Store() override;

  const std::string& url() const override { return url_; }
  absl::StatusOr<std::vector<ObjectInfo>> List() override;
  absl::Status Fetch(const ObjectInfo& object, const std::string& path) override;

  // Where requests go, for tests and messages: "http://host:port/bucket"
  // or "https://bucket.s3.region.amazonaws.com".
  const std::string& base_url() const { return base_url_; }

 private:
  struct Response;
  S3Store(std::string url, S3Location location, std::string base_url, std::string region,
          EnvironmentLookup env);
  // One signed GET. With `file`, a 200 answer's body goes there; any other
  // answer's body (S3's error XML) to Response::body.
  absl::StatusOr<Response> Get(const std::string& request_url, std::FILE* file);
  absl::Status HttpError(const Response& response, absl::string_view what) const;

  const std::string url_;
  const S3Location location_;
  const std::string base_url_;
  const std::string region_;
  const EnvironmentLookup env_;
  std::mutex mu_;  // one request at a time on the handle (reused: keeps its connection)
  void* curl_ = nullptr;
  // Resolved at each List(), used by the Fetches that follow it.
  std::optional<AwsCredentials> credentials_;
};

}  // namespace inferd::repository
