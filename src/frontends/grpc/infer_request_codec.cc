// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/infer_request_codec.h"

#include <string_view>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "frontends/grpc/parameter_codec.h"
#include "frontends/grpc/tensor_contents_codec.h"

namespace inferd::frontends::grpc {
namespace {

using InputTensor = inference::ModelInferRequest::InferInputTensor;
using OutputTensor = inference::ModelInferRequest::InferRequestedOutputTensor;

// Prefixes `status` with the tensor and model it is about.
absl::Status AboutTensor(absl::string_view kind, absl::string_view tensor, absl::string_view model,
                         const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(kind, " '", tensor, "' of model '", model,
                                                  "': ", status.message()));
}

bool HasSharedMemory(const ProtoParameters& parameters) {
  return parameters.contains("shared_memory_region") ||
         parameters.contains("shared_memory_byte_size") ||
         parameters.contains("shared_memory_offset");
}

// Decodes one input; `raw_index` is the next unused raw_input_contents entry.
absl::StatusOr<core::Tensor> DecodeInput(const inference::ModelInferRequest& message,
                                         const InputTensor& input, int& raw_index,
                                         const std::shared_ptr<const void>& owner) {
  const auto datatype = core::DataTypeFromProtocolName(input.datatype());
  if (!datatype) {
    return absl::InvalidArgumentError(absl::StrCat("unknown datatype '", input.datatype(), "'"));
  }
  core::Shape shape(input.shape().begin(), input.shape().end());
  INFERD_ASSIGN_OR_RETURN(const int64_t count, core::ElementCount(shape));
  if (HasSharedMemory(input.parameters())) {
    return absl::InvalidArgumentError("shared memory region is not registered");
  }
  core::Tensor tensor{input.name(), *datatype, std::move(shape), {}};
  if (input.has_contents()) {
    if (!message.raw_input_contents().empty()) {
      return absl::InvalidArgumentError(
          "typed contents must not be mixed with raw_input_contents in one request");
    }
    INFERD_ASSIGN_OR_RETURN(tensor.data,
                            DecodeTensorContents(input.contents(), *datatype, count, owner));
    return tensor;
  }
  if (raw_index >= message.raw_input_contents_size()) {
    return absl::InvalidArgumentError("no data: neither typed contents nor raw_input_contents");
  }
  INFERD_ASSIGN_OR_RETURN(tensor.data, DecodeRawContents(message.raw_input_contents(raw_index++),
                                                         *datatype, count, owner));
  return tensor;
}

absl::Status CheckRequestedOutput(const OutputTensor& output) {
  if (output.parameters().contains("classification")) {
    return absl::UnimplementedError("classification outputs are not supported");
  }
  if (HasSharedMemory(output.parameters())) {
    return absl::InvalidArgumentError("shared memory region is not registered");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<core::InferRequest>> DecodeInferRequest(
    const inference::ModelInferRequest& message, std::shared_ptr<const void> owner) {
  auto request = std::make_unique<core::InferRequest>();
  request->model_name = message.model_name();
  request->model_version = message.model_version();
  request->id = message.id();
  auto parameters = DecodeRequestParameters(message.parameters());
  if (!parameters.ok()) {
    return absl::Status(
        parameters.status().code(),
        absl::StrCat("model '", message.model_name(), "': ", parameters.status().message()));
  }
  request->parameters = *std::move(parameters);

  int raw_index = 0;
  request->inputs.reserve(message.inputs_size());
  for (const InputTensor& input : message.inputs()) {
    auto tensor = DecodeInput(message, input, raw_index, owner);
    if (!tensor.ok()) {
      return AboutTensor("input", input.name(), message.model_name(), tensor.status());
    }
    request->inputs.push_back(*std::move(tensor));
  }
  if (raw_index != message.raw_input_contents_size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", message.model_name(), "': ", message.raw_input_contents_size(),
                     " raw_input_contents entries but ", raw_index, " inputs use them"));
  }

  request->requested_outputs.reserve(message.outputs_size());
  for (const OutputTensor& output : message.outputs()) {
    if (absl::Status status = CheckRequestedOutput(output); !status.ok()) {
      return AboutTensor("output", output.name(), message.model_name(), status);
    }
    request->requested_outputs.push_back(output.name());
  }
  return request;
}

}  // namespace inferd::frontends::grpc
