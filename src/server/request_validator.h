// SPDX-License-Identifier: Apache-2.0
// Checks an inference request against the model version's config before it
// is queued: input names, datatypes, shapes (batch dimension included), byte
// sizes, requested outputs, reserved parameters. Rewrites input shapes to the
// config's `reshape` so backends see the shape the model expects.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "model_config.pb.h"

namespace inferd {

struct ValidatedRequest {
  int64_t batch_size = 1;                 // 1 for models that do not batch
  std::vector<std::string> output_names;  // the outputs to produce, in order
  uint64_t priority = 0;                  // `priority` parameter; 0 = the model's default
  uint64_t timeout_micros = 0;            // `timeout` parameter (µs); 0 = none
  // A scalar input (dims [1], `reshape { shape: [] }`) came in the model's
  // own shape ([], or [batch]): scalar outputs are answered that way too.
  bool model_shapes = false;
};

// InvalidArgument naming the model and tensor for every problem, in
// Triton's words first (docs/api.md, "Error messages").
absl::StatusOr<ValidatedRequest> ValidateRequest(const inference::ModelConfig& config,
                                                 core::InferRequest& request);

}  // namespace inferd
