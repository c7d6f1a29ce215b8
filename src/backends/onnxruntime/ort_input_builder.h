// SPDX-License-Identifier: Apache-2.0
// Turns the inputs of a batch of requests into ORT values. One request's
// fixed-size input is wrapped in place (no copy); several requests' inputs are
// concatenated along the batch dim (one copy). BYTES inputs become ONNX string
// tensors.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstdint>
#include <vector>

#include "ort_model.h"
#include "ort_request_batch.h"
#include "status.h"

namespace inferd::ort {

struct BatchInputs {
  std::vector<const char*> names;  // point into the model's TensorConfig names
  std::vector<Ort::Value> values;  // may borrow request memory: use before completing
  // Each request's batch size (first dim); filled for batching models only.
  std::vector<int64_t> batch_sizes;
};

// Builds one value per configured input that the requests carry; optional
// inputs absent from every request are left out. INVALID_ARG naming the input
// when requests are inconsistent with the config or with each other (data
// type, shape, byte size, malformed BYTES). May throw Ort::Exception.
Status BuildInputs(const OrtModel& model, const RequestBatch& batch, const Ort::MemoryInfo& cpu,
                   BatchInputs& out);

}  // namespace inferd::ort
