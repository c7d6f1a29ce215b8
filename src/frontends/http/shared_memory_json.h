// SPDX-License-Identifier: Apache-2.0
// JSON of the system shared-memory extension (Triton's
// /v2/systemsharedmemory endpoints): the status list and the register body.
// No I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/shared_memory_registry.h"

namespace inferd::frontends::http {

// [{"name","key","offset","byte_size"}, ...]
std::string SharedMemoryStatusJson(const std::vector<SharedMemoryRegionStatus>& regions);

struct SharedMemoryRegisterBody {
  std::string key;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

// {"key": string, "offset": uint (optional, 0), "byte_size": uint}.
// InvalidArgument with Triton's words for a missing field ("Shared memory
// register request has no 'key' field") and for bad JSON or types.
absl::StatusOr<SharedMemoryRegisterBody> ParseSharedMemoryRegisterBody(std::string_view body);

}  // namespace inferd::frontends::http
