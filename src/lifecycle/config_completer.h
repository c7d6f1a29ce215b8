// SPDX-License-Identifier: Apache-2.0
// Completes a missing or partial model config from what the backend read in
// the model file, following Triton's ONNX Runtime auto-complete rules
// (docs/architecture.md, "Layers": completion needs the backend, so it lives in lifecycle).
#pragma once

#include "absl/status/status.h"
#include "backends/abi/server_api.h"
#include "model_config.pb.h"

namespace inferd::lifecycle {

// Triton's default-max-batch-size for a model that can batch.
inline constexpr int32_t kDefaultMaxBatchSize = 4;

// Whether auto-complete has anything to do: the config lacks inputs or outputs.
bool NeedsCompletion(const inference::ModelConfig& config);

// Fills max_batch_size, input, output and dynamic_batching from `signature`;
// a model that can batch gets `default_max_batch_size` unless its config sets
// one (Triton's --backend-config=default-max-batch-size; 0: no batching).
// InvalidArgument when the config asks to batch a model that cannot.
absl::Status CompleteModelConfig(const INFERD_Signature& signature, inference::ModelConfig& config,
                                 int32_t default_max_batch_size = kDefaultMaxBatchSize);

}  // namespace inferd::lifecycle
