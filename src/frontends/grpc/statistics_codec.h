// SPDX-License-Identifier: Apache-2.0
// Model statistics (inferd::Server::Statistics) -> the ModelStatistics
// response of the statistics extension: counts and nanoseconds as Triton
// reports them, last_inference in ms since the epoch. No I/O.
#pragma once

#include <vector>

#include "grpc_service.pb.h"
#include "server/server.h"

namespace inferd::frontends::grpc {

// Appends one ModelStatistics per entry, in order. memory_usage and
// response_stats stay empty (no device memory accounting, no decoupled models).
void EncodeModelStatistics(const std::vector<ModelStatistics>& stats,
                           inference::ModelStatisticsResponse& message);

}  // namespace inferd::frontends::grpc
