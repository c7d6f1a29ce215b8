// SPDX-License-Identifier: Apache-2.0
#include "server/statistics_json.h"

#include <string_view>

#include "core/json_writer.h"

namespace inferd {
namespace {

using core::JsonWriter;
using core::TakeString;
using core::WriteKey;
using core::WriteString;

void WriteUint64Field(JsonWriter& writer, std::string_view key, uint64_t value) {
  WriteKey(writer, key);
  writer.Uint64(value);
}

void WriteDuration(JsonWriter& writer, std::string_view key, const core::StatDuration& duration) {
  WriteKey(writer, key);
  writer.StartObject();
  WriteUint64Field(writer, "count", duration.count);
  WriteUint64Field(writer, "ns", duration.ns);
  writer.EndObject();
}

void WriteInferenceStats(JsonWriter& writer, const core::ModelStatsSnapshot& stats) {
  WriteKey(writer, "inference_stats");
  writer.StartObject();
  WriteDuration(writer, "success", stats.success);
  WriteDuration(writer, "fail", stats.fail);
  WriteDuration(writer, "queue", stats.queue);
  WriteDuration(writer, "compute_input", stats.compute_input);
  WriteDuration(writer, "compute_infer", stats.compute_infer);
  WriteDuration(writer, "compute_output", stats.compute_output);
  WriteDuration(writer, "cache_hit", stats.cache_hit);
  WriteDuration(writer, "cache_miss", stats.cache_miss);
  writer.EndObject();
}

void WriteBatchStats(JsonWriter& writer, const std::vector<core::BatchStat>& batches) {
  WriteKey(writer, "batch_stats");
  writer.StartArray();
  for (const core::BatchStat& batch : batches) {
    writer.StartObject();
    WriteUint64Field(writer, "batch_size", batch.batch_size);
    WriteDuration(writer, "compute_input", batch.compute_input);
    WriteDuration(writer, "compute_infer", batch.compute_infer);
    WriteDuration(writer, "compute_output", batch.compute_output);
    writer.EndObject();
  }
  writer.EndArray();
}

void WriteModelStat(JsonWriter& writer, const ModelStatistics& model) {
  const core::ModelStatsSnapshot& stats = model.stats;
  writer.StartObject();
  WriteKey(writer, "name");
  if (!WriteString(writer, model.name)) writer.Null();  // not UTF-8 (a file name, say)
  WriteKey(writer, "version");
  if (!WriteString(writer, model.version)) writer.Null();
  WriteUint64Field(writer, "last_inference", stats.last_inference_ms);
  WriteUint64Field(writer, "inference_count", stats.inference_count);
  WriteUint64Field(writer, "execution_count", stats.execution_count);
  WriteInferenceStats(writer, stats);
  WriteBatchStats(writer, stats.batch_stats);
  // No device memory accounting and no decoupled models yet: always empty.
  WriteKey(writer, "memory_usage");
  writer.StartArray();
  writer.EndArray();
  WriteKey(writer, "response_stats");
  writer.StartObject();
  writer.EndObject();
  writer.EndObject();
}

}  // namespace

std::string ModelStatisticsJson(const std::vector<ModelStatistics>& stats) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  WriteKey(writer, "model_stats");
  writer.StartArray();
  for (const ModelStatistics& model : stats) WriteModelStat(writer, model);
  writer.EndArray();
  writer.EndObject();
  return TakeString(buffer);
}

}  // namespace inferd
