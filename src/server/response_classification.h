// SPDX-License-Identifier: Apache-2.0
// Applies Triton's classification extension on the one request path
// (docs/api.md, "Classification"): the server checks a request's class
// counts against the config before queueing it, and turns the outputs they
// name into top-k BYTES tensors before any caller sees the response, so HTTP,
// gRPC, the C API and ensembles answer alike.
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "core/classification.h"
#include "core/infer_request.h"
#include "model_config.pb.h"

namespace inferd {

// InvalidArgument, naming model and output, when a class count is not
// positive or names an output whose config type cannot be ranked (BOOL,
// BYTES).
absl::Status CheckClassificationRequest(const inference::ModelConfig& config,
                                        const core::InferRequest& request);

// Replaces the outputs of `response` that `class_counts` names with their
// top-k classifications, labelled from `labels`.
absl::Status ClassifyResponse(const std::map<std::string, int64_t, std::less<>>& class_counts,
                              bool batched, const core::ClassLabels& labels,
                              core::InferResponse& response);

// Makes the request's callbacks (the final one and, for decoupled models,
// on_partial_response) classify each response before passing it on; an
// error in classifying answers the request with that error instead.
void ClassifyResponsesOf(core::InferRequest& request, core::InferCallback& on_complete,
                         bool batched, std::shared_ptr<const core::ClassLabels> labels);

}  // namespace inferd
