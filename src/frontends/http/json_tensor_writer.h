// SPDX-License-Identifier: Apache-2.0
// Writes an output tensor's bytes as a flat JSON `data` array: booleans,
// integers, shortest round-trip floats (FP16/BF16 widened to float) and
// BYTES as strings. No I/O.
#pragma once

#include "absl/status/status.h"
#include "core/tensor.h"
#include "frontends/http/json_writer.h"

namespace inferd::frontends::http {

// Writes one element of a fixed-size type at `p` (TF Serving's REST writer
// nests them itself).
void WriteJsonElement(core::DataType type, const char* p, JsonWriter& writer);

// Writes the array value (the caller has written the "data" key).
// Internal when the bytes do not match the shape; InvalidArgument when a
// BYTES element is not valid UTF-8 (it must then be requested as binary).
absl::Status WriteJsonTensorData(const core::Tensor& tensor, JsonWriter& writer);

}  // namespace inferd::frontends::http
