// SPDX-License-Identifier: Apache-2.0
#include "ort_type_mapping.h"

namespace inferd::ort {
namespace {

struct TypePair {
  INFERD_DataType inferd;
  ONNXTensorElementDataType onnx;
  size_t byte_size;
  const char* kserve_name;
  const char* onnx_name;
};

constexpr TypePair kTypes[] = {
    {INFERD_TYPE_BOOL, ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, 1, "BOOL", "bool"},
    {INFERD_TYPE_UINT8, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, 1, "UINT8", "uint8"},
    {INFERD_TYPE_UINT16, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16, 2, "UINT16", "uint16"},
    {INFERD_TYPE_UINT32, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32, 4, "UINT32", "uint32"},
    {INFERD_TYPE_UINT64, ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64, 8, "UINT64", "uint64"},
    {INFERD_TYPE_INT8, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, 1, "INT8", "int8"},
    {INFERD_TYPE_INT16, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16, 2, "INT16", "int16"},
    {INFERD_TYPE_INT32, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, 4, "INT32", "int32"},
    {INFERD_TYPE_INT64, ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, 8, "INT64", "int64"},
    {INFERD_TYPE_FP16, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, 2, "FP16", "float16"},
    {INFERD_TYPE_BF16, ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16, 2, "BF16", "bfloat16"},
    {INFERD_TYPE_FP32, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, 4, "FP32", "float"},
    {INFERD_TYPE_FP64, ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE, 8, "FP64", "double"},
    {INFERD_TYPE_BYTES, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, 0, "BYTES", "string"},
};

const TypePair* FindInferd(INFERD_DataType type) {
  for (const TypePair& pair : kTypes) {
    if (pair.inferd == type) return &pair;
  }
  return nullptr;
}

const TypePair* FindOnnx(ONNXTensorElementDataType type) {
  for (const TypePair& pair : kTypes) {
    if (pair.onnx == type) return &pair;
  }
  return nullptr;
}

}  // namespace

std::optional<ONNXTensorElementDataType> ToOnnxType(INFERD_DataType type) {
  const TypePair* pair = FindInferd(type);
  if (pair == nullptr) return std::nullopt;
  return pair->onnx;
}

std::optional<INFERD_DataType> FromOnnxType(ONNXTensorElementDataType type) {
  const TypePair* pair = FindOnnx(type);
  if (pair == nullptr) return std::nullopt;
  return pair->inferd;
}

size_t ElementByteSize(INFERD_DataType type) {
  const TypePair* pair = FindInferd(type);
  return pair == nullptr ? 0 : pair->byte_size;
}

const char* DataTypeName(INFERD_DataType type) {
  const TypePair* pair = FindInferd(type);
  return pair == nullptr ? "INVALID" : pair->kserve_name;
}

const char* OnnxTypeName(ONNXTensorElementDataType type) {
  switch (type) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64:
      return "complex64";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX128:
      return "complex128";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED:
      return "undefined";
    default:
      break;
  }
  const TypePair* pair = FindOnnx(type);
  return pair == nullptr ? "unsupported element type" : pair->onnx_name;
}

}  // namespace inferd::ort
