// SPDX-License-Identifier: Apache-2.0
// Conversions between inferd's (Triton's) data types and ONNX tensor element
// types. Every KServe type has an ONNX counterpart; BYTES is ONNX STRING.
#pragma once

#include <onnxruntime_c_api.h>

#include <cstddef>
#include <optional>

#include "inferd/backend.h"

namespace inferd::ort {

// Returns nullopt for INFERD_TYPE_INVALID or unknown values.
std::optional<ONNXTensorElementDataType> ToOnnxType(INFERD_DataType type);

// Returns nullopt for ONNX types inferd cannot carry (complex, float8, int4, ...).
std::optional<INFERD_DataType> FromOnnxType(ONNXTensorElementDataType type);

// Bytes per element; 0 for BYTES (variable length) and invalid types.
size_t ElementByteSize(INFERD_DataType type);

// The KServe name ("FP32", "BYTES"), for messages.
const char* DataTypeName(INFERD_DataType type);

// The ONNX name ("float", "string"), for messages.
const char* OnnxTypeName(ONNXTensorElementDataType type);

}  // namespace inferd::ort
