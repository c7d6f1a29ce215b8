// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/statistics_codec.h"

namespace inferd::frontends::grpc {
namespace {

void EncodeDuration(const core::StatDuration& duration, inference::StatisticDuration& message) {
  message.set_count(duration.count);
  message.set_ns(duration.ns);
}

void EncodeInferStatistics(const core::ModelStatsSnapshot& stats,
                           inference::InferStatistics& message) {
  EncodeDuration(stats.success, *message.mutable_success());
  EncodeDuration(stats.fail, *message.mutable_fail());
  EncodeDuration(stats.queue, *message.mutable_queue());
  EncodeDuration(stats.compute_input, *message.mutable_compute_input());
  EncodeDuration(stats.compute_infer, *message.mutable_compute_infer());
  EncodeDuration(stats.compute_output, *message.mutable_compute_output());
  EncodeDuration(stats.cache_hit, *message.mutable_cache_hit());
  EncodeDuration(stats.cache_miss, *message.mutable_cache_miss());
}

void EncodeOne(const ModelStatistics& model, inference::ModelStatistics& message) {
  const core::ModelStatsSnapshot& stats = model.stats;
  message.set_name(model.name);
  message.set_version(model.version);
  message.set_last_inference(stats.last_inference_ms);
  message.set_inference_count(stats.inference_count);
  message.set_execution_count(stats.execution_count);
  EncodeInferStatistics(stats, *message.mutable_inference_stats());
  message.mutable_batch_stats()->Reserve(static_cast<int>(stats.batch_stats.size()));
  for (const core::BatchStat& batch : stats.batch_stats) {
    auto* entry = message.add_batch_stats();
    entry->set_batch_size(batch.batch_size);
    EncodeDuration(batch.compute_input, *entry->mutable_compute_input());
    EncodeDuration(batch.compute_infer, *entry->mutable_compute_infer());
    EncodeDuration(batch.compute_output, *entry->mutable_compute_output());
  }
}

}  // namespace

void EncodeModelStatistics(const std::vector<ModelStatistics>& stats,
                           inference::ModelStatisticsResponse& message) {
  message.mutable_model_stats()->Reserve(static_cast<int>(stats.size()));
  for (const ModelStatistics& model : stats) EncodeOne(model, *message.add_model_stats());
}

}  // namespace inferd::frontends::grpc
