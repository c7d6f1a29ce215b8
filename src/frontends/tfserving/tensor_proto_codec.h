// SPDX-License-Identifier: Apache-2.0
// TF Serving's TensorProto <-> core::Tensor, both directions, and the data
// type names of the two worlds. No I/O; used by the gRPC services.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "tensorflow/core/framework/tensor.pb.h"

namespace inferd::frontends::tfserving {

// DT_FLOAT <-> kFp32, DT_STRING <-> kBytes, DT_HALF <-> kFp16, ...;
// nullopt / DT_INVALID for a type the other side lacks (complex, quantized).
std::optional<core::DataType> FromTfDataType(tensorflow::DataType type);
tensorflow::DataType ToTfDataType(core::DataType type);

// A request tensor named `name`. Values come from tensor_content (raw
// little-endian bytes) or the typed field of the dtype; a typed field with
// one value fills the whole shape (TensorFlow's rule). InvalidArgument
// naming the tensor for a type inferd cannot serve, a bad shape, a value
// count that does not match the shape, or an integer out of its type's range.
absl::StatusOr<core::Tensor> DecodeTensorProto(const std::string& name,
                                               const tensorflow::TensorProto& proto);

// An output tensor as TF Serving answers it: dtype, shape and the typed
// value field (string_val for BYTES). Internal when the bytes do not match
// the shape.
absl::Status EncodeTensorProto(const core::Tensor& tensor, tensorflow::TensorProto& proto);

}  // namespace inferd::frontends::tfserving
