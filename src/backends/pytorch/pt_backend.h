// SPDX-License-Identifier: Apache-2.0
// The LibTorch parts of the backend behind a header free of LibTorch, so that
// torch/script.h is compiled in one translation unit only (pt_backend.cc).
//
// A model version loads <version>/model.pt with torch::jit::load and keeps the
// binding of config tensors to forward() (docs/backends.md, LibTorch). Each
// instance owns its own torch::jit::Module: the first instance takes the one
// loaded to check the model, later ones load the file again.
//
// Threads: config parameter `intra_op_thread_count` (or Triton's
// INTRA_OP_THREAD_COUNT), else the server's default_intra_op_threads. LibTorch
// keeps its intra-op thread count process-wide (at::set_num_threads); Debian's
// LibTorch uses the OpenMP parallel backend, where the count that matters is
// the calling thread's OpenMP setting. The backend therefore sets it on the
// instance's own thread before running the model, and only when it differs,
// so instances of different models keep their own counts for OpenMP work.
// LibTorch's process-wide copies (the stored value, the pthreadpool of
// XNNPACK/QNNPACK operators) take the last value set. The inter-op pool
// (TorchScript fork) keeps LibTorch's default.
//
// forward() runs under c10::InferenceMode, or only torch::NoGradGuard when the
// config sets parameter `inference_mode` (Triton: INFERENCE_MODE) to false.
// Inputs are always copied out of the request (a model may change its inputs
// in place); outputs are handed to the server without a copy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "inferd/backend.h"
#include "pt_status.h"

namespace inferd::pt {

struct PtModel;
struct PtInstance;

// Loads the model; errors carry LibTorch's message. Never throws.
Status CreateModel(const INFERD_ServerApi& api, const INFERD_ModelSpec& spec, PtModel** model);
void DeleteModel(PtModel* model) noexcept;
const INFERD_ServerApi& ModelApi(const PtModel& model);

Status CreateInstance(PtModel& model, uint32_t index, PtInstance** instance);
void DeleteInstance(PtInstance* instance) noexcept;

// Runs a batch and completes every request. Never throws.
void Execute(PtInstance& instance, INFERD_Request** requests, size_t count) noexcept;

}  // namespace inferd::pt
