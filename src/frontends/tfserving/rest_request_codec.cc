// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/rest_request_codec.h"

#include <limits>
#include <map>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "core/bytes_encoding.h"
#include "core/data_type.h"
#include "simdjson.h"

namespace inferd::frontends::tfserving {
namespace {

using core::DataType;
using simdjson::dom::element;
using simdjson::dom::element_type;

constexpr int kMaxNesting = 64;

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(std::string(what));
}

// Debian's Abseil has its own string_view.
absl::string_view TypeName(DataType type) {
  const std::string_view name = core::DataTypeProtocolName(type);
  return absl::string_view(name.data(), name.size());
}

// {"b64": "..."}: one binary value, not a set of named tensors.
bool IsB64(element value) {
  simdjson::dom::object object;
  if (value.get(object) != simdjson::SUCCESS || object.size() != 1) return false;
  return (*object.begin()).key == "b64";
}

// One tensor being decoded: its type, the bytes written so far, the budget.
class TensorWriter {
 public:
  TensorWriter(std::string name, DataType type, size_t max_bytes)
      : name_(std::move(name)), type_(type), max_bytes_(max_bytes) {}

  // The shape of `value`: the lengths of its first arrays down to a leaf.
  absl::StatusOr<core::Shape> ShapeOf(element value) const {
    core::Shape shape;
    while (value.type() == element_type::ARRAY) {
      simdjson::dom::array array = value.get_array().value_unsafe();
      shape.push_back(static_cast<int64_t>(array.size()));
      if (shape.size() > kMaxNesting) return Fail("is nested too deeply");
      if (array.size() == 0) break;
      value = *array.begin();
    }
    return shape;
  }

  // Appends the leaves of `value`, checking that its nesting is `shape`.
  absl::Status Write(element value, const core::Shape& shape, size_t depth = 0) {
    if (depth == shape.size()) {
      if (value.type() == element_type::ARRAY) return Fail("is not a rectangular array");
      return WriteLeaf(value);
    }
    simdjson::dom::array array;
    if (value.get(array) != simdjson::SUCCESS ||
        static_cast<int64_t>(array.size()) != shape[depth]) {
      return Fail(absl::StrCat("is not a rectangular array: expected ", shape[depth],
                               " values at depth ", depth));
    }
    for (element child : array) INFERD_RETURN_IF_ERROR(Write(child, shape, depth + 1));
    return absl::OkStatus();
  }

  std::string Take() { return std::move(bytes_); }

 private:
  absl::Status Fail(absl::string_view why) const {
    return Invalid(absl::StrCat("input '", name_, "' ", why));
  }

  template <typename T>
  void Append(T value) {
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof(T));  // little-endian host
  }

  template <typename T>
  absl::Status WriteInteger(element value) {
    int64_t i = 0;
    uint64_t u = 0;
    if (value.get(i) == simdjson::SUCCESS) {
      if constexpr (std::is_signed_v<T>) {
        if (i >= std::numeric_limits<T>::min() && i <= std::numeric_limits<T>::max()) {
          Append(static_cast<T>(i));
          return absl::OkStatus();
        }
      } else if (i >= 0 && static_cast<uint64_t>(i) <= std::numeric_limits<T>::max()) {
        Append(static_cast<T>(i));
        return absl::OkStatus();
      }
      return Fail(absl::StrCat("holds ", i, ", out of range for ", TypeName(type_)));
    }
    if (value.get(u) == simdjson::SUCCESS) {
      if (u <= std::numeric_limits<T>::max()) {
        Append(static_cast<T>(u));
        return absl::OkStatus();
      }
      return Fail(absl::StrCat("holds ", u, ", out of range for ", TypeName(type_)));
    }
    return Fail(absl::StrCat("holds a value that is not an integer (", TypeName(type_), ")"));
  }

  absl::Status WriteString(element value) {
    std::string_view text;
    std::string decoded;
    if (IsB64(value)) {
      if ((*value.get_object().value_unsafe().begin()).value.get(text) != simdjson::SUCCESS ||
          !absl::Base64Unescape(absl::string_view(text.data(), text.size()), &decoded)) {
        return Fail("holds a \"b64\" value that is not base64 text");
      }
      text = decoded;
    } else if (value.get(text) != simdjson::SUCCESS) {
      return Fail("holds a value that is not a string or {\"b64\": ...} (BYTES)");
    }
    core::AppendBytesElement(text, bytes_);
    return absl::OkStatus();
  }

  absl::Status WriteLeaf(element value) {
    if (bytes_.size() > max_bytes_) {
      return Fail(absl::StrCat("exceeds the request's data limit of ", max_bytes_, " bytes"));
    }
    if (type_ != DataType::kBytes && IsB64(value)) {
      return Fail(absl::StrCat("holds {\"b64\": ...}, which only BYTES (DT_STRING) inputs take; ",
                               "this one is ", TypeName(type_)));
    }
    switch (type_) {
      case DataType::kBool: {
        bool b = false;
        if (value.get(b) != simdjson::SUCCESS) return Fail("holds a value that is not a boolean");
        Append<uint8_t>(b ? 1 : 0);
        return absl::OkStatus();
      }
      case DataType::kFp32:
      case DataType::kFp64: {
        double d = 0;
        if (value.get(d) != simdjson::SUCCESS) return Fail("holds a value that is not a number");
        if (type_ == DataType::kFp32) {
          Append(static_cast<float>(d));
        } else {
          Append(d);
        }
        return absl::OkStatus();
      }
      case DataType::kInt8:
        return WriteInteger<int8_t>(value);
      case DataType::kInt16:
        return WriteInteger<int16_t>(value);
      case DataType::kInt32:
        return WriteInteger<int32_t>(value);
      case DataType::kInt64:
        return WriteInteger<int64_t>(value);
      case DataType::kUint8:
        return WriteInteger<uint8_t>(value);
      case DataType::kUint16:
        return WriteInteger<uint16_t>(value);
      case DataType::kUint32:
        return WriteInteger<uint32_t>(value);
      case DataType::kUint64:
        return WriteInteger<uint64_t>(value);
      case DataType::kBytes:
        return WriteString(value);
      default:
        break;
    }
    return Fail(
        absl::StrCat("has type ", TypeName(type_), ", which JSON cannot carry; use the gRPC API"));
  }

  const std::string name_;
  const DataType type_;
  const size_t max_bytes_;
  std::string bytes_;
};

// Named JSON values per input, in the model's order of inputs.
using NamedValues = std::vector<std::pair<std::string, std::vector<element>>>;

absl::StatusOr<DataType> InputType(const ModelMetadata& metadata, absl::string_view name) {
  for (const TensorMetadata& input : metadata.inputs) {
    if (input.name == name) return input.datatype;
  }
  return Invalid(absl::StrCat("model '", metadata.name, "' has no input '", name, "'"));
}

absl::StatusOr<std::string> OnlyInput(const ModelMetadata& metadata) {
  if (metadata.inputs.size() != 1) {
    return Invalid(absl::StrCat("model '", metadata.name, "' has ", metadata.inputs.size(),
                                " inputs: name each one (an object of input names)"));
  }
  return metadata.inputs.front().name;
}

// "instances": one value per row; objects name the inputs.
absl::StatusOr<NamedValues> SplitInstances(element instances, const ModelMetadata& metadata) {
  simdjson::dom::array rows;
  if (instances.get(rows) != simdjson::SUCCESS) return Invalid("'instances' must be a list");
  if (rows.size() == 0) return Invalid("'instances' is empty");
  const bool named = (*rows.begin()).type() == element_type::OBJECT && !IsB64(*rows.begin());
  if (!named) {
    INFERD_ASSIGN_OR_RETURN(std::string name, OnlyInput(metadata));
    NamedValues values{{name, {}}};
    for (element row : rows) values[0].second.push_back(row);
    return values;
  }
  NamedValues values;
  std::map<std::string, size_t, std::less<>> index;
  size_t row_number = 0;
  for (element row : rows) {
    simdjson::dom::object object;
    if (row.get(object) != simdjson::SUCCESS || IsB64(row)) {
      return Invalid("every instance must be an object of input names when the first one is");
    }
    if (row_number == 0) {
      for (auto field : object) {
        index.emplace(std::string(field.key), values.size());
        values.push_back({std::string(field.key), {}});
      }
    }
    if (object.size() != values.size()) {
      return Invalid(absl::StrCat("instance ", row_number, " names ", object.size(),
                                  " inputs, but the first names ", values.size()));
    }
    for (auto field : object) {
      auto it = index.find(field.key);
      if (it == index.end()) {
        return Invalid(absl::StrCat("instance ", row_number, " names input '",
                                    std::string(field.key), "' that the first does not"));
      }
      values[it->second].second.push_back(field.value);
    }
    ++row_number;
  }
  return values;
}

// "inputs": one value per tensor; an object names the inputs.
absl::StatusOr<NamedValues> SplitColumns(element inputs, const ModelMetadata& metadata) {
  simdjson::dom::object object;
  if (inputs.get(object) == simdjson::SUCCESS && !IsB64(inputs)) {
    NamedValues values;
    for (auto field : object) values.push_back({std::string(field.key), {field.value}});
    if (values.empty()) return Invalid("'inputs' is empty");
    return values;
  }
  INFERD_ASSIGN_OR_RETURN(std::string name, OnlyInput(metadata));
  return NamedValues{{name, {inputs}}};
}

absl::StatusOr<core::Tensor> BuildTensor(const std::string& name,
                                         const std::vector<element>& values, bool rows,
                                         DataType type, size_t max_bytes) {
  TensorWriter writer(name, type, max_bytes);
  INFERD_ASSIGN_OR_RETURN(core::Shape shape, writer.ShapeOf(values.front()));
  for (element value : values) INFERD_RETURN_IF_ERROR(writer.Write(value, shape));
  core::Tensor tensor;
  tensor.name = name;
  tensor.datatype = type;
  if (rows) shape.insert(shape.begin(), static_cast<int64_t>(values.size()));
  tensor.shape = std::move(shape);
  tensor.data = core::Buffer::Own(writer.Take());
  return tensor;
}

absl::StatusOr<simdjson::dom::object> ParseObject(simdjson::dom::parser& parser,
                                                  std::string_view body) {
  simdjson::dom::element root;
  if (auto error = parser.parse(body.data(), body.size()).get(root); error) {
    return Invalid(absl::StrCat("the body is not valid JSON: ", simdjson::error_message(error)));
  }
  simdjson::dom::object object;
  if (root.get(object) != simdjson::SUCCESS) return Invalid("the body must be a JSON object");
  return object;
}

}  // namespace

absl::StatusOr<std::string> ReadSignatureName(std::string_view body) {
  simdjson::dom::parser parser;
  INFERD_ASSIGN_OR_RETURN(simdjson::dom::object object, ParseObject(parser, body));
  element value;
  if (object["signature_name"].get(value) != simdjson::SUCCESS) return std::string();
  std::string_view name;
  if (value.get(name) != simdjson::SUCCESS) return Invalid("'signature_name' must be a string");
  return std::string(name);
}

absl::StatusOr<RestPredictRequest> DecodeRestPredict(std::string_view body,
                                                     const ModelMetadata& metadata,
                                                     size_t max_bytes) {
  simdjson::dom::parser parser;
  INFERD_ASSIGN_OR_RETURN(simdjson::dom::object object, ParseObject(parser, body));
  RestPredictRequest request;
  element instances, inputs, signature;
  const bool has_instances = object["instances"].get(instances) == simdjson::SUCCESS;
  const bool has_inputs = object["inputs"].get(inputs) == simdjson::SUCCESS;
  if (has_instances == has_inputs) {
    return Invalid(has_instances ? "the body must hold one of 'instances' and 'inputs', not both"
                                 : "the body must hold 'instances' (rows) or 'inputs' (columns)");
  }
  if (object["signature_name"].get(signature) == simdjson::SUCCESS) {
    std::string_view name;
    if (signature.get(name) != simdjson::SUCCESS) {
      return Invalid("'signature_name' must be a string");
    }
    request.signature_name = std::string(name);
  }
  request.row_format = has_instances;
  INFERD_ASSIGN_OR_RETURN(NamedValues values, has_instances ? SplitInstances(instances, metadata)
                                                            : SplitColumns(inputs, metadata));
  size_t budget = max_bytes;
  for (const auto& [name, json] : values) {
    INFERD_ASSIGN_OR_RETURN(DataType type, InputType(metadata, name));
    INFERD_ASSIGN_OR_RETURN(core::Tensor tensor,
                            BuildTensor(name, json, request.row_format, type, budget));
    budget -= std::min(budget, tensor.data.size);
    request.inputs.push_back(std::move(tensor));
  }
  return request;
}

}  // namespace inferd::frontends::tfserving
