// SPDX-License-Identifier: Apache-2.0
#include "repository/aws_credentials.h"

#include <cstdlib>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file_system.h"

namespace inferd::repository {
namespace {

std::optional<std::string> NonEmpty(const EnvironmentLookup& env, const std::string& name) {
  auto value = env(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

}  // namespace

EnvironmentLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

absl::StatusOr<std::optional<AwsCredentials>> ParseAwsCredentialsFile(std::string_view text_in,
                                                                      std::string_view profile_in,
                                                                      std::string_view origin_in) {
  const absl::string_view text(text_in.data(), text_in.size());
  const absl::string_view profile(profile_in.data(), profile_in.size());
  const absl::string_view origin(origin_in.data(), origin_in.size());
  bool found = false;
  bool in_profile = false;
  std::map<std::string, std::string> keys;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      const auto name = absl::StripAsciiWhitespace(line.substr(1, line.size() - 2));
      in_profile = name == profile;
      found = found || in_profile;
      continue;
    }
    if (!in_profile) continue;
    const size_t equals = line.find('=');
    if (equals == absl::string_view::npos) continue;
    keys[absl::AsciiStrToLower(absl::StripAsciiWhitespace(line.substr(0, equals)))] =
        std::string(absl::StripAsciiWhitespace(line.substr(equals + 1)));
  }
  if (!found) return std::optional<AwsCredentials>();
  AwsCredentials credentials{keys["aws_access_key_id"], keys["aws_secret_access_key"],
                             keys["aws_session_token"],
                             absl::StrCat("profile '", profile, "' of ", origin)};
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(credentials.origin, " lacks aws_access_key_id or aws_secret_access_key"));
  }
  return std::optional<AwsCredentials>(std::move(credentials));
}

absl::StatusOr<std::optional<AwsCredentials>> ResolveAwsCredentials(const EnvironmentLookup& env) {
  const auto id = NonEmpty(env, "AWS_ACCESS_KEY_ID");
  const auto secret = NonEmpty(env, "AWS_SECRET_ACCESS_KEY");
  if (id || secret) {
    if (!id || !secret) {
      return absl::InvalidArgumentError(
          "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together");
    }
    return std::optional<AwsCredentials>(AwsCredentials{
        *id, *secret, NonEmpty(env, "AWS_SESSION_TOKEN").value_or(""), "the environment"});
  }
  const auto named_profile = NonEmpty(env, "AWS_PROFILE");
  const std::string profile = named_profile.value_or("default");
  std::string path;
  if (auto file = NonEmpty(env, "AWS_SHARED_CREDENTIALS_FILE")) {
    path = *file;
  } else if (auto home = NonEmpty(env, "HOME")) {
    path = absl::StrCat(*home, "/.aws/credentials");
  }
  if (path.empty() || !base::FileExists(path)) {
    if (named_profile) {
      return absl::NotFoundError(absl::StrCat(
          "AWS_PROFILE is '", profile, "' but there is no credentials file at '", path, "'"));
    }
    return std::optional<AwsCredentials>();
  }
  auto text = base::ReadFile(path);
  if (!text.ok()) {
    return absl::Status(text.status().code(), absl::StrCat("cannot read the AWS credentials file '",
                                                           path, "': ", text.status().message()));
  }
  auto parsed = ParseAwsCredentialsFile(*text, profile, absl::StrCat("'", path, "'"));
  if (parsed.ok() && !*parsed && named_profile) {
    return absl::NotFoundError(
        absl::StrCat("the AWS credentials file '", path, "' has no profile '", profile, "'"));
  }
  return parsed;
}

std::string ResolveAwsRegion(const EnvironmentLookup& env) {
  if (auto region = NonEmpty(env, "AWS_REGION")) return *region;
  if (auto region = NonEmpty(env, "AWS_DEFAULT_REGION")) return *region;
  return "us-east-1";
}

}  // namespace inferd::repository
