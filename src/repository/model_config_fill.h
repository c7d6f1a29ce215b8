// SPDX-License-Identifier: Apache-2.0
// The server-side fill that Triton applies to every config, with or without
// auto-complete: name from the folder, backend <-> platform, the default
// model file name. Also the defaults that normalize a completed config.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "model_config.pb.h"

namespace inferd::repository {

// Fills name, backend, platform and default_model_filename. `model_dir` is
// looked into when neither backend, platform nor file name is given; failing
// that, a folder named <something>.<backend> names a custom backend, whose
// default file is model.<backend>.
// InvalidArgument when the backend cannot be determined or the pair is wrong.
absl::Status FillBackendAndPlatform(const std::string& model_name, const std::string& model_dir,
                                    inference::ModelConfig& config);

// Defaults applied after validation: version_policy latest 1, preferred
// batch sizes, instance groups (KIND_AUTO -> KIND_CPU on this CPU-only build,
// count 0 -> the backend's default, group names).
void NormalizeModelConfig(inference::ModelConfig& config);

}  // namespace inferd::repository
