// SPDX-License-Identifier: Apache-2.0
// The shared backend Status (src/backends/common) under this backend's names.
#pragma once

#include "backend_status.h"

namespace inferd::pt {
using backend_util::Status;
using backend_util::StatusOr;
using backend_util::WithContext;
}  // namespace inferd::pt

#define INFERD_PT_RETURN_IF_ERROR(expr) INFERD_BACKEND_RETURN_IF_ERROR(expr)
