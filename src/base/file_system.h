// SPDX-License-Identifier: Apache-2.0
// Small file-system helpers over std::filesystem that report errors as Status
// instead of throwing. The repository layer reads models only through these.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace inferd::base {

absl::StatusOr<std::string> ReadFile(const std::string& path);
bool FileExists(const std::string& path);
bool IsDirectory(const std::string& path);
// Names (not paths) of the entries of `dir` that are directories, sorted.
absl::StatusOr<std::vector<std::string>> ListSubdirectories(const std::string& dir);
std::string JoinPath(std::string_view a, std::string_view b);

}  // namespace inferd::base
