// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/rest_response_codec.h"

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "core/bytes_encoding.h"
#include "core/data_type.h"
#include "core/json_writer.h"
#include "core/shape.h"
#include "frontends/http/json_tensor_writer.h"
#include "google/protobuf/util/json_util.h"

namespace inferd::frontends::tfserving {
namespace {

using core::JsonWriter;

// An output tensor's elements, addressable by index.
class Elements {
 public:
  static absl::StatusOr<Elements> Of(const core::Tensor& tensor) {
    Elements elements(tensor);
    INFERD_ASSIGN_OR_RETURN(const int64_t count, core::ElementCount(tensor.shape));
    if (tensor.datatype == core::DataType::kBytes) {
      INFERD_ASSIGN_OR_RETURN(elements.strings_, core::SplitBytesElements(tensor.data.view()));
      if (static_cast<int64_t>(elements.strings_.size()) != count) {
        return absl::InternalError(absl::StrCat("output '", tensor.name, "' holds ",
                                                elements.strings_.size(), " strings, not ", count));
      }
      return elements;
    }
    elements.size_ = core::DataTypeByteSize(tensor.datatype);
    if (elements.size_ == 0 || tensor.data.size != static_cast<size_t>(count) * elements.size_) {
      return absl::InternalError(absl::StrCat("output '", tensor.name, "' holds ", tensor.data.size,
                                              " bytes for shape ",
                                              core::ShapeToString(tensor.shape)));
    }
    return elements;
  }

  void Write(int64_t index, JsonWriter& writer) const {
    if (tensor_->datatype != core::DataType::kBytes) {
      http::WriteJsonElement(tensor_->datatype, tensor_->data.data + index * size_, writer);
      return;
    }
    const std::string_view value = strings_[static_cast<size_t>(index)];
    if (binary_ || !core::WriteString(writer, value)) {
      writer.StartObject();
      core::WriteKey(writer, "b64");
      const std::string encoded = absl::Base64Escape(absl::string_view(value.data(), value.size()));
      writer.String(encoded.data(), static_cast<rapidjson::SizeType>(encoded.size()));
      writer.EndObject();
    }
  }

  // Writes the sub-tensor at `offset` whose shape is tensor.shape[depth:].
  void WriteNested(size_t depth, int64_t offset, JsonWriter& writer) const {
    const core::Shape& shape = tensor_->shape;
    if (depth == shape.size()) {
      Write(offset, writer);
      return;
    }
    int64_t stride = 1;
    for (size_t d = depth + 1; d < shape.size(); ++d) stride *= shape[d];
    writer.StartArray();
    for (int64_t i = 0; i < shape[depth]; ++i) WriteNested(depth + 1, offset + i * stride, writer);
    writer.EndArray();
  }

  int64_t RowStride() const {
    int64_t stride = 1;
    for (size_t d = 1; d < tensor_->shape.size(); ++d) stride *= tensor_->shape[d];
    return stride;
  }

 private:
  explicit Elements(const core::Tensor& tensor)
      : tensor_(&tensor), binary_(absl::EndsWith(tensor.name, "_bytes")) {}

  const core::Tensor* tensor_;
  bool binary_;
  size_t size_ = 0;
  std::vector<std::string_view> strings_;
};

absl::Status WriteRows(const core::InferResponse& response, const std::vector<Elements>& outputs,
                       JsonWriter& writer) {
  int64_t rows = -1;
  for (const core::Tensor& tensor : response.outputs) {
    if (tensor.shape.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", tensor.name,
                       "' is a scalar, which the row format ('instances') cannot answer; "
                       "use the columnar format ('inputs')"));
    }
    if (rows >= 0 && tensor.shape[0] != rows) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Tensor name: ", tensor.name, " has inconsistent batch size: ", tensor.shape[0],
          " expecting: ", rows, " (the row format needs one first dimension; use 'inputs')"));
    }
    rows = tensor.shape[0];
  }
  const bool named = response.outputs.size() > 1;
  writer.StartArray();
  for (int64_t row = 0; row < rows; ++row) {
    if (named) writer.StartObject();
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (named) core::WriteKey(writer, response.outputs[i].name);
      outputs[i].WriteNested(1, row * outputs[i].RowStride(), writer);
    }
    if (named) writer.EndObject();
  }
  writer.EndArray();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> EncodeRestPredict(const core::InferResponse& response,
                                              bool row_format) {
  std::vector<Elements> outputs;
  for (const core::Tensor& tensor : response.outputs) {
    INFERD_ASSIGN_OR_RETURN(Elements elements, Elements::Of(tensor));
    outputs.push_back(std::move(elements));
  }
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  if (row_format) {
    core::WriteKey(writer, "predictions");
    INFERD_RETURN_IF_ERROR(WriteRows(response, outputs, writer));
  } else {
    core::WriteKey(writer, "outputs");
    const bool named = outputs.size() != 1;
    if (named) writer.StartObject();
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (named) core::WriteKey(writer, response.outputs[i].name);
      outputs[i].WriteNested(0, 0, writer);
    }
    if (named) writer.EndObject();
  }
  writer.EndObject();
  return core::TakeString(buffer);
}

absl::StatusOr<std::string> ProtoJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("cannot write JSON: ", status.ToString()));
  }
  return json;
}

int TfServingHttpStatus(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    default:
      return 500;
  }
}

http::HttpReply TfServingErrorReply(const absl::Status& status) {
  return http::ErrorReply(TfServingHttpStatus(status),
                          std::string_view(status.message().data(), status.message().size()));
}

}  // namespace inferd::frontends::tfserving
