// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/raw_binary_request.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "core/bytes_encoding.h"
#include "core/shape.h"

namespace inferd::frontends::http {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

// The input's shape for `byte_size` bytes: batch 1 and the single variable
// dimension (if any) solved from the size.
absl::StatusOr<core::Shape> RawShape(const TensorMetadata& input, bool batched, size_t byte_size) {
  core::Shape shape = input.shape;
  if (batched && !shape.empty()) shape[0] = 1;
  if (input.datatype == core::DataType::kBytes) {
    const size_t dims = batched ? 2 : 1;
    if (shape.size() != dims || (shape.back() != 1 && shape.back() != -1)) {
      return Invalid(absl::StrCat("raw binary requests need BYTES input '", input.name,
                                  "' to have shape [1]"));
    }
    shape.back() = 1;
    return shape;
  }
  int variable = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] >= 0) {
      known *= shape[i];
      continue;
    }
    if (variable >= 0) {
      return Invalid(absl::StrCat("raw binary requests need input '", input.name,
                                  "' to have at most one variable dimension"));
    }
    variable = static_cast<int>(i);
  }
  const size_t element_size = core::DataTypeByteSize(input.datatype);
  const uint64_t row = static_cast<uint64_t>(known) * element_size;
  if (variable >= 0) {
    if (row == 0 || byte_size % row != 0) {
      return Invalid(absl::StrCat("raw binary body of ", byte_size, " bytes does not fit input '",
                                  input.name, "' shape ", core::ShapeToString(input.shape)));
    }
    shape[variable] = static_cast<int64_t>(byte_size / row);
  }
  return shape;
}

}  // namespace

absl::StatusOr<DecodedInferRequest> DecodeRawBinaryRequest(std::shared_ptr<const std::string> body,
                                                           const ModelMetadata& metadata,
                                                           bool batched) {
  if (metadata.inputs.size() != 1) {
    return Invalid(
        absl::StrCat("raw binary requests (Inference-Header-Content-Length: 0) need a "
                     "model with exactly one input; model '",
                     metadata.name, "' has ", metadata.inputs.size()));
  }
  const TensorMetadata& input = metadata.inputs[0];
  core::Tensor tensor;
  tensor.name = input.name;
  tensor.datatype = input.datatype;
  INFERD_ASSIGN_OR_RETURN(tensor.shape, RawShape(input, batched, body->size()));
  if (tensor.datatype == core::DataType::kBytes) {
    // The whole body is the one element; it travels length-prefixed.
    std::string encoded;
    core::AppendBytesElement(*body, encoded);
    tensor.data = core::Buffer::Own(std::move(encoded));
  } else {
    INFERD_ASSIGN_OR_RETURN(size_t expected, core::FixedByteSize(tensor.datatype, tensor.shape));
    if (expected != body->size()) {
      return Invalid(absl::StrCat("raw binary body of ", body->size(),
                                  " bytes does not match input '", input.name, "' shape ",
                                  core::ShapeToString(tensor.shape), " (", expected, " bytes)"));
    }
    tensor.data = core::Buffer{body->data(), body->size(), body};
  }
  DecodedInferRequest decoded;
  decoded.request = std::make_unique<core::InferRequest>();
  decoded.request->inputs.push_back(std::move(tensor));
  decoded.format.binary_default = true;
  return decoded;
}

}  // namespace inferd::frontends::http
