// SPDX-License-Identifier: Apache-2.0
#include "request_batch.h"

namespace inferd::ort {

RequestBatch::RequestBatch(const INFERD_ServerApi& api, INFERD_Request** requests, size_t count)
    : api_(api),
      requests_(requests),
      count_(requests == nullptr ? 0 : count),
      completed_(count_, false) {}

RequestBatch::~RequestBatch() {
  CompleteRemaining(Status::Internal("onnxruntime backend left the request unanswered"));
}

void RequestBatch::Complete(size_t i, INFERD_Error* error) {
  completed_[i] = true;
  api_.RequestComplete(requests_[i], error);
}

void RequestBatch::CompleteRemaining(const Status& status) {
  for (size_t i = 0; i < count_; ++i) {
    if (completed_[i]) continue;
    Complete(i, status.ok() ? nullptr : api_.ErrorNew(status.code(), status.message().c_str()));
  }
}

}  // namespace inferd::ort
