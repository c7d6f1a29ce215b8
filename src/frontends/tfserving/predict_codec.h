// SPDX-License-Identifier: Apache-2.0
// TF Serving's gRPC PredictRequest -> core::InferRequest and the response
// back: the signature's tensor names are the model's input and output
// names; `output_filter` becomes the requested outputs. No I/O.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "frontends/tfserving/model_target.h"
#include "tensorflow_serving/apis/predict.pb.h"

namespace inferd::frontends::tfserving {

// InvalidArgument for a bad tensor (tensor_proto_codec.h).
absl::StatusOr<std::unique_ptr<core::InferRequest>> DecodePredictRequest(
    const tensorflow::serving::PredictRequest& request, const ModelTarget& target);

// Fills model_spec (name, the version that answered, signature) and the
// outputs.
absl::Status EncodePredictResponse(const core::InferResponse& response, const ModelTarget& target,
                                   tensorflow::serving::PredictResponse& out);

// model_spec of a reply: name, version, signature.
void FillModelSpec(const std::string& model, int64_t version, const std::string& signature,
                   tensorflow::serving::ModelSpec& spec);

}  // namespace inferd::frontends::tfserving
