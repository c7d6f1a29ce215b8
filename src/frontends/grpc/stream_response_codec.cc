// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/stream_response_codec.h"

#include "frontends/grpc/infer_response_codec.h"

namespace inferd::frontends::grpc {

StreamRequestInfo StreamRequestInfoOf(const inference::ModelInferRequest& request) {
  StreamRequestInfo info{request.id(), request.model_name(), request.model_version(), false};
  const auto it = request.parameters().find(kEnableEmptyFinalResponse);
  if (it != request.parameters().end()) {
    info.enable_empty_final_response = it->second.bool_param();
  }
  return info;
}

std::optional<inference::ModelStreamInferResponse> EncodeStreamResult(
    const StreamRequestInfo& request, const absl::StatusOr<core::InferResponse>& result, bool final,
    const SharedMemoryOutputs& shared_memory) {
  inference::ModelStreamInferResponse message;
  inference::ModelInferResponse& response = *message.mutable_infer_response();
  if (result.ok() && !result->flags_only) {
    if (shared_memory.empty()) {
      EncodeInferResponse(*result, response);
    } else if (absl::Status status = EncodeInferResponse(*result, shared_memory, response);
               !status.ok()) {
      response.Clear();
      message.set_error_message(std::string(status.message()));
      response.set_id(request.id);
      response.set_model_name(request.model_name);
      response.set_model_version(request.model_version);
    }
  } else {
    // An error, or the final flag alone: nothing but who it answers.
    if (result.ok() && !request.enable_empty_final_response) return std::nullopt;
    if (!result.ok()) message.set_error_message(std::string(result.status().message()));
    response.set_id(request.id);
    response.set_model_name(request.model_name);
    response.set_model_version(request.model_version);
  }
  (*response.mutable_parameters())[kFinalResponseParameter].set_bool_param(final);
  return message;
}

inference::ModelStreamInferResponse EncodeStreamRefusal(const std::string& id,
                                                        const absl::Status& status) {
  inference::ModelStreamInferResponse message;
  message.set_error_message(std::string(status.message()));
  message.mutable_infer_response()->set_id(id);
  return message;
}

}  // namespace inferd::frontends::grpc
