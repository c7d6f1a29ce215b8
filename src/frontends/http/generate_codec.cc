// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/generate_codec.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "frontends/http/json_tensor_reader.h"
#include "frontends/http/json_tensor_writer.h"
#include "frontends/http/json_writer.h"
#include "frontends/http/string_view_util.h"
#include "simdjson.h"

namespace inferd::frontends::http {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

constexpr std::string_view kParameters = "parameters";

absl::Status Invalid(std::string_view a, std::string_view b = "", std::string_view c = "") {
  return absl::InvalidArgumentError(absl::StrCat(AsAbsl(a), AsAbsl(b), AsAbsl(c)));
}

const GenerateInput* FindInput(const std::vector<GenerateInput>& inputs, std::string_view name) {
  for (const GenerateInput& input : inputs) {
    if (input.name == name) return &input;
  }
  return nullptr;
}

// Triton's shape rule for a generate value of `count` elements: the fixed
// dimensions take their share, the innermost variable dimension the rest,
// other variable dimensions are 1.
absl::StatusOr<core::Shape> ShapeFor(const GenerateInput& input, int64_t count) {
  core::Shape shape = input.shape;
  int64_t left = count;
  for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
    if (*it == -1) continue;
    if (*it == 0 ? left != 0 : left % *it != 0) {
      return Invalid("the value of input '", input.name,
                     absl::StrCat("' (", count, " elements) does not fit its shape ",
                                  core::ShapeToString(input.shape)));
    }
    if (*it != 0) left /= *it;
  }
  for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
    if (*it == -1) {
      *it = left;
      left = 1;
    }
  }
  if (left != 1 && count != 0) {
    return Invalid("the value of input '", input.name,
                   absl::StrCat("' (", count, " elements) does not fit its shape ",
                                core::ShapeToString(input.shape)));
  }
  return shape;
}

absl::Status AddInput(const GenerateInput& input, element value, size_t& budget,
                      core::InferRequest& request) {
  int64_t count = 1;
  if (value.type() == element_type::ARRAY) {
    simdjson::dom::array array = value.get_array().value_unsafe();
    count = static_cast<int64_t>(array.size());
    for (element item : array) {
      if (item.type() == element_type::ARRAY || item.type() == element_type::OBJECT) {
        return Invalid("input '", input.name, "' must be a scalar or a flat array");
      }
    }
  } else if (value.type() == element_type::OBJECT || value.type() == element_type::NULL_VALUE) {
    return Invalid("input '", input.name, "' must be a scalar or a flat array");
  }
  INFERD_ASSIGN_OR_RETURN(core::Shape shape, ShapeFor(input, count));
  INFERD_ASSIGN_OR_RETURN(std::string bytes,
                          DecodeJsonTensorData(value, input.datatype, count, budget, input.name));
  budget -= std::min(budget, bytes.size());
  request.inputs.push_back(core::Tensor{input.name, input.datatype, std::move(shape),
                                        core::Buffer::Own(std::move(bytes))});
  return absl::OkStatus();
}

absl::Status AddParameter(std::string_view key, element value, core::InferRequest& request) {
  if (absl::StartsWith(AsAbsl(key), "triton_")) {
    return Invalid("parameter '", key, "' is reserved: the 'triton_' prefix is for the server");
  }
  core::Parameter parameter;
  switch (value.type()) {
    case element_type::STRING:
      parameter = std::string(value.get_string().value_unsafe());
      break;
    case element_type::BOOL:
      parameter = value.get_bool().value_unsafe();
      break;
    case element_type::INT64:
      parameter = value.get_int64().value_unsafe();
      break;
    case element_type::UINT64:
      parameter = value.get_uint64().value_unsafe();
      break;
    case element_type::DOUBLE:
      parameter = value.get_double().value_unsafe();
      break;
    default:
      return Invalid("parameter '", key,
                     "' must be a string, a number or a boolean (it names no model input)");
  }
  if (!request.parameters.emplace(std::string(key), std::move(parameter)).second) {
    return Invalid("parameter '", key, "' is given twice");
  }
  return absl::OkStatus();
}

// One key of the request (or of its "parameters"): an input, or a parameter.
absl::Status AddMember(std::string_view key, element value,
                       const std::vector<GenerateInput>& inputs, size_t& budget,
                       core::InferRequest& request) {
  const GenerateInput* input = FindInput(inputs, key);
  if (input == nullptr) return AddParameter(key, value, request);
  for (const core::Tensor& tensor : request.inputs) {
    if (tensor.name == key) return Invalid("input '", key, "' is given twice");
  }
  return AddInput(*input, value, budget, request);
}

// Writes `tensor` as a scalar (one element) or a flat array.
absl::Status WriteOutputValue(const core::Tensor& tensor, JsonWriter& writer) {
  rapidjson::StringBuffer array_buffer;
  JsonWriter array_writer(array_buffer);
  INFERD_RETURN_IF_ERROR(WriteJsonTensorData(tensor, array_writer));
  std::string_view text(array_buffer.GetString(), array_buffer.GetSize());
  INFERD_ASSIGN_OR_RETURN(int64_t count, core::ElementCount(tensor.shape));
  rapidjson::Type type = rapidjson::kArrayType;
  if (count == 1 && text.size() >= 2) {
    text = text.substr(1, text.size() - 2);  // "[x]" -> "x"
    type = rapidjson::kNumberType;           // only a label for RawValue; the text is valid JSON
  }
  writer.RawValue(text.data(), text.size(), type);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<core::InferRequest>> DecodeGenerateRequest(
    std::string_view body, const std::vector<GenerateInput>& inputs, size_t max_json_bytes) {
  if (body.size() > max_json_bytes) {
    return Invalid(absl::StrCat("generate request of ", body.size(), " bytes exceeds the limit of ",
                                max_json_bytes, " bytes"));
  }
  simdjson::dom::parser parser;
  element root;
  if (const auto error = parser.parse(body.data(), body.size()).get(root);
      error != simdjson::SUCCESS) {
    return Invalid("malformed generate request JSON: ", simdjson::error_message(error));
  }
  object fields;
  if (root.get(fields) != simdjson::SUCCESS) {
    return Invalid("the generate request must be a JSON object");
  }
  auto request = std::make_unique<core::InferRequest>();
  size_t budget = max_json_bytes;
  for (const auto field : fields) {
    const std::string_view key = field.key;
    if (key == kParameters) {
      if (FindInput(inputs, key) != nullptr) {
        return Invalid("keyword 'parameters' for nested schema also given as input tensor name");
      }
      object nested;
      if (field.value.get(nested) != simdjson::SUCCESS) {
        return Invalid("expected JSON object for keyword: 'parameters'");
      }
      for (const auto member : nested) {
        INFERD_RETURN_IF_ERROR(AddMember(member.key, member.value, inputs, budget, *request));
      }
      continue;
    }
    INFERD_RETURN_IF_ERROR(AddMember(key, field.value, inputs, budget, *request));
  }
  return request;
}

absl::StatusOr<std::string> EncodeGenerateResponse(const core::InferResponse& response) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  if (!response.id.empty()) {
    WriteKey(writer, "id");
    if (!WriteString(writer, response.id)) return Invalid("request id is not valid UTF-8");
  }
  WriteKey(writer, "model_name");
  WriteString(writer, response.model_name);
  WriteKey(writer, "model_version");
  WriteString(writer, absl::StrCat(response.model_version));
  for (const core::Tensor& output : response.outputs) {
    // The reserved keys come first and win, as in Triton.
    if (output.name == "id" || output.name == "model_name" || output.name == "model_version") {
      continue;
    }
    if (!WriteString(writer, output.name)) {
      return absl::InternalError("an output name is not valid UTF-8");
    }
    INFERD_RETURN_IF_ERROR(WriteOutputValue(output, writer));
  }
  writer.EndObject();
  return TakeString(buffer);
}

std::string SseEvent(std::string_view json) { return absl::StrCat("data: ", AsAbsl(json), "\n\n"); }

}  // namespace inferd::frontends::http
