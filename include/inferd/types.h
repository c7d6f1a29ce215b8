/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The enums that inferd's two C interfaces share: the backend ABI
 * (inferd/backend.h) and the embedding API (inferd/inferd.h). Both headers
 * include this one, so a program may include both. Values are only ever
 * added (a minor version of either interface): treat an unknown
 * INFERD_DataType as unsupported and an unknown INFERD_ErrorCode as
 * INFERD_ERROR_UNKNOWN.
 */
#ifndef INFERD_TYPES_H_
#define INFERD_TYPES_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Element types. Numbers match Triton's model_config DataType enum (config
 * TYPE_<X>; TYPE_STRING is INFERD_TYPE_BYTES). Data is little-endian and
 * densely packed in row-major order; BOOL is one byte (0 or 1); FP16 and
 * BF16 are the 16-bit IEEE half and bfloat16 bit patterns. */
typedef enum INFERD_DataType {
  INFERD_TYPE_INVALID = 0,
  INFERD_TYPE_BOOL = 1,
  INFERD_TYPE_UINT8 = 2,
  INFERD_TYPE_UINT16 = 3,
  INFERD_TYPE_UINT32 = 4,
  INFERD_TYPE_UINT64 = 5,
  INFERD_TYPE_INT8 = 6,
  INFERD_TYPE_INT16 = 7,
  INFERD_TYPE_INT32 = 8,
  INFERD_TYPE_INT64 = 9,
  INFERD_TYPE_FP16 = 10,
  INFERD_TYPE_FP32 = 11,
  INFERD_TYPE_FP64 = 12,
  /* Variable-length byte strings. In memory a BYTES tensor is, per element in
   * row-major order, a uint32 little-endian length followed by that many
   * bytes (the KServe v2 binary encoding). */
  INFERD_TYPE_BYTES = 13,
  INFERD_TYPE_BF16 = 14
} INFERD_DataType;

/* Error codes; each maps to one HTTP status and one gRPC status (see
 * "Errors" in inferd/backend.h and inferd/inferd.h). */
typedef enum INFERD_ErrorCode {
  INFERD_ERROR_UNKNOWN = 0,
  INFERD_ERROR_INTERNAL = 1,
  INFERD_ERROR_NOT_FOUND = 2,
  INFERD_ERROR_INVALID_ARG = 3,
  INFERD_ERROR_UNAVAILABLE = 4,
  INFERD_ERROR_UNSUPPORTED = 5,
  INFERD_ERROR_ALREADY_EXISTS = 6,
  INFERD_ERROR_CANCELLED = 7,
  /* Since backend ABI minor 3: a deadline or timeout passed (HTTP 504 /
   * gRPC DEADLINE_EXCEEDED). */
  INFERD_ERROR_DEADLINE_EXCEEDED = 8
} INFERD_ErrorCode;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INFERD_TYPES_H_ */
