// SPDX-License-Identifier: Apache-2.0
// One instance of an ONNX Runtime model: its own Ort::Session, so instances
// run concurrently on their own threads without sharing session state.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <memory>

#include "inferd/backend.h"
#include "ort_model.h"
#include "ort_request_batch.h"
#include "status.h"

namespace inferd::ort {

// Execute is called for one batch at a time (backend.h threading contract).
// `model` is borrowed and outlives the instance.
class OrtInstance {
 public:
  static StatusOr<std::unique_ptr<OrtInstance>> Create(const OrtModel& model, uint32_t index);

  // Runs the batch and completes every request exactly once, with its
  // outputs or with the batch's error. Never throws (terminates only if
  // the bookkeeping itself cannot be allocated).
  void Execute(INFERD_Request** requests, size_t count) noexcept;

 private:
  OrtInstance(const OrtModel& model, Ort::Session session);

  // Builds inputs, runs the session and writes outputs; returns the error
  // that fails every request not yet completed. May throw Ort::Exception.
  Status Run(RequestBatch& batch);

  const OrtModel& model_;
  Ort::Session session_;
  Ort::MemoryInfo cpu_;
};

}  // namespace inferd::ort
