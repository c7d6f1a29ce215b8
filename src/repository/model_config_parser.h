// SPDX-License-Identifier: Apache-2.0
// Parses config.pbtxt text into inference::ModelConfig with protobuf's text
// format, so that any file written for Triton parses unchanged. Problems are
// reported with the file name and line.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "model_config.pb.h"

namespace inferd::repository {

// InvalidArgument naming `file_name:line:column` for every syntax error or
// unknown field.
absl::StatusOr<inference::ModelConfig> ParseModelConfig(std::string_view text,
                                                        std::string_view file_name);

}  // namespace inferd::repository
