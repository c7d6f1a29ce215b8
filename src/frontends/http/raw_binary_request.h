// SPDX-License-Identifier: Apache-2.0
// Triton's raw binary infer request (Inference-Header-Content-Length: 0):
// the body is the bytes of the model's single input, with no JSON. The shape
// comes from the model metadata: batch 1, and at most one variable
// dimension, worked out from the body size. Every output returns binary.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "frontends/http/infer_request_codec.h"
#include "server/server.h"

namespace inferd::frontends::http {

// `batched`: the model's max_batch_size > 0, so metadata shapes start with
// the batch dimension. InvalidArgument when the model has more than one
// input or the body does not fit the input's shape.
absl::StatusOr<DecodedInferRequest> DecodeRawBinaryRequest(std::shared_ptr<const std::string> body,
                                                           const ModelMetadata& metadata,
                                                           bool batched);

}  // namespace inferd::frontends::http
