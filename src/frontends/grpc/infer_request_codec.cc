// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/infer_request_codec.h"

#include <optional>
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

absl::Status NoSharedMemory() {
  return absl::InvalidArgumentError("shared memory regions are not available on this call");
}

// The shared-memory parameters of a tensor, with the rules and words of
// Triton's gRPC frontend; nullopt when it has none.
absl::StatusOr<std::optional<SharedMemoryRef>> SharedMemoryParameters(
    const ProtoParameters& parameters, const std::string& tensor) {
  using Choice = inference::InferParameter::ParameterChoiceCase;
  const auto region = parameters.find("shared_memory_region");
  const auto offset = parameters.find("shared_memory_offset");
  const auto size = parameters.find("shared_memory_byte_size");
  const bool has_region = region != parameters.end();
  const auto without_region = [&](const char* key) {
    return absl::InvalidArgumentError(absl::StrCat("'", key,
                                                   "' can not be specified without "
                                                   "'shared_memory_region' parameter for tensor '",
                                                   tensor, "'"));
  };
  const auto wrong_type = [&](const char* key, const char* expected) {
    return absl::InvalidArgumentError(absl::StrCat("invalid value type for '", key,
                                                   "' parameter for tensor '", tensor,
                                                   "', expected ", expected, "."));
  };
  if (!has_region) {
    if (offset != parameters.end()) return without_region("shared_memory_offset");
    if (size != parameters.end()) return without_region("shared_memory_byte_size");
    return std::nullopt;
  }
  if (region->second.parameter_choice_case() != Choice::kStringParam) {
    return wrong_type("shared_memory_region", "string_param");
  }
  SharedMemoryRef ref;
  ref.region = region->second.string_param();
  if (offset != parameters.end()) {
    if (offset->second.parameter_choice_case() != Choice::kInt64Param) {
      return wrong_type("shared_memory_offset", "int64_param");
    }
    // As Triton: a negative offset becomes a huge one, refused as invalid.
    ref.offset = static_cast<uint64_t>(offset->second.int64_param());
  }
  if (size == parameters.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'shared_memory_byte_size' must be specified along with 'shared_memory_region' parameter "
        "for tensor '",
        tensor, "'"));
  }
  if (size->second.parameter_choice_case() != Choice::kInt64Param) {
    return wrong_type("shared_memory_byte_size", "int64_param");
  }
  ref.byte_size = static_cast<uint64_t>(size->second.int64_param());
  return ref;
}

// Decodes one input; `raw_index` is the next unused raw_input_contents entry.
absl::StatusOr<core::Tensor> DecodeInput(const inference::ModelInferRequest& message,
                                         const InputTensor& input, int& raw_index,
                                         const std::shared_ptr<const void>& owner,
                                         const SharedMemoryRegistry* shared_memory) {
  const auto datatype = core::DataTypeFromProtocolName(input.datatype());
  if (!datatype) {
    return absl::InvalidArgumentError(absl::StrCat("unknown datatype '", input.datatype(), "'"));
  }
  core::Shape shape(input.shape().begin(), input.shape().end());
  INFERD_ASSIGN_OR_RETURN(const int64_t count, core::ElementCount(shape));
  core::Tensor tensor{input.name(), *datatype, std::move(shape), {}};
  if (input.parameters().empty()) {
    // The common case: no parameter, so no region to look for.
  } else if (auto ref = SharedMemoryParameters(input.parameters(), input.name()); !ref.ok()) {
    return ref.status();
  } else if (ref->has_value()) {
    if (input.has_contents()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected 'content' provided when using shared memory for input tensor '",
                       input.name(), "' for model '", message.model_name(), "'"));
    }
    if (shared_memory == nullptr) return NoSharedMemory();
    INFERD_RETURN_IF_ERROR(
        AttachSharedMemoryInput(*shared_memory, **ref, message.model_name(), tensor));
    return tensor;
  }
  if (input.has_contents()) {
    INFERD_ASSIGN_OR_RETURN(tensor.data,
                            DecodeTensorContents(input.contents(), *datatype, count, owner));
    return tensor;
  }
  if (raw_index >= message.raw_input_contents_size()) {
    return absl::InvalidArgumentError("no data: neither typed contents nor raw_input_contents");
  }
  // Not copied. Its size against the datatype and shape is the server's
  // check (request_validator), in Triton's words.
  const std::string& raw = message.raw_input_contents(raw_index++);
  tensor.data = core::Buffer{raw.data(), raw.size(), owner};
  return tensor;
}

// The class count of parameters["classification"] (tritonclient sends
// int64_param), or 0 when the output has none.
absl::StatusOr<int64_t> ClassCount(const ProtoParameters& parameters) {
  const auto found = parameters.find("classification");
  if (found == parameters.end()) return 0;
  const inference::InferParameter& value = found->second;
  int64_t count = 0;
  if (value.parameter_choice_case() == inference::InferParameter::kInt64Param) {
    count = value.int64_param();
  } else if (value.parameter_choice_case() == inference::InferParameter::kUint64Param &&
             value.uint64_param() <= static_cast<uint64_t>(INT64_MAX)) {
    count = static_cast<int64_t>(value.uint64_param());
  }
  if (count <= 0) {
    return absl::InvalidArgumentError(
        "parameter 'classification' must be a positive int64_param (the class count)");
  }
  return count;
}

absl::Status CheckRequestedOutput(const OutputTensor& output,
                                  const SharedMemoryRegistry* shared_memory,
                                  SharedMemoryOutputs* outputs, core::InferRequest& request) {
  if (output.parameters().empty()) return absl::OkStatus();
  INFERD_ASSIGN_OR_RETURN(const int64_t class_count, ClassCount(output.parameters()));
  if (class_count > 0) request.output_class_counts[output.name()] = class_count;
  INFERD_ASSIGN_OR_RETURN(std::optional<SharedMemoryRef> ref,
                          SharedMemoryParameters(output.parameters(), output.name()));
  if (!ref) return absl::OkStatus();
  if (class_count > 0) {
    // A classification is a BYTES tensor of its own size, not what the
    // region was sized for.
    return absl::InvalidArgumentError(
        "classification and a shared memory region were both asked for: a classification is "
        "answered in the response message, not in shared memory");
  }
  if (shared_memory == nullptr || outputs == nullptr) return NoSharedMemory();
  return ReserveSharedMemoryOutput(*shared_memory, output.name(), *std::move(ref), *outputs);
}

}  // namespace

absl::StatusOr<std::unique_ptr<core::InferRequest>> DecodeInferRequest(
    const inference::ModelInferRequest& message, std::shared_ptr<const void> owner) {
  return DecodeInferRequest(message, std::move(owner), nullptr, nullptr);
}

absl::StatusOr<std::unique_ptr<core::InferRequest>> DecodeInferRequest(
    const inference::ModelInferRequest& message, std::shared_ptr<const void> owner,
    const SharedMemoryRegistry* shared_memory, SharedMemoryOutputs* outputs) {
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
    if (input.has_contents() && !message.raw_input_contents().empty() &&
        !input.parameters().contains("shared_memory_region")) {
      // Triton's words, unprefixed: clients match on them (docs/api.md, "Error messages").
      return absl::InvalidArgumentError(
          absl::StrCat("contents field must not be specified when using raw_input_contents for '",
                       input.name(), "' for model '", message.model_name(), "'"));
    }
    auto tensor = DecodeInput(message, input, raw_index, owner, shared_memory);
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
    if (absl::Status status = CheckRequestedOutput(output, shared_memory, outputs, *request);
        !status.ok()) {
      return AboutTensor("output", output.name(), message.model_name(), status);
    }
    request->requested_outputs.push_back(output.name());
  }
  return request;
}

}  // namespace inferd::frontends::grpc
