// SPDX-License-Identifier: Apache-2.0
// The C API's version, errors, strings and data types (include/inferd/inferd.h).
#include <cstdlib>
#include <cstring>
#include <new>

#include "capi/capi_internal.h"
#include "core/data_type.h"
#include "core/status_mapping.h"

#ifndef INFERD_VERSION
#define INFERD_VERSION "0.0.0"
#endif

namespace inferd::capi {
namespace {

// The backend ABI's mapping (core::BackendErrorCode), plus the statuses it
// leaves as INTERNAL but a caller of the server can cause: the load API in
// a mode other than explicit, a full queue, a value out of range. The table
// is in include/inferd/inferd.h, "Errors".
INFERD_ErrorCode EmbeddingErrorCode(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kFailedPrecondition:
      return INFERD_ERROR_UNSUPPORTED;
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kAborted:
      return INFERD_ERROR_UNAVAILABLE;
    case absl::StatusCode::kOutOfRange:
      return INFERD_ERROR_INVALID_ARG;
    default:
      return core::BackendErrorCode(code);
  }
}

}  // namespace

char* CopyOut(const std::string& text) {
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy == nullptr) throw std::bad_alloc();
  std::memcpy(copy, text.data(), text.size());
  copy[text.size()] = '\0';
  return copy;
}

absl::StatusOr<std::string> VersionString(const char* function, int64_t version) {
  if (version < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat(function, ": version ", version, " is neither > 0 nor 0 / -1 (the newest)"));
  }
  return version > 0 ? std::to_string(version) : std::string();
}

}  // namespace inferd::capi

extern "C" {

void INFERD_ApiVersion(uint32_t* major, uint32_t* minor) {
  if (major != nullptr) *major = INFERD_API_VERSION_MAJOR;
  if (minor != nullptr) *minor = INFERD_API_VERSION_MINOR;
}

const char* INFERD_Version(void) { return INFERD_VERSION; }

INFERD_Error* INFERD_ErrorNew(INFERD_ErrorCode code, const char* message) {
  const int raw = inferd::capi::RawEnumValue(code);
  const INFERD_ErrorCode known =
      raw >= INFERD_ERROR_UNKNOWN && raw <= INFERD_ERROR_DEADLINE_EXCEEDED
          ? static_cast<INFERD_ErrorCode>(raw)
          : INFERD_ERROR_UNKNOWN;
  try {
    return new INFERD_Error(
        inferd::core::StatusFromBackendError(known, message == nullptr ? "" : message));
  } catch (...) {
    return nullptr;  // out of memory: nothing better to hand back
  }
}

INFERD_ErrorCode INFERD_ErrorGetCode(const INFERD_Error* error) {
  return error == nullptr ? INFERD_ERROR_UNKNOWN
                          : inferd::capi::EmbeddingErrorCode(error->status.code());
}

const char* INFERD_ErrorGetMessage(const INFERD_Error* error) {
  return error == nullptr ? "" : error->message.c_str();
}

const char* INFERD_ErrorCodeName(INFERD_ErrorCode code) {
  switch (inferd::capi::RawEnumValue(code)) {
    case INFERD_ERROR_INTERNAL:
      return "INTERNAL";
    case INFERD_ERROR_NOT_FOUND:
      return "NOT_FOUND";
    case INFERD_ERROR_INVALID_ARG:
      return "INVALID_ARG";
    case INFERD_ERROR_UNAVAILABLE:
      return "UNAVAILABLE";
    case INFERD_ERROR_UNSUPPORTED:
      return "UNSUPPORTED";
    case INFERD_ERROR_ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case INFERD_ERROR_CANCELLED:
      return "CANCELLED";
    case INFERD_ERROR_DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case INFERD_ERROR_UNKNOWN:
    default:
      return "UNKNOWN";
  }
}

void INFERD_ErrorDelete(INFERD_Error* error) { delete error; }

void INFERD_StringDelete(char* string) { std::free(string); }

const char* INFERD_DataTypeName(INFERD_DataType datatype) {
  const int raw = inferd::capi::RawEnumValue(datatype);
  if (!inferd::core::IsValidDataType(raw)) return "INVALID";
  // The names are string literals, so data() is NUL-terminated.
  return inferd::core::DataTypeProtocolName(static_cast<inferd::core::DataType>(raw)).data();
}

size_t INFERD_DataTypeByteSize(INFERD_DataType datatype) {
  const int raw = inferd::capi::RawEnumValue(datatype);
  if (!inferd::core::IsValidDataType(raw)) return 0;
  return inferd::core::DataTypeByteSize(static_cast<inferd::core::DataType>(raw));
}

}  // extern "C"
