// SPDX-License-Identifier: Apache-2.0
// Hands one ORT output to every request of a batch that asked for it. Fixed-
// size data is never copied: each request gets a pointer into ORT's tensor
// (its batch slice when several requests were batched), kept alive by a
// reference count. String tensors are encoded as BYTES per request.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ort_model.h"
#include "ort_request_batch.h"
#include "status.h"

namespace inferd::ort {

struct OutputToWrite {
  const std::string& name;
  const TensorConfig* config;  // nullptr when the config does not list it
  Ort::Value value;
  const std::vector<bool>& wanted;  // per request: asked for this output
};

// `batch_sizes` holds each request's batch size (empty for non-batching
// models); with several requests the output's first dim must be their sum.
// Errors that concern the whole output (type, shape) are returned; an error
// from ResponseAddOutput completes only that request. May throw Ort::Exception.
Status WriteOutput(RequestBatch& batch, const std::vector<int64_t>& batch_sizes,
                   OutputToWrite output);

}  // namespace inferd::ort
