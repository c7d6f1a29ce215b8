// SPDX-License-Identifier: Apache-2.0
// Runs a config's model_warmup samples (docs/configuration.md) on one
// backend instance before its version is marked READY, so that the first
// real request does not pay for lazy initialisation.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "backends/abi/backend_model.h"
#include "model_config.pb.h"

namespace inferd::lifecycle {

// Runs every sample of config.model_warmup() on `instance`, each
// max(count, 1) times, one request of `batch_size` rows per run (a sample
// with batch_size 0 is skipped, Triton's rule). Input data: zero_data ->
// zeros; random_data -> random bytes (zeros for BYTES); input_data_file ->
// <model_dir>/warmup/<file>, raw row-major data (BYTES: 4-byte little-endian
// length then the bytes, per element) which must hold exactly one row.
// Inputs are repeated to fill the batch. Outputs are every config output.
// Warm-up records no statistics. Blocks until the backend has completed
// every run. The error names the sample and says what failed (its input
// file, or the backend's message).
absl::Status WarmUpInstance(const inference::ModelConfig& config, const std::string& model_dir,
                            int64_t version, backends::BackendInstance& instance);

}  // namespace inferd::lifecycle
