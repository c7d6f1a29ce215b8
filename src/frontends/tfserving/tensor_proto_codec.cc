// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/tensor_proto_codec.h"

#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "core/bytes_encoding.h"
#include "core/data_type.h"
#include "core/shape.h"

namespace inferd::frontends::tfserving {
namespace {

using core::DataType;

absl::Status Invalid(const std::string& name, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("input '", name, "': ", why));
}

// Debian's Abseil has its own string_view.
absl::string_view TypeName(DataType type) {
  const std::string_view name = core::DataTypeProtocolName(type);
  return absl::string_view(name.data(), name.size());
}

template <typename T>
void Append(T value, std::string& out) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));  // little-endian host
}

template <typename T>
T Load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

// Copies `values` (count == elements, or one value repeated) as T.
template <typename T, typename Field>
absl::StatusOr<std::string> FromField(const std::string& name, const Field& values,
                                      int64_t elements) {
  const int64_t count = values.size();
  if (count != elements && count != 1) {
    return Invalid(
        name, absl::StrCat("holds ", count, " values, but its shape has ", elements, " elements"));
  }
  std::string out;
  out.reserve(static_cast<size_t>(elements) * sizeof(T));
  for (int64_t i = 0; i < elements; ++i) {
    const auto value = values.Get(count == 1 ? 0 : static_cast<int>(i));
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) < sizeof(value)) {
      if (value < static_cast<decltype(value)>(std::numeric_limits<T>::min()) ||
          value > static_cast<decltype(value)>(std::numeric_limits<T>::max())) {
        return Invalid(name, absl::StrCat("value ", value, " is out of range for its type"));
      }
    }
    Append(static_cast<T>(value), out);
  }
  return out;
}

absl::StatusOr<std::string> FromTypedField(const std::string& name,
                                           const tensorflow::TensorProto& proto, DataType type,
                                           int64_t elements) {
  switch (type) {
    case DataType::kFp32:
      return FromField<float>(name, proto.float_val(), elements);
    case DataType::kFp64:
      return FromField<double>(name, proto.double_val(), elements);
    case DataType::kInt32:
      return FromField<int32_t>(name, proto.int_val(), elements);
    case DataType::kInt16:
      return FromField<int16_t>(name, proto.int_val(), elements);
    case DataType::kInt8:
      return FromField<int8_t>(name, proto.int_val(), elements);
    case DataType::kUint8:
      return FromField<uint8_t>(name, proto.int_val(), elements);
    case DataType::kUint16:
      return FromField<uint16_t>(name, proto.int_val(), elements);
    case DataType::kInt64:
      return FromField<int64_t>(name, proto.int64_val(), elements);
    case DataType::kUint32:
      return FromField<uint32_t>(name, proto.uint32_val(), elements);
    case DataType::kUint64:
      return FromField<uint64_t>(name, proto.uint64_val(), elements);
    case DataType::kBool:
      return FromField<bool>(name, proto.bool_val(), elements);
    case DataType::kFp16:
    case DataType::kBf16:
      return FromField<uint16_t>(name, proto.half_val(), elements);
    case DataType::kBytes: {
      const int64_t count = proto.string_val_size();
      if (count != elements && count != 1) {
        return Invalid(name, absl::StrCat("holds ", count, " strings, but its shape has ", elements,
                                          " elements"));
      }
      std::string out;
      for (int64_t i = 0; i < elements; ++i) {
        core::AppendBytesElement(proto.string_val(count == 1 ? 0 : static_cast<int>(i)), out);
      }
      return out;
    }
    default:
      break;
  }
  return Invalid(name, "has a data type inferd cannot serve");
}

template <typename T, typename Field>
void ToField(const core::Tensor& tensor, int64_t elements, Field* field) {
  field->Reserve(static_cast<int>(elements));
  for (int64_t i = 0; i < elements; ++i) {
    field->Add(Load<T>(tensor.data.data + i * sizeof(T)));
  }
}

}  // namespace

std::optional<core::DataType> FromTfDataType(tensorflow::DataType type) {
  switch (type) {
    case tensorflow::DT_FLOAT:
      return DataType::kFp32;
    case tensorflow::DT_DOUBLE:
      return DataType::kFp64;
    case tensorflow::DT_INT32:
      return DataType::kInt32;
    case tensorflow::DT_UINT8:
      return DataType::kUint8;
    case tensorflow::DT_INT16:
      return DataType::kInt16;
    case tensorflow::DT_INT8:
      return DataType::kInt8;
    case tensorflow::DT_STRING:
      return DataType::kBytes;
    case tensorflow::DT_INT64:
      return DataType::kInt64;
    case tensorflow::DT_BOOL:
      return DataType::kBool;
    case tensorflow::DT_BFLOAT16:
      return DataType::kBf16;
    case tensorflow::DT_UINT16:
      return DataType::kUint16;
    case tensorflow::DT_HALF:
      return DataType::kFp16;
    case tensorflow::DT_UINT32:
      return DataType::kUint32;
    case tensorflow::DT_UINT64:
      return DataType::kUint64;
    default:
      return std::nullopt;
  }
}

tensorflow::DataType ToTfDataType(core::DataType type) {
  switch (type) {
    case DataType::kFp32:
      return tensorflow::DT_FLOAT;
    case DataType::kFp64:
      return tensorflow::DT_DOUBLE;
    case DataType::kInt32:
      return tensorflow::DT_INT32;
    case DataType::kUint8:
      return tensorflow::DT_UINT8;
    case DataType::kInt16:
      return tensorflow::DT_INT16;
    case DataType::kInt8:
      return tensorflow::DT_INT8;
    case DataType::kBytes:
      return tensorflow::DT_STRING;
    case DataType::kInt64:
      return tensorflow::DT_INT64;
    case DataType::kBool:
      return tensorflow::DT_BOOL;
    case DataType::kBf16:
      return tensorflow::DT_BFLOAT16;
    case DataType::kUint16:
      return tensorflow::DT_UINT16;
    case DataType::kFp16:
      return tensorflow::DT_HALF;
    case DataType::kUint32:
      return tensorflow::DT_UINT32;
    case DataType::kUint64:
      return tensorflow::DT_UINT64;
    default:
      return tensorflow::DT_INVALID;
  }
}

absl::StatusOr<core::Tensor> DecodeTensorProto(const std::string& name,
                                               const tensorflow::TensorProto& proto) {
  const auto type = FromTfDataType(proto.dtype());
  if (!type) {
    return Invalid(name, absl::StrCat("data type ", tensorflow::DataType_Name(proto.dtype()),
                                      " is not one inferd serves"));
  }
  if (proto.tensor_shape().unknown_rank()) return Invalid(name, "has an unknown rank");
  core::Tensor tensor;
  tensor.name = name;
  tensor.datatype = *type;
  for (const auto& dim : proto.tensor_shape().dim()) {
    if (dim.size() < 0) return Invalid(name, "has a negative dimension");
    tensor.shape.push_back(dim.size());
  }
  const auto elements = core::ElementCount(tensor.shape);
  if (!elements.ok()) return Invalid(name, elements.status().message());
  if (!proto.tensor_content().empty()) {
    const size_t element_size = core::DataTypeByteSize(*type);
    if (element_size == 0) return Invalid(name, "DT_STRING values must be in string_val");
    if (proto.tensor_content().size() != static_cast<size_t>(*elements) * element_size) {
      return Invalid(name, absl::StrCat("tensor_content holds ", proto.tensor_content().size(),
                                        " bytes, but its shape and type need ",
                                        *elements * static_cast<int64_t>(element_size)));
    }
    tensor.data = core::Buffer::Copy(proto.tensor_content());
    return tensor;
  }
  INFERD_ASSIGN_OR_RETURN(std::string bytes, FromTypedField(name, proto, *type, *elements));
  tensor.data = core::Buffer::Own(std::move(bytes));
  return tensor;
}

absl::Status EncodeTensorProto(const core::Tensor& tensor, tensorflow::TensorProto& proto) {
  proto.set_dtype(ToTfDataType(tensor.datatype));
  for (int64_t dim : tensor.shape) proto.mutable_tensor_shape()->add_dim()->set_size(dim);
  INFERD_ASSIGN_OR_RETURN(const int64_t elements, core::ElementCount(tensor.shape));
  if (tensor.datatype == DataType::kBytes) {
    INFERD_ASSIGN_OR_RETURN(auto values, core::SplitBytesElements(tensor.data.view()));
    if (static_cast<int64_t>(values.size()) != elements) {
      return absl::InternalError(absl::StrCat("output '", tensor.name, "' holds ", values.size(),
                                              " strings for ", elements, " elements"));
    }
    for (std::string_view value : values) proto.add_string_val(value.data(), value.size());
    return absl::OkStatus();
  }
  if (tensor.data.size != static_cast<size_t>(elements) * core::DataTypeByteSize(tensor.datatype)) {
    return absl::InternalError(absl::StrCat("output '", tensor.name, "' holds ", tensor.data.size,
                                            " bytes, not ", elements, " elements of ",
                                            TypeName(tensor.datatype)));
  }
  switch (tensor.datatype) {
    case DataType::kFp32:
      ToField<float>(tensor, elements, proto.mutable_float_val());
      break;
    case DataType::kFp64:
      ToField<double>(tensor, elements, proto.mutable_double_val());
      break;
    case DataType::kInt32:
      ToField<int32_t>(tensor, elements, proto.mutable_int_val());
      break;
    case DataType::kInt16:
      ToField<int16_t>(tensor, elements, proto.mutable_int_val());
      break;
    case DataType::kInt8:
      ToField<int8_t>(tensor, elements, proto.mutable_int_val());
      break;
    case DataType::kUint8:
      ToField<uint8_t>(tensor, elements, proto.mutable_int_val());
      break;
    case DataType::kUint16:
      ToField<uint16_t>(tensor, elements, proto.mutable_int_val());
      break;
    case DataType::kInt64:
      ToField<int64_t>(tensor, elements, proto.mutable_int64_val());
      break;
    case DataType::kUint32:
      ToField<uint32_t>(tensor, elements, proto.mutable_uint32_val());
      break;
    case DataType::kUint64:
      ToField<uint64_t>(tensor, elements, proto.mutable_uint64_val());
      break;
    case DataType::kBool:
      ToField<bool>(tensor, elements, proto.mutable_bool_val());
      break;
    case DataType::kFp16:
    case DataType::kBf16:
      ToField<uint16_t>(tensor, elements, proto.mutable_half_val());
      break;
    default:
      return absl::InternalError(absl::StrCat("output '", tensor.name, "' has no TF data type"));
  }
  return absl::OkStatus();
}

}  // namespace inferd::frontends::tfserving
