// SPDX-License-Identifier: Apache-2.0
// Version folders of a model and the version policy that picks among them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model_config.pb.h"

namespace inferd::repository {

// The version a folder name denotes: decimal digits, no leading zero unless
// the name is "0" (Triton's rule). nullopt for any other name.
std::optional<int64_t> ParseVersionFolder(std::string_view name);
// Version numbers of the numeric subfolders of `model_dir`, ascending.
std::vector<int64_t> ListVersions(const std::string& model_dir);
// The versions `policy` selects from `available` (ascending), ascending.
std::vector<int64_t> SelectVersions(const inference::ModelVersionPolicy& policy,
                                    const std::vector<int64_t>& available);

}  // namespace inferd::repository
