// SPDX-License-Identifier: Apache-2.0
// The shared backend Status (src/backends/common) under this backend's names.
#pragma once

#include "backend_status.h"

namespace inferd::ort {
using backend_util::Status;
using backend_util::StatusOr;
}  // namespace inferd::ort

#define INFERD_ORT_RETURN_IF_ERROR(expr) INFERD_BACKEND_RETURN_IF_ERROR(expr)
