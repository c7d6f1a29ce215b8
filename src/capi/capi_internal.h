// SPDX-License-Identifier: Apache-2.0
// What the C API's translation units share: the definitions of its opaque
// objects and the guard that turns a Status or an exception into an
// INFERD_Error* (no C++ exception may cross the C boundary).
// INFERD_Error, INFERD_InferRequest and INFERD_InferResponse are the backend
// ABI's own (backends/abi/server_api.h): one definition for both interfaces.
#pragma once

#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "backends/abi/server_api.h"
#include "inferd/inferd.h"
#include "server/server.h"

struct INFERD_ServerOptions {
  inferd::ServerOptions options;
  bool backend_directory_set = false;
  std::optional<std::string> log_level;
  std::chrono::milliseconds exit_timeout = std::chrono::seconds(30);
};

struct INFERD_EmbeddedServer {
  std::unique_ptr<inferd::Server> server;
  std::chrono::milliseconds exit_timeout{0};
};

namespace inferd::capi {

// INVALID_ARG "<function>: <what> is NULL" unless `pointer` is set.
inline absl::Status RequireNonNull(const void* pointer, const char* function, const char* what) {
  if (pointer != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(function, ": ", what, " is NULL"));
}

// Runs `body` (returning absl::Status): NULL on success, else the error.
// An exception (std::bad_alloc, a bug) becomes INTERNAL instead of crossing
// into C.
template <typename Body>
INFERD_Error* Guarded(const char* function, Body&& body) noexcept {
  try {
    const absl::Status status = body();
    return status.ok() ? nullptr : backends::NewError(status);
  } catch (const std::exception& e) {
    return backends::NewError(absl::InternalError(absl::StrCat(function, ": ", e.what())));
  } catch (...) {
    return backends::NewError(absl::InternalError(absl::StrCat(function, ": unknown exception")));
  }
}

// The integer a C caller passed for an enum parameter. C lets any int
// through, while C++ must not read a value outside the enumerators' range as
// the enum (UBSan: -fsanitize=enum), so the bytes are copied instead.
template <typename Enum>
int RawEnumValue(const Enum& value) {
  static_assert(sizeof(Enum) == sizeof(int), "C enums are int-sized here");
  int raw = 0;
  std::memcpy(&raw, &value, sizeof raw);
  return raw;
}

// A malloc'd NUL-terminated copy for a `char**` result (INFERD_StringDelete frees it).
char* CopyOut(const std::string& text);

// `version` of the C API (> 0 a version, 0 or -1 the newest) as the
// Server's decimal string ("" for the newest); InvalidArgument below -1.
absl::StatusOr<std::string> VersionString(const char* function, int64_t version);

}  // namespace inferd::capi
