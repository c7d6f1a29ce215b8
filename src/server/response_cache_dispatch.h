// SPDX-License-Identifier: Apache-2.0
// Where the server's one request path meets the response cache
// (Server::Dispatch, after validation): answer a hit at once, or let a miss
// run and store its successful response on the way out. The statistics are
// Triton's (core::ModelStats::RecordCacheHit / RecordCacheMiss), recorded
// before the response leaves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/infer_request.h"
#include "lifecycle/model_version.h"
#include "server/response_cache.h"

namespace inferd {

// Whether `version`'s responses go through the cache: the model enables
// `response_cache`, and is neither decoupled (refused at load) nor a
// sequence model (its answers depend on the sequence's state).
bool UsesResponseCache(const lifecycle::ModelVersion& version);

// For a validated request of a version that UsesResponseCache: true when
// the cache answered it (`on_complete` has been called); false when it
// missed, with `on_complete` wrapped to insert the successful response.
// `outputs` are the names the response carries, in order; `model_shapes`
// ValidatedRequest's; `arrival` when
// the server accepted the request (base::Clock::Real()).
bool AnswerFromCacheOrWrap(ResponseCache& cache, const lifecycle::ModelVersion& version,
                           const core::InferRequest& request,
                           const std::vector<std::string>& outputs, bool model_shapes,
                           int64_t arrival, core::InferCallback& on_complete);

}  // namespace inferd
