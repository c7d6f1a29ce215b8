// SPDX-License-Identifier: Apache-2.0
// The parts of the LibTorch backend that need no LibTorch headers: the
// model's configured tensors, the batch of requests, gathering one input from
// every request, naming conventions and config parameters. Kept apart so that
// only pt_backend.cc pays for compiling torch/script.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/backend.h"
#include "pt_status.h"
#include "request_batch.h"
#include "tensor_config.h"

namespace inferd::pt {

using backend_util::CopyTensors;
using backend_util::Dims;
using backend_util::DimsToString;
using backend_util::ElementCount;  // nullopt: invalid/overflow
using backend_util::TensorConfig;

using backend_util::CollectRequestedOutputs;
using backend_util::RequestBatch;
using backend_util::RequestedOutputs;

// One request's view of an input; memory owned by the request.
struct RequestTensor {
  std::span<const int64_t> shape;
  const void* data = nullptr;
  size_t byte_size = 0;
};

// One configured input gathered from every request of a batch.
struct GatheredInput {
  std::vector<RequestTensor> parts;  // empty: an optional input nobody sent
  Dims shape;                        // of the whole batch, as the model sees it
};

// Collects `config` from every request, checks data type, shapes and byte
// sizes, and computes the batch shape (first dims summed when `batching`,
// then the config's `reshape` applied). `batch_sizes` is filled by the first
// input and checked against by the others.
Status GatherInput(const RequestBatch& batch, const TensorConfig& config, bool batching,
                   std::vector<int64_t>& batch_sizes, GatheredInput& out);

// The response shape of an output the model produced with `model_shape`
// (batch dim included when `batching`): the config's `dims` when it has a
// `reshape`, the model's shape otherwise.
StatusOr<Dims> ResponseShape(const TensorConfig* config, bool batching,
                             std::span<const int64_t> model_shape);

// `<prefix>__<index>` (Triton's convention): the index, else nullopt.
std::optional<size_t> IndexOfName(std::string_view name);

// Config `parameters` the backend reads.
struct TorchParameters {
  int intra_op_threads = 0;  // 0: LibTorch's default
  // `inference_mode` (Triton: INFERENCE_MODE): run forward() under
  // c10::InferenceMode (default), else only under torch::NoGradGuard, for the
  // rare model that needs tensors with version counters.
  bool inference_mode = true;
};
StatusOr<TorchParameters> ParseParameters(const INFERD_ModelSpec& spec);

// <version>/model.pt (spec->model_path, or model.pt inside it when it is a
// folder); NOT_FOUND when missing.
StatusOr<std::string> ResolveModelFile(const char* model_path);

using backend_util::ElementByteSize;  // 0 for BYTES and INVALID
const char* DataTypeName(INFERD_DataType datatype);

}  // namespace inferd::pt
