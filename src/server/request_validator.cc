// SPDX-License-Identifier: Apache-2.0
#include "server/request_validator.h"

#include <optional>
#include <set>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "core/bytes_encoding.h"
#include "core/shape.h"

namespace inferd {
namespace {

absl::Status Invalid(const inference::ModelConfig& config, const std::string& tensor,
                     absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("model '", config.name(), "' input '", tensor, "': ", what));
}

absl::Status CheckByteSize(const inference::ModelConfig& config, const core::Tensor& tensor) {
  INFERD_ASSIGN_OR_RETURN(int64_t count, core::ElementCount(tensor.shape));
  if (tensor.datatype == core::DataType::kBytes) {
    auto elements = core::CountBytesElements(tensor.data.view());
    if (!elements.ok()) return Invalid(config, tensor.name, elements.status().message());
    if (*elements != count) {
      return Invalid(config, tensor.name,
                     absl::StrCat("has ", *elements, " BYTES elements; shape ",
                                  core::ShapeToString(tensor.shape), " needs ", count));
    }
    return absl::OkStatus();
  }
  const size_t expected = static_cast<size_t>(count) * core::DataTypeByteSize(tensor.datatype);
  if (tensor.data.size != expected) {
    return Invalid(config, tensor.name,
                   absl::StrCat("unexpected byte size ", tensor.data.size, ", expected ", expected,
                                " for shape ", core::ShapeToString(tensor.shape)));
  }
  return absl::OkStatus();
}

// The shape the backend gets: reshape.shape with its k-th -1 taken from the
// request's value at the k-th -1 of dims.
core::Shape Reshaped(const inference::ModelInput& input, const core::Shape& shape, bool batching) {
  core::Shape out;
  const size_t first = batching ? 1 : 0;
  if (batching) out.push_back(shape[0]);
  std::vector<int64_t> wildcard_values;
  for (int i = 0; i < input.dims_size(); ++i) {
    if (input.dims(i) == -1) wildcard_values.push_back(shape[first + i]);
  }
  size_t next = 0;
  for (int64_t d : input.reshape().shape()) {
    out.push_back(d == -1 && next < wildcard_values.size() ? wildcard_values[next++] : d);
  }
  return out;
}

absl::Status CheckShape(const inference::ModelConfig& config, const inference::ModelInput& input,
                        const core::Tensor& tensor, int64_t& batch_size) {
  const bool batching = config.max_batch_size() > 0;
  const core::Shape dims(input.dims().begin(), input.dims().end());
  core::Shape expected = dims;
  if (batching) {
    if (tensor.shape.empty())
      return Invalid(config, tensor.name, "shape must include the batch dimension");
    const int64_t batch = tensor.shape[0];
    if (batch < 1 || batch > config.max_batch_size()) {
      return Invalid(config, tensor.name,
                     absl::StrCat("batch size ", batch, " is outside [1, max_batch_size ",
                                  config.max_batch_size(), "]"));
    }
    if (batch_size != 0 && batch_size != batch) {
      return Invalid(config, tensor.name, "inputs of one request must share the batch size");
    }
    batch_size = batch;
    expected.insert(expected.begin(), batch);
  }
  for (int64_t d : tensor.shape) {
    if (d < 0) return Invalid(config, tensor.name, "shape must not contain negative dimensions");
  }
  if (!core::ShapeMatches(tensor.shape, expected)) {
    return Invalid(config, tensor.name,
                   absl::StrCat("unexpected shape ", core::ShapeToString(tensor.shape),
                                ", expected ", core::ShapeToString(expected),
                                batching ? " (the first dimension is the batch size)" : ""));
  }
  return absl::OkStatus();
}

// `priority` and `timeout` are unsigned integers; JSON and gRPC may carry
// them as int64 or uint64.
absl::StatusOr<uint64_t> SchedulingParameter(const core::Parameters& parameters,
                                             std::string_view key) {
  auto it = parameters.find(key);
  if (it == parameters.end()) return uint64_t{0};
  if (const auto* u = std::get_if<uint64_t>(&it->second)) return *u;
  if (const auto* i = std::get_if<int64_t>(&it->second); i != nullptr && *i >= 0) {
    return static_cast<uint64_t>(*i);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("parameter '", std::string(key), "' must be a non-negative integer"));
}

absl::Status CheckParameters(const inference::ModelConfig& config,
                             const core::InferRequest& request, ValidatedRequest& validated) {
  (void)config;
  for (const auto& [key, value] : request.parameters) {
    if (absl::StartsWith(key, "triton_") && key != "triton_enable_empty_final_response") {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter '", key, "' is reserved (prefix 'triton_')"));
    }
  }
  INFERD_ASSIGN_OR_RETURN(validated.priority, SchedulingParameter(request.parameters, "priority"));
  INFERD_ASSIGN_OR_RETURN(validated.timeout_micros,
                          SchedulingParameter(request.parameters, "timeout"));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> ResolveOutputs(const inference::ModelConfig& config,
                                                        const core::InferRequest& request) {
  std::vector<std::string> names;
  if (request.requested_outputs.empty()) {
    for (const auto& output : config.output()) names.push_back(output.name());
    return names;
  }
  std::set<std::string_view> seen;
  for (const auto& name : request.requested_outputs) {
    bool known = false;
    for (const auto& output : config.output()) known = known || output.name() == name;
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("model '", config.name(), "' has no output '", name, "'"));
    }
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat("output '", name, "' is requested twice"));
    }
    names.push_back(name);
  }
  return names;
}

// What a sequence model's server-set input is ("a sequence control input
// (CONTROL_SEQUENCE_START)", "an implicit state input"), or nullopt.
std::optional<std::string> SequenceTensorKind(const inference::ModelConfig& config,
                                              const std::string& name) {
  if (!config.has_sequence_batching()) return std::nullopt;
  for (const auto& input : config.sequence_batching().control_input()) {
    if (input.name() != name) continue;
    std::string kind = "a sequence control input";
    if (input.control_size() > 0) {
      absl::StrAppend(&kind, " (",
                      inference::ModelSequenceBatching_Control_Kind_Name(input.control(0).kind()),
                      ")");
    }
    return kind;
  }
  for (const auto& state : config.sequence_batching().state()) {
    if (state.input_name() == name) return std::string("an implicit state input");
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<ValidatedRequest> ValidateRequest(const inference::ModelConfig& config,
                                                 core::InferRequest& request) {
  ValidatedRequest result;
  INFERD_RETURN_IF_ERROR(CheckParameters(config, request, result));
  int64_t batch_size = 0;
  std::set<std::string_view> seen;
  for (auto& tensor : request.inputs) {
    const inference::ModelInput* input = nullptr;
    for (const auto& candidate : config.input()) {
      if (candidate.name() == tensor.name) input = &candidate;
    }
    if (input == nullptr) {
      if (auto sequence = SequenceTensorKind(config, tensor.name)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input '", tensor.name, "' of model '", config.name(), "' is ", *sequence,
            " that the server sets for each request of a sequence; the request must not send it"));
      }
      return absl::InvalidArgumentError(absl::StrCat("unexpected inference input '", tensor.name,
                                                     "' for model '", config.name(), "'"));
    }
    if (!seen.insert(tensor.name).second) return Invalid(config, tensor.name, "is given twice");
    if (static_cast<int>(tensor.datatype) != static_cast<int>(input->data_type())) {
      return Invalid(
          config, tensor.name,
          absl::StrCat("datatype ", std::string(core::DataTypeProtocolName(tensor.datatype)),
                       " does not match the model's ",
                       std::string(core::DataTypeProtocolName(
                           static_cast<core::DataType>(input->data_type())))));
    }
    INFERD_RETURN_IF_ERROR(CheckShape(config, *input, tensor, batch_size));
    INFERD_RETURN_IF_ERROR(CheckByteSize(config, tensor));
    if (input->has_reshape())
      tensor.shape = Reshaped(*input, tensor.shape, config.max_batch_size() > 0);
  }
  for (const auto& input : config.input()) {
    if (!input.optional() && seen.count(input.name()) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("model '", config.name(), "' expects input '",
                                                     input.name(), "', which the request lacks"));
    }
  }
  result.batch_size = batch_size == 0 ? 1 : batch_size;
  INFERD_ASSIGN_OR_RETURN(result.output_names, ResolveOutputs(config, request));
  return result;
}

}  // namespace inferd
