// SPDX-License-Identifier: Apache-2.0
// TF Serving's version labels (`stable` -> 3, `canary` -> 4) read from a
// model config's `parameters { key: "version_labels" }`, whose string value
// is "label:version[,label:version...]" (docs/configuration.md, "Version
// labels"). Every frontend resolves labels through the Server, which uses
// this.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "model_config.pb.h"

namespace inferd::repository {

// The config parameter that holds the labels.
inline constexpr char kVersionLabelsParameter[] = "version_labels";

using VersionLabels = std::map<std::string, int64_t, std::less<>>;

// Parses "stable:3, canary:4". A label is a letter followed by letters,
// digits, '_', '-' or '.'; a version is a positive integer; a label appears
// once. Empty text: no labels. InvalidArgument naming the first problem.
absl::StatusOr<VersionLabels> ParseVersionLabels(std::string_view text);

// The labels of `config` (none when it has no version_labels parameter).
absl::StatusOr<VersionLabels> VersionLabelsOf(const inference::ModelConfig& config);

}  // namespace inferd::repository
