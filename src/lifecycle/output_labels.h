// SPDX-License-Identifier: Apache-2.0
// Reads the label files that a model's outputs name (ModelOutput.
// label_filename, docs/api.md "Classification") when the model loads, so
// classification requests find the labels in memory.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/classification.h"
#include "model_config.pb.h"

namespace inferd::lifecycle {

// One label per line of <model_dir>/<label_filename> for every output that
// sets label_filename (a trailing "\r" is dropped; a final newline adds no
// label). InvalidArgument when a name leaves the model folder (absolute or
// with ".."), NotFound/Internal when a file cannot be read: the model does
// not load, as in Triton.
absl::StatusOr<std::shared_ptr<const core::ClassLabels>> LoadOutputLabels(
    const inference::ModelConfig& config, const std::string& model_dir);

}  // namespace inferd::lifecycle
