// SPDX-License-Identifier: Apache-2.0
// The process-wide Ort::Env. ORT wants one per process; it owns the logging
// sink and global state shared by every session of every model.
#pragma once

#include <onnxruntime_cxx_api.h>

namespace inferd::ort {

// Created on first use (thread-safe), logging at WARNING, never destroyed.
// May throw Ort::Exception on first use.
Ort::Env& SharedEnv();

}  // namespace inferd::ort
