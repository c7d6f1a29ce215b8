// SPDX-License-Identifier: Apache-2.0
// Session options of a model, read from its config: `parameters`
// (intra_op_thread_count, inter_op_thread_count, execution_mode,
// enable_mem_arena, enable_mem_pattern) and optimization.graph.level.
#pragma once

#include <onnxruntime_cxx_api.h>

#include "inferd/backend.h"
#include "status.h"

namespace inferd::ort {

struct SessionConfig {
  int intra_op_threads = 1;
  int inter_op_threads = 1;
  ExecutionMode execution_mode = ORT_SEQUENTIAL;
  GraphOptimizationLevel optimization_level = ORT_ENABLE_ALL;
  bool enable_mem_arena = true;
  bool enable_mem_pattern = true;
};

// Fails with INVALID_ARG naming the parameter when a value does not parse.
StatusOr<SessionConfig> ParseSessionConfig(const INFERD_ModelSpec& spec);

// The options for DescribeModel: one thread, no graph optimization (it only
// reads the signature, so loading fast matters more).
SessionConfig DescribeSessionConfig();

// Builds ORT session options. May throw Ort::Exception.
Ort::SessionOptions MakeSessionOptions(const SessionConfig& config);

}  // namespace inferd::ort
