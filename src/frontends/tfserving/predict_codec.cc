// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/predict_codec.h"

#include <algorithm>
#include <vector>

#include "base/status_macros.h"
#include "frontends/tfserving/tensor_proto_codec.h"

namespace inferd::frontends::tfserving {

absl::StatusOr<std::unique_ptr<core::InferRequest>> DecodePredictRequest(
    const tensorflow::serving::PredictRequest& request, const ModelTarget& target) {
  auto decoded = std::make_unique<core::InferRequest>();
  decoded->model_name = target.model;
  decoded->model_version = target.version;
  // A protobuf map has no order; sorting makes the request the same on
  // every run (and errors name the same tensor first).
  std::vector<const std::string*> names;
  names.reserve(request.inputs_size());
  for (const auto& [name, tensor] : request.inputs()) names.push_back(&name);
  std::sort(names.begin(), names.end(), [](auto* a, auto* b) { return *a < *b; });
  for (const std::string* name : names) {
    INFERD_ASSIGN_OR_RETURN(core::Tensor tensor,
                            DecodeTensorProto(*name, request.inputs().at(*name)));
    decoded->inputs.push_back(std::move(tensor));
  }
  decoded->requested_outputs.assign(request.output_filter().begin(), request.output_filter().end());
  return decoded;
}

void FillModelSpec(const std::string& model, int64_t version, const std::string& signature,
                   tensorflow::serving::ModelSpec& spec) {
  spec.set_name(model);
  spec.mutable_version()->set_value(version);
  spec.set_signature_name(signature);
}

absl::Status EncodePredictResponse(const core::InferResponse& response, const ModelTarget& target,
                                   tensorflow::serving::PredictResponse& out) {
  FillModelSpec(target.model, response.model_version, target.signature, *out.mutable_model_spec());
  for (const core::Tensor& tensor : response.outputs) {
    INFERD_RETURN_IF_ERROR(EncodeTensorProto(tensor, (*out.mutable_outputs())[tensor.name]));
  }
  return absl::OkStatus();
}

}  // namespace inferd::frontends::tfserving
