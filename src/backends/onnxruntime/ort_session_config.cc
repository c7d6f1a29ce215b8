// SPDX-License-Identifier: Apache-2.0
#include "ort_session_config.h"

#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>

namespace inferd::ort {
namespace {

Status BadParameter(std::string_view key, std::string_view value, std::string_view expected) {
  return Status::InvalidArg("parameter '" + std::string(key) + "': invalid value '" +
                            std::string(value) + "', expected " + std::string(expected));
}

Status ParseThreads(std::string_view key, std::string_view value, int& out) {
  int parsed = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (ec != std::errc() || end != value.data() + value.size() || parsed < 0) {
    return BadParameter(key, value, "a thread count >= 0 (0: onnxruntime's default)");
  }
  out = parsed;
  return Status();
}

Status ParseBool(std::string_view key, std::string_view value, bool& out) {
  if (value == "1" || value == "true") {
    out = true;
  } else if (value == "0" || value == "false") {
    out = false;
  } else {
    return BadParameter(key, value, "true or false");
  }
  return Status();
}

Status ParseExecutionMode(std::string_view key, std::string_view value, ExecutionMode& out) {
  if (value == "0" || value == "sequential") {
    out = ORT_SEQUENTIAL;
  } else if (value == "1" || value == "parallel") {
    out = ORT_PARALLEL;
  } else {
    return BadParameter(key, value, "0 (sequential) or 1 (parallel)");
  }
  return Status();
}

Status ApplyParameter(std::string_view key, std::string_view value, SessionConfig& config) {
  if (key == "intra_op_thread_count") return ParseThreads(key, value, config.intra_op_threads);
  if (key == "inter_op_thread_count") return ParseThreads(key, value, config.inter_op_threads);
  if (key == "execution_mode") return ParseExecutionMode(key, value, config.execution_mode);
  if (key == "enable_mem_arena") return ParseBool(key, value, config.enable_mem_arena);
  if (key == "enable_mem_pattern") return ParseBool(key, value, config.enable_mem_pattern);
  return Status();  // parameters for other components are not ours to judge
}

// Triton's mapping of optimization.graph.level.
GraphOptimizationLevel MapOptimizationLevel(int32_t level) {
  switch (level) {
    case -1:
      return ORT_ENABLE_BASIC;
    case 1:
      return ORT_ENABLE_EXTENDED;
    case 2:
      return ORT_DISABLE_ALL;
    default:
      return ORT_ENABLE_ALL;
  }
}

}  // namespace

StatusOr<SessionConfig> ParseSessionConfig(const INFERD_ModelSpec& spec) {
  SessionConfig config;
  config.optimization_level = MapOptimizationLevel(spec.graph_optimization_level);
  // The server sizes default_intra_op_threads so that all instances fit the
  // cores; without a suggestion, one thread rather than ORT's all-cores pool.
  config.intra_op_threads = spec.default_intra_op_threads > 0 ? spec.default_intra_op_threads : 1;
  // --backend-config=onnxruntime,intra_op_thread_count=N (and inter_op_):
  // Triton's server-wide defaults; the model's parameters below win.
  for (size_t i = 0; i < spec.backend_config_count; ++i) {
    const INFERD_Parameter& setting = spec.backend_config[i];
    const std::string_view key = setting.key;
    if (key != "intra_op_thread_count" && key != "inter_op_thread_count") continue;
    INFERD_ORT_RETURN_IF_ERROR(ApplyParameter(key, setting.value, config));
  }
  for (size_t i = 0; i < spec.parameter_count; ++i) {
    const INFERD_Parameter& parameter = spec.parameters[i];
    if (parameter.key == nullptr || parameter.value == nullptr) continue;
    INFERD_ORT_RETURN_IF_ERROR(ApplyParameter(parameter.key, parameter.value, config));
  }
  return config;
}

SessionConfig DescribeSessionConfig() {
  SessionConfig config;
  config.optimization_level = ORT_DISABLE_ALL;
  return config;
}

Ort::SessionOptions MakeSessionOptions(const SessionConfig& config) {
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(config.intra_op_threads);
  options.SetInterOpNumThreads(config.inter_op_threads);
  options.SetExecutionMode(config.execution_mode);
  options.SetGraphOptimizationLevel(config.optimization_level);
  if (!config.enable_mem_arena) options.DisableCpuMemArena();
  if (!config.enable_mem_pattern) options.DisableMemPattern();
  // Pool threads must not spin waiting for work: cores are scarce and shared
  // with the frontend's I/O threads and other instances, and a spinning pool
  // burns a whole core per idle thread, slowing everything else down.
  options.AddConfigEntry("session.intra_op.allow_spinning", "0");
  options.AddConfigEntry("session.inter_op.allow_spinning", "0");
  return options;
}

}  // namespace inferd::ort
