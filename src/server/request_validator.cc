// SPDX-License-Identifier: Apache-2.0
#include "server/request_validator.h"

#include <optional>
#include <set>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "base/status_macros.h"
#include "core/bytes_encoding.h"
#include "core/shape.h"

namespace inferd {
namespace {

// Messages start with Triton's words, which clients match on (docs/api.md,
// "Error messages"); what follows them is inferd's.
std::string ForInput(const inference::ModelConfig& config, const std::string& tensor) {
  return absl::StrCat("for input '", tensor, "' for model '", config.name(), "'");
}

absl::Status CheckByteSize(const inference::ModelConfig& config, const core::Tensor& tensor) {
  INFERD_ASSIGN_OR_RETURN(int64_t count, core::ElementCount(tensor.shape));
  if (tensor.datatype == core::DataType::kBytes) {
    auto elements = core::CountBytesElements(tensor.data.view());
    if (!elements.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid BYTES data ", ForInput(config, tensor.name), ": ", elements.status().message()));
    }
    if (*elements != count) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected ", count, " string elements for inference input '", tensor.name,
                       "' for model '", config.name(), "', got ", *elements, " (shape ",
                       core::ShapeToString(tensor.shape), ")"));
    }
    return absl::OkStatus();
  }
  const size_t expected = static_cast<size_t>(count) * core::DataTypeByteSize(tensor.datatype);
  if (tensor.data.size != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("input byte size mismatch ", ForInput(config, tensor.name), ". Expected ",
                     expected, ", got ", tensor.data.size, " (datatype ",
                     std::string(core::DataTypeProtocolName(tensor.datatype)), ", shape ",
                     core::ShapeToString(tensor.shape), ")"));
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

// An input the model sees as a scalar (a rank-0 model tensor: dims [1] with
// `reshape { shape: [] }`), which a request may also send with its own shape.
bool IsScalarInput(const inference::ModelInput& input) {
  return input.has_reshape() && input.reshape().shape_size() == 0;
}

// `model_shape` is set when the request sent a scalar input with the model's
// own shape ([], or [batch] when batching) rather than the config's dims.
absl::Status CheckShape(const inference::ModelConfig& config, const inference::ModelInput& input,
                        const core::Tensor& tensor, int64_t& batch_size, bool& model_shape) {
  const bool batching = config.max_batch_size() > 0;
  core::Shape expected(input.dims().begin(), input.dims().end());
  if (batching) {
    if (tensor.shape.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", tensor.name, "' has no shape but model requires batch dimension for '",
          config.name(), "'"));
    }
    const int64_t batch = tensor.shape[0];
    if (batch > config.max_batch_size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inference request batch-size must be <= ", config.max_batch_size(), " for '",
          config.name(), "' (input '", tensor.name, "' has batch size ", batch, ")"));
    }
    if (batch < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("inference request batch-size must be >= 1 for '", config.name(),
                       "' (input '", tensor.name, "' has batch size ", batch, ")"));
    }
    if (batch_size != 0 && batch_size != batch) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", tensor.name, "' batch size does not match other inputs for '",
                       config.name(), "' (", batch, " here, ", batch_size, " before)"));
    }
    batch_size = batch;
  }
  for (int64_t d : tensor.shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat("All input dimensions should be specified ",
                                                     ForInput(config, tensor.name), ", got ",
                                                     core::ShapeToString(tensor.shape)));
    }
  }
  const size_t first = batching ? 1 : 0;
  const absl::Span<const int64_t> item = absl::MakeConstSpan(tensor.shape).subspan(first);
  if (IsScalarInput(input) && item.empty()) {
    model_shape = true;
    return absl::OkStatus();
  }
  if (!core::ShapeMatches(item, expected)) {
    if (batching) expected.insert(expected.begin(), -1);
    return absl::InvalidArgumentError(absl::StrCat(
        "unexpected shape ", ForInput(config, tensor.name), ". Expected ",
        core::ShapeToString(expected), ", got ", core::ShapeToString(tensor.shape), ".",
        batching ? absl::StrCat(" The first dimension is the batch size (max_batch_size ",
                                config.max_batch_size(), ")")
                 : ""));
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
          absl::StrCat("unexpected inference output '", name, "' for model '", config.name(), "'"));
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

// Triton's message for missing inputs, which lists what was sent and what is missing.
absl::Status MissingInputs(const inference::ModelConfig& config,
                           const core::InferRequest& request) {
  int required = 0;
  std::vector<std::string> missing;
  for (const auto& input : config.input()) {
    if (input.optional()) continue;
    ++required;
    bool given = false;
    for (const auto& tensor : request.inputs) given = given || tensor.name == input.name();
    if (!given) missing.push_back(absl::StrCat("'", input.name(), "'"));
  }
  if (missing.empty()) return absl::OkStatus();
  std::vector<std::string> got;
  for (const auto& tensor : request.inputs) got.push_back(absl::StrCat("'", tensor.name, "'"));
  const std::string expected =
      required == config.input_size()
          ? absl::StrCat(required, " inputs")
          : absl::StrCat("number of inputs between ", required, " and ", config.input_size());
  return absl::InvalidArgumentError(absl::StrCat(
      "expected ", expected, " but got ", request.inputs.size(), " inputs for model '",
      config.name(), "'. Got inputs [", absl::StrJoin(got, ","), "], but missing required inputs [",
      absl::StrJoin(missing, ","), "]. Please provide all required inputs."));
}

}  // namespace

absl::StatusOr<ValidatedRequest> ValidateRequest(const inference::ModelConfig& config,
                                                 core::InferRequest& request) {
  ValidatedRequest result;
  INFERD_RETURN_IF_ERROR(CheckParameters(config, request, result));
  int64_t batch_size = 0;
  std::set<std::string_view> seen;
  for (const auto& tensor : request.inputs) {
    const inference::ModelInput* input = nullptr;
    for (const auto& candidate : config.input()) {
      if (candidate.name() == tensor.name) input = &candidate;
    }
    if (input == nullptr) {
      if (auto sequence = SequenceTensorKind(config, tensor.name)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "unexpected inference input '", tensor.name, "' for model '", config.name(),
            "': it is ", *sequence,
            " that the server sets for each request of a sequence; the request must not send it"));
      }
      return absl::InvalidArgumentError(absl::StrCat("unexpected inference input '", tensor.name,
                                                     "' for model '", config.name(), "'"));
    }
    if (!seen.insert(tensor.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", tensor.name, "' already exists in request for model '", config.name(), "'"));
    }
  }
  INFERD_RETURN_IF_ERROR(MissingInputs(config, request));
  for (auto& tensor : request.inputs) {
    const inference::ModelInput* input = nullptr;
    for (const auto& candidate : config.input()) {
      if (candidate.name() == tensor.name) input = &candidate;
    }
    if (static_cast<int>(tensor.datatype) != static_cast<int>(input->data_type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "inference input '", tensor.name, "' data-type is '",
          std::string(core::DataTypeProtocolName(tensor.datatype)), "', but model '", config.name(),
          "' expects '",
          std::string(core::DataTypeProtocolName(static_cast<core::DataType>(input->data_type()))),
          "'"));
    }
    INFERD_RETURN_IF_ERROR(CheckShape(config, *input, tensor, batch_size, result.model_shapes));
    INFERD_RETURN_IF_ERROR(CheckByteSize(config, tensor));
    if (input->has_reshape())
      tensor.shape = Reshaped(*input, tensor.shape, config.max_batch_size() > 0);
  }
  result.batch_size = batch_size == 0 ? 1 : batch_size;
  INFERD_ASSIGN_OR_RETURN(result.output_names, ResolveOutputs(config, request));
  return result;
}

}  // namespace inferd
