// SPDX-License-Identifier: Apache-2.0
// Tensor bytes of one gRPC input from typed InferTensorContents (narrowing
// INT8/16 and UINT8/16, prefixing BYTES elements). No I/O. A
// raw_input_contents entry needs no decoding: the request validator checks
// its size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/data_type.h"
#include "core/tensor.h"
#include "grpc_service.pb.h"

namespace inferd::frontends::grpc {

// Bytes of `count` elements of `type` in the binary layout the server uses.
// Same-width fields (INT32, INT64, UINT32, UINT64, FP32, FP64) are not
// copied: the Buffer points into `contents` and holds `owner`.
// InvalidArgument: the field for `type` does not hold exactly `count`
// values, a value does not fit the type, or the type is FP16/BF16 (raw only).
absl::StatusOr<core::Buffer> DecodeTensorContents(const inference::InferTensorContents& contents,
                                                  core::DataType type, int64_t count,
                                                  const std::shared_ptr<const void>& owner);

}  // namespace inferd::frontends::grpc
