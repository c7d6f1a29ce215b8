// SPDX-License-Identifier: Apache-2.0
// Where the S3 store finds its credentials and region: the AWS CLI's usual
// environment variables, then its shared credentials file. Read again for
// every refresh, so rotated credentials are picked up without a restart.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace inferd::repository {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty unless temporary credentials
  std::string origin;         // where they came from, for messages

  bool operator==(const AwsCredentials&) const = default;
};

// A variable's value, or nullopt when unset (injected by tests).
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvironmentLookup ProcessEnvironment();

// AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN); else the
// profile AWS_PROFILE (default "default") of AWS_SHARED_CREDENTIALS_FILE
// (default ~/.aws/credentials). nullopt (unsigned, anonymous requests) when
// neither has any; an error for half a key pair, an unreadable file, or a
// profile asked for by name that the file lacks.
absl::StatusOr<std::optional<AwsCredentials>> ResolveAwsCredentials(const EnvironmentLookup& env);

// The profile's keys in a credentials file's text (INI: "[profile]" then
// "key = value" lines; '#' and ';' start comments). nullopt when the file
// has no such profile; an error when the profile lacks a key.
absl::StatusOr<std::optional<AwsCredentials>> ParseAwsCredentialsFile(std::string_view text,
                                                                      std::string_view profile,
                                                                      std::string_view origin);

// AWS_REGION, then AWS_DEFAULT_REGION, then "us-east-1".
std::string ResolveAwsRegion(const EnvironmentLookup& env);

}  // namespace inferd::repository
