// SPDX-License-Identifier: Apache-2.0
// Calling another model from a backend (backend ABI 1.3, "Calling other
// models" in inferd/backend.h): the preprocessed tensor goes, without a copy,
// to the model named by the config parameter `next_model`, and the outputs
// that model returns are forwarded to the client, also without a copy.
// Execute does not wait for the answer: the request is completed from the
// completion function, on a server thread, after Execute has returned.
#ifndef IMAGE_PREPROCESS_NEXT_MODEL_H_
#define IMAGE_PREPROCESS_NEXT_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "inferd/backend.h"
#include "shared_release.h"

namespace image_preprocess {

struct NextModel {
  std::string name;      // empty: this model calls none
  int64_t version = -1;  // -1: its newest ready version
  std::string input;     // its input that takes the tensor
};

// Whether the server can send requests from backends to models: the
// INFERD_ServerApi members and INFERD_ModelSpec::server of ABI 1.3.
bool CanCallModels(const INFERD_ServerApi& api, const INFERD_ModelSpec& spec);

// The preprocessed tensor of one request; `owner` frees `data`.
struct TensorRef {
  const float* data = nullptr;
  size_t byte_size = 0;
  std::vector<int64_t> shape;  // the batch dimension included when the model batches
  SharedRelease* owner = nullptr;
};

// What the request completed from the completion function reports.
struct CallInfo {
  std::string model_name;  // this model, for error messages
  uint64_t start_ns = 0;   // when preprocessing began
  bool report_times = false;
};

// Sends `tensor` to `next` as part of `request`, asking for `outputs`
// (names of both models' outputs), and completes `request` with them, or
// with the next model's error, once it answers: possibly before this
// returns, possibly on another thread. Returns true when sent: `request`
// must not be touched any more. Returns false with `*error` set (ours to
// hand on) when the request could not be built; `request` is then still
// the caller's to complete. Takes its own reference on tensor.owner.
bool InferNextModel(const INFERD_ServerApi* api, INFERD_Server* server, const NextModel& next,
                    INFERD_Request* request, const TensorRef& tensor,
                    const std::vector<std::string>& outputs, CallInfo info, INFERD_Error** error);

}  // namespace image_preprocess

#endif  // IMAGE_PREPROCESS_NEXT_MODEL_H_
