// SPDX-License-Identifier: Apache-2.0
#include "server/response_cache_dispatch.h"

#include <memory>
#include <utility>

#include "base/clock.h"

namespace inferd {

bool UsesResponseCache(const lifecycle::ModelVersion& version) {
  const auto& config = version.config();
  return config.response_cache().enable() && !config.model_transaction_policy().decoupled() &&
         !config.has_sequence_batching();
}

bool AnswerFromCacheOrWrap(ResponseCache& cache, const lifecycle::ModelVersion& version,
                           const core::InferRequest& request,
                           const std::vector<std::string>& outputs, bool model_shapes,
                           int64_t arrival, core::InferCallback& on_complete) {
  const base::Clock& clock = base::Clock::Real();
  const int64_t lookup_start = clock.NowNanos();
  auto key = std::make_shared<const ResponseCacheKey>(
      ResponseCacheKey::Make(version.name(), version.version(), version.load_generation(),
                             request.inputs, outputs, request.parameters, model_shapes));
  auto hit = cache.Lookup(*key);
  const auto& stats = version.io()->stats;
  if (hit) {
    core::InferResponse response;
    response.model_name = version.name();
    response.model_version = version.version();
    response.id = request.id;
    response.outputs = *std::move(hit);
    const int64_t end = clock.NowNanos();
    stats->RecordCacheHit(end - arrival, end - lookup_start);
    on_complete(std::move(response));
    return true;
  }
  const int64_t lookup_ns = clock.NowNanos() - lookup_start;
  on_complete = [&cache, key = std::move(key), lookup_ns, stats,
                 on_complete =
                     std::move(on_complete)](absl::StatusOr<core::InferResponse> result) mutable {
    if (result.ok()) {
      const base::Clock& clock = base::Clock::Real();
      const int64_t insert_start = clock.NowNanos();
      cache.Insert(*key, result->outputs);
      stats->RecordCacheMiss(lookup_ns + clock.NowNanos() - insert_start);
    }
    key.reset();  // its input views may not outlive the caller's answer
    on_complete(std::move(result));
  };
  return false;
}

}  // namespace inferd
