// SPDX-License-Identifier: Apache-2.0
// Status and StatusOr (and a few ABI helpers) for the backends that ship
// with inferd. A backend
// library sees only include/inferd/backend.h, so it cannot use Abseil; this
// is the small subset it needs, carrying an INFERD_ErrorCode so errors cross
// the ABI as-is. Shared by every in-tree backend (src/backends/common).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "inferd/backend.h"

namespace inferd::backend_util {

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(INFERD_ErrorCode code, std::string message)
      : ok_(false), code_(code), message_(std::move(message)) {}

  static Status InvalidArg(std::string message) {
    return Status(INFERD_ERROR_INVALID_ARG, std::move(message));
  }
  static Status Internal(std::string message) {
    return Status(INFERD_ERROR_INTERNAL, std::move(message));
  }
  static Status Unsupported(std::string message) {
    return Status(INFERD_ERROR_UNSUPPORTED, std::move(message));
  }

  bool ok() const { return ok_; }
  INFERD_ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  bool ok_ = true;
  INFERD_ErrorCode code_ = INFERD_ERROR_UNKNOWN;
  std::string message_;
};

// Holds a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {}  // NOLINT: implicit like absl
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T& operator*() { return *value_; }
  T* operator->() { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

// Prefixes a non-OK status's message with "<context>: ".
inline Status WithContext(Status status, const std::string& context) {
  if (status.ok()) return status;
  return Status(status.code(), context + ": " + status.message());
}

// The ABI form of `status`: NULL for OK, else a new error from the server.
inline INFERD_Error* ToError(const INFERD_ServerApi* api, const Status& status) {
  if (status.ok()) return nullptr;
  return api->ErrorNew(status.code(), status.message().c_str());
}

// In-tree backends ship with the server, so they require its major version
// and every member of this header's minor version (`backend` names the
// library in the error).
inline Status CheckAbi(const INFERD_ServerApi* api, const INFERD_ModelSpec* spec,
                       const std::string& backend) {
  if (api->version_major != INFERD_BACKEND_API_VERSION_MAJOR ||
      api->struct_size < sizeof(INFERD_ServerApi)) {
    return Status(INFERD_ERROR_UNSUPPORTED, backend + " backend: incompatible server api");
  }
  if (spec == nullptr || spec->struct_size < sizeof(INFERD_ModelSpec)) {
    return Status(INFERD_ERROR_UNSUPPORTED, backend + " backend: incompatible model spec");
  }
  return Status();
}

// Bytes of one element; 0 for BYTES (variable) and unknown types.
inline size_t ElementByteSize(INFERD_DataType datatype) {
  switch (datatype) {
    case INFERD_TYPE_BOOL:
    case INFERD_TYPE_UINT8:
    case INFERD_TYPE_INT8:
      return 1;
    case INFERD_TYPE_UINT16:
    case INFERD_TYPE_INT16:
    case INFERD_TYPE_FP16:
    case INFERD_TYPE_BF16:
      return 2;
    case INFERD_TYPE_UINT32:
    case INFERD_TYPE_INT32:
    case INFERD_TYPE_FP32:
      return 4;
    case INFERD_TYPE_UINT64:
    case INFERD_TYPE_INT64:
    case INFERD_TYPE_FP64:
      return 8;
    default:
      return 0;
  }
}

}  // namespace inferd::backend_util

// src/base/status_macros.h is out of a backend's reach.
#define INFERD_BACKEND_RETURN_IF_ERROR(expr)     \
  do {                                           \
    ::inferd::backend_util::Status _st = (expr); \
    if (!_st.ok()) return _st;                   \
  } while (0)
