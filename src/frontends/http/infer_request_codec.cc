// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/infer_request_codec.h"

#include <charconv>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "core/shape.h"
#include "frontends/http/json_params.h"
#include "frontends/http/json_tensor_reader.h"
#include "frontends/http/string_view_util.h"
#include "simdjson.h"

namespace inferd::frontends::http {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

// Envelope levels above `data` (object, inputs array, input object) plus
// Triton's 100 levels of nesting inside it.
constexpr size_t kMaxJsonDepth = kMaxDataNesting + 8;

absl::Status Invalid(std::string_view a, std::string_view b = "", std::string_view c = "") {
  return absl::InvalidArgumentError(absl::StrCat(AsAbsl(a), AsAbsl(b), AsAbsl(c)));
}

// Where an input's bytes come from, in the order the inputs are listed.
struct BinaryInput {
  size_t input_index;
  uint64_t byte_size;
};

struct DecodeState {
  std::shared_ptr<const std::string> body;
  core::InferRequest* request;
  std::vector<BinaryInput> binary;
  size_t json_budget;
  const InferDecodeOptions* options;
};

absl::StatusOr<core::Shape> ParseShape(element value, std::string_view name) {
  simdjson::dom::array dims;
  if (value.get(dims) != simdjson::SUCCESS) {
    return Invalid("input '", name, "' shape must be an array of non-negative integers");
  }
  core::Shape shape;
  for (element dim : dims) {
    int64_t v = 0;
    if (dim.type() != element_type::INT64 || dim.get(v) != simdjson::SUCCESS || v < 0) {
      return Invalid("input '", name, "' shape must be an array of non-negative integers");
    }
    shape.push_back(v);
  }
  return shape;
}

// A tensor's parameters object, or nullopt when it has none.
absl::StatusOr<std::optional<object>> TensorParameters(object fields, std::string_view kind,
                                                       std::string_view name) {
  element params;
  if (fields["parameters"].get(params) != simdjson::SUCCESS) return std::nullopt;
  object params_fields;
  if (params.get(params_fields) != simdjson::SUCCESS) {
    return Invalid(kind, name, "' parameters must be an object");
  }
  return params_fields;
}

// shared_memory_region / _byte_size / _offset, with the rules of Triton's
// gRPC frontend (the same names, the same words); nullopt when absent.
absl::StatusOr<std::optional<SharedMemoryRef>> SharedMemoryParameters(object params,
                                                                      std::string_view name) {
  const auto tensor = [&](std::string_view what) {
    return Invalid(what, "parameter for tensor '", absl::StrCat(AsAbsl(name), "'"));
  };
  element region;
  const bool has_region = params["shared_memory_region"].get(region) == simdjson::SUCCESS;
  element offset;
  const bool has_offset = params["shared_memory_offset"].get(offset) == simdjson::SUCCESS;
  element byte_size;
  const bool has_size = params["shared_memory_byte_size"].get(byte_size) == simdjson::SUCCESS;
  if (!has_region) {
    if (has_offset)
      return tensor("'shared_memory_offset' can not be specified without 'shared_memory_region' ");
    if (has_size)
      return tensor(
          "'shared_memory_byte_size' can not be specified without 'shared_memory_region' ");
    return std::nullopt;
  }
  SharedMemoryRef ref;
  std::string_view region_name;
  if (region.get(region_name) != simdjson::SUCCESS) {
    return tensor("invalid value type for 'shared_memory_region' ");
  }
  ref.region = std::string(region_name);
  if (!has_size) {
    return tensor("'shared_memory_byte_size' must be specified along with 'shared_memory_region' ");
  }
  // Unsigned 64-bit values (Triton reads them as uint64; 2^64-32 is an offset
  // the registry then refuses, not a parse error).
  if (byte_size.get(ref.byte_size) != simdjson::SUCCESS) {
    return tensor("invalid value type for 'shared_memory_byte_size' ");
  }
  if (has_offset && offset.get(ref.offset) != simdjson::SUCCESS) {
    return tensor("invalid value type for 'shared_memory_offset' ");
  }
  return ref;
}

struct InputParameters {
  std::optional<uint64_t> binary_size;
  std::optional<SharedMemoryRef> shared_memory;
};

// Reads binary_data_size and the shared-memory parameters of an input.
absl::StatusOr<InputParameters> ReadInputParameters(object fields, std::string_view name) {
  InputParameters out;
  INFERD_ASSIGN_OR_RETURN(std::optional<object> params, TensorParameters(fields, "input '", name));
  if (!params) return out;
  INFERD_ASSIGN_OR_RETURN(out.shared_memory, SharedMemoryParameters(*params, name));
  element size;
  if ((*params)["binary_data_size"].get(size) != simdjson::SUCCESS) return out;
  int64_t v = 0;
  if (size.type() != element_type::INT64 || size.get(v) != simdjson::SUCCESS || v < 0) {
    return Invalid("input '", name, "' binary_data_size must be a non-negative integer");
  }
  out.binary_size = static_cast<uint64_t>(v);
  return out;
}

absl::Status NoSharedMemory() {
  return absl::InvalidArgumentError("shared memory regions are not available on this endpoint");
}

absl::Status DecodeInput(element input, DecodeState& state) {
  object fields;
  if (input.get(fields) != simdjson::SUCCESS) return Invalid("each input must be an object");
  core::Tensor tensor;
  std::string_view text;
  if (fields["name"].get(text) != simdjson::SUCCESS) {
    return Invalid("each input needs a string 'name'");
  }
  tensor.name = std::string(text);
  if (fields["datatype"].get(text) != simdjson::SUCCESS) {
    return Invalid("input '", tensor.name, "' needs a string 'datatype'");
  }
  const auto type = core::DataTypeFromProtocolName(text);
  if (!type)
    return Invalid(
        absl::StrCat("input '", tensor.name, "' has unknown datatype '", AsAbsl(text), "'"));
  tensor.datatype = *type;
  element shape;
  if (fields["shape"].get(shape) != simdjson::SUCCESS) {
    return Invalid("input '", tensor.name, "' needs a 'shape'");
  }
  INFERD_ASSIGN_OR_RETURN(tensor.shape, ParseShape(shape, tensor.name));
  INFERD_ASSIGN_OR_RETURN(int64_t count, core::ElementCount(tensor.shape));
  INFERD_ASSIGN_OR_RETURN(InputParameters params, ReadInputParameters(fields, tensor.name));
  const std::optional<uint64_t>& binary_size = params.binary_size;
  element data;
  const bool has_data = fields["data"].get(data) == simdjson::SUCCESS;
  if (int{has_data} + int{binary_size.has_value()} + int{params.shared_memory.has_value()} != 1) {
    return Invalid("input '", tensor.name,
                   "' must set exactly one of 'data', parameters.binary_data_size or "
                   "parameters.shared_memory_region");
  }
  if (params.shared_memory) {
    // Straight from the region: the Buffer points into its mapping.
    if (state.options->shared_memory == nullptr) return NoSharedMemory();
    INFERD_RETURN_IF_ERROR(AttachSharedMemoryInput(
        *state.options->shared_memory, *params.shared_memory, state.options->model_name, tensor));
  } else if (binary_size) {
    // Its size against the datatype and shape is the server's check
    // (request_validator), in Triton's words.
    state.binary.push_back({state.request->inputs.size(), *binary_size});
  } else {
    INFERD_ASSIGN_OR_RETURN(
        std::string bytes,
        DecodeJsonTensorData(data, tensor.datatype, count, state.json_budget, tensor.name));
    state.json_budget -= bytes.size();
    tensor.data = core::Buffer::Own(std::move(bytes));
  }
  state.request->inputs.push_back(std::move(tensor));
  return absl::OkStatus();
}

// A classification is a BYTES tensor of its own size, unlike the output the
// region was sized for: it is answered in the response body only.
absl::Status ClassificationInSharedMemory(std::string_view name) {
  return Invalid("output '", name,
                 "' asks for classification and a shared memory region: a classification is "
                 "answered in the response body, not in shared memory");
}

absl::Status DecodeOutput(element output, const InferDecodeOptions& options,
                          core::InferRequest& request, OutputFormat& format) {
  object fields;
  std::string_view name;
  if (output.get(fields) != simdjson::SUCCESS || fields["name"].get(name) != simdjson::SUCCESS) {
    return Invalid("each requested output must be an object with a string 'name'");
  }
  request.requested_outputs.emplace_back(name);
  INFERD_ASSIGN_OR_RETURN(std::optional<object> params, TensorParameters(fields, "output '", name));
  if (!params) return absl::OkStatus();
  object& param_fields = *params;
  element classification;
  const bool classify = param_fields["classification"].get(classification) == simdjson::SUCCESS;
  if (classify) {
    int64_t count = 0;
    if (classification.get(count) != simdjson::SUCCESS || count <= 0) {
      return Invalid("output '", name,
                     "' parameter classification must be a positive integer (the class count)");
    }
    request.output_class_counts[std::string(name)] = count;
  }
  INFERD_ASSIGN_OR_RETURN(std::optional<SharedMemoryRef> shm,
                          SharedMemoryParameters(param_fields, name));
  if (shm) {
    if (classify) return ClassificationInSharedMemory(name);
    if (options.shared_memory == nullptr) return NoSharedMemory();
    return ReserveSharedMemoryOutput(*options.shared_memory, std::string(name), *std::move(shm),
                                     format.shared_memory);
  }
  element binary;
  if (param_fields["binary_data"].get(binary) == simdjson::SUCCESS) {
    bool v = false;
    if (binary.get(v) != simdjson::SUCCESS) {
      return Invalid("output '", name, "' parameter binary_data must be a boolean");
    }
    format.binary_by_name[std::string(name)] = v;
  }
  return absl::OkStatus();
}

// Assigns each binary input its slice of the body after the JSON header.
absl::Status AttachBinary(DecodeState& state, size_t json_length) {
  const std::string& body = *state.body;
  size_t offset = json_length;
  for (const BinaryInput& binary : state.binary) {
    core::Tensor& tensor = state.request->inputs[binary.input_index];
    if (binary.byte_size > body.size() - offset) {
      return Invalid(absl::StrCat("request body ends before the binary data of input '",
                                  tensor.name, "' (", binary.byte_size, " bytes declared, ",
                                  body.size() - offset, " left)"));
    }
    tensor.data =
        core::Buffer{body.data() + offset, static_cast<size_t>(binary.byte_size), state.body};
    offset += binary.byte_size;
  }
  if (offset != body.size()) {
    return Invalid(absl::StrCat("request body has ", body.size() - offset,
                                " bytes after the declared binary tensor data"));
  }
  return absl::OkStatus();
}

absl::Status DecodeEnvelope(object root, DecodeState& state, OutputFormat& format) {
  core::InferRequest& request = *state.request;
  element value;
  if (root["id"].get(value) == simdjson::SUCCESS) {
    std::string_view id;
    if (value.get(id) != simdjson::SUCCESS) return Invalid("request 'id' must be a string");
    request.id = std::string(id);
  }
  if (root["parameters"].get(value) == simdjson::SUCCESS) {
    INFERD_ASSIGN_OR_RETURN(request.parameters,
                            ParseRequestParameters(value, format.binary_default));
  }
  simdjson::dom::array inputs;
  if (root["inputs"].get(inputs) != simdjson::SUCCESS) {
    return Invalid("request needs an 'inputs' array");
  }
  for (element input : inputs) INFERD_RETURN_IF_ERROR(DecodeInput(input, state));
  if (root["outputs"].get(value) == simdjson::SUCCESS) {
    simdjson::dom::array outputs;
    if (value.get(outputs) != simdjson::SUCCESS)
      return Invalid("request 'outputs' must be an array");
    for (element output : outputs) {
      INFERD_RETURN_IF_ERROR(DecodeOutput(output, *state.options, request, format));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool OutputFormat::IsBinary(std::string_view output_name) const {
  const auto it = binary_by_name.find(output_name);
  return it == binary_by_name.end() ? binary_default : it->second;
}

absl::StatusOr<size_t> ParseInferenceHeaderLength(std::string_view value, size_t body_size) {
  size_t length = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() ||
      length > body_size) {
    return Invalid(
        absl::StrCat("Inference-Header-Content-Length must be a number from 0 to the "
                     "body length ",
                     body_size, ", got '", AsAbsl(value), "'"));
  }
  return length;
}

absl::StatusOr<DecodedInferRequest> DecodeInferRequest(std::shared_ptr<const std::string> body,
                                                       std::optional<size_t> json_length,
                                                       const InferDecodeOptions& options) {
  const size_t length = json_length.value_or(body->size());
  if (length > options.max_json_input_bytes) {
    return Invalid(absl::StrCat("request JSON of ", length, " bytes exceeds the limit of ",
                                options.max_json_input_bytes,
                                " bytes; send tensor data as binary"));
  }
  simdjson::dom::parser parser;
  if (parser.allocate(std::max<size_t>(length, 512), kMaxJsonDepth) != simdjson::SUCCESS) {
    return absl::ResourceExhaustedError("cannot allocate the JSON parser");
  }
  element root;
  if (const auto error = parser.parse(body->data(), length).get(root); error != simdjson::SUCCESS) {
    return Invalid("malformed request JSON: ", simdjson::error_message(error));
  }
  object root_object;
  if (root.get(root_object) != simdjson::SUCCESS) return Invalid("request JSON must be an object");
  DecodedInferRequest decoded;
  decoded.request = std::make_unique<core::InferRequest>();
  DecodeState state{body, decoded.request.get(), {}, options.max_json_input_bytes, &options};
  INFERD_RETURN_IF_ERROR(DecodeEnvelope(root_object, state, decoded.format));
  INFERD_RETURN_IF_ERROR(AttachBinary(state, length));
  return decoded;
}

}  // namespace inferd::frontends::http
