// SPDX-License-Identifier: Apache-2.0
// The two control-flow macros of the code base (Abseil 20220623 has none).
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define INFERD_STATUS_CONCAT_INNER_(a, b) a##b
#define INFERD_STATUS_CONCAT_(a, b) INFERD_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define INFERD_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::absl::Status inferd_status_ = (expr);          \
    if (!inferd_status_.ok()) return inferd_status_; \
  } while (false)

// `lhs = value of rexpr` when rexpr (an absl::StatusOr) is OK; returns its
// status otherwise. `lhs` may be a declaration: INFERD_ASSIGN_OR_RETURN(auto x, F());
#define INFERD_ASSIGN_OR_RETURN(lhs, rexpr) \
  INFERD_ASSIGN_OR_RETURN_IMPL_(INFERD_STATUS_CONCAT_(inferd_statusor_, __LINE__), lhs, rexpr)

#define INFERD_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                  \
  if (!statusor.ok()) return std::move(statusor).status();  \
  lhs = std::move(statusor).value()
