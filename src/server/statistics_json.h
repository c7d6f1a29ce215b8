// SPDX-License-Identifier: Apache-2.0
// The JSON body of the statistics extension (GET /v2/models[/{M}[/versions/
// {V}]]/stats), as Triton writes it: every counter a JSON number, `version`
// a string, durations in nanoseconds, last_inference in ms since the epoch.
// Shared by the HTTP frontend and the C API (src/capi). No I/O.
#pragma once

#include <string>
#include <vector>

#include "server/server.h"

namespace inferd {

// {"model_stats":[{"name","version","last_inference","inference_count",
// "execution_count","inference_stats":{"success","fail","queue",
// "compute_input","compute_infer","compute_output","cache_hit",
// "cache_miss"},"batch_stats":[{"batch_size","compute_input",
// "compute_infer","compute_output"}],"memory_usage":[],
// "response_stats":{}}]}, each duration {"count","ns"}.
std::string ModelStatisticsJson(const std::vector<ModelStatistics>& stats);

}  // namespace inferd
