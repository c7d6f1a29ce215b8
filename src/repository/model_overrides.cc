// SPDX-License-Identifier: Apache-2.0
#include "repository/model_overrides.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/json_util.h"
#include "repository/model_versions.h"

namespace inferd::repository {
namespace {

std::string ErrnoText(int error) {
  char buffer[256];
  // GNU strerror_r: returns the message, which may or may not be `buffer`.
  return std::string(strerror_r(error, buffer, sizeof(buffer)));
}

// OK when `key` is "<version>/<relative path>" with a valid version folder
// name and a path made of plain names (no "", "." or ".." segments).
absl::Status CheckFileKey(const std::string& key) {
  auto invalid = [&key](std::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid model file parameter 'file:", key,
                     "': ", absl::string_view(why.data(), why.size())));
  };
  if (key.find('\0') != std::string::npos) return invalid("the path contains a NUL byte");
  const size_t slash = key.find('/');
  if (slash == std::string::npos) {
    return invalid("expected '<version>/<path>', e.g. '1/model.onnx'");
  }
  if (!ParseVersionFolder(std::string_view(key).substr(0, slash))) {
    return invalid(
        "the first path segment must be a version number (decimal digits, no leading zero)");
  }
  const std::string_view path = std::string_view(key).substr(slash + 1);
  if (path.empty()) return invalid("the path after the version is empty");
  if (path.front() == '/') return invalid("the path after the version must be relative");
  for (absl::string_view segment :
       absl::StrSplit(absl::string_view(path.data(), path.size()), '/')) {
    if (segment.empty() || segment == "." || segment == "..") {
      return invalid("the path must be made of plain names (no empty, '.' or '..' segments)");
    }
  }
  return absl::OkStatus();
}

absl::Status WriteBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot create folder '", path.parent_path().string(), "': ", ec.message()));
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot create '", path.string(), "': ", ErrnoText(errno)));
  }
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return absl::InternalError(
          absl::StrCat("cannot write '", path.string(), "': ", ErrnoText(error)));
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot write '", path.string(), "': ", ErrnoText(errno)));
  }
  return absl::OkStatus();
}

// protobuf's JSON syntax errors come as three lines: the problem, a piece of
// the input and a caret under the spot. One line reads better in an HTTP or
// gRPC error: "<problem> (after '<input up to the caret>')".
std::string OneLine(const std::string& message) {
  const std::vector<std::string> lines = absl::StrSplit(message, '\n');
  if (lines.size() != 3) return absl::StrJoin(lines, " ");
  const size_t caret = lines[2].find('^');
  if (caret == std::string::npos) return absl::StrJoin(lines, " ");
  const std::string context = lines[1].substr(0, std::min(caret, lines[1].size()));
  if (context.empty()) return lines[0];
  return absl::StrCat(lines[0], " (after '", context, "')");
}

}  // namespace

absl::StatusOr<inference::ModelConfig> ParseModelConfigJson(const std::string& json) {
  inference::ModelConfig config;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(json, &config, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid model config JSON: ", OneLine(status.message().ToString())));
  }
  return config;
}

absl::StatusOr<std::shared_ptr<OverrideModelFolder>> OverrideModelFolder::Create(
    const std::string& model_name, const std::map<std::string, std::string>& files) {
  if (model_name.empty() || model_name == "." || model_name == ".." ||
      model_name.find('/') != std::string::npos || model_name.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid model name '", model_name, "' for a model folder"));
  }
  // Check every key before anything is written.
  for (const auto& [key, bytes] : files) {
    if (absl::Status status = CheckFileKey(key); !status.ok()) return status;
  }

  std::error_code ec;
  const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) {
    return absl::InternalError(absl::StrCat("cannot find the temporary folder: ", ec.message()));
  }
  std::string pattern = (tmp / "inferd-model-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create a folder like '", pattern, "': ", ErrnoText(errno)));
  }
  const std::filesystem::path model_directory = std::filesystem::path(pattern) / model_name;
  // Owned from here on, so that every failure below removes what was written.
  std::shared_ptr<OverrideModelFolder> folder(
      new OverrideModelFolder(pattern, model_directory.string()));
  std::filesystem::create_directory(model_directory, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot create folder '", model_directory.string(), "': ", ec.message()));
  }
  for (const auto& [key, bytes] : files) {
    if (absl::Status status = WriteBytes(model_directory / key, bytes); !status.ok()) return status;
  }
  return folder;
}

OverrideModelFolder::~OverrideModelFolder() {
  std::error_code ec;
  std::filesystem::remove_all(root_, ec);
}

}  // namespace inferd::repository
