// SPDX-License-Identifier: Apache-2.0
#include "request_batch.h"

#include <cstddef>

namespace inferd::backend_util {

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

// Functions appended in ABI 1.1 exist only when the server's table is long
// enough to hold them.
#define INFERD_ORT_HAS_API(api, field)                                             \
  ((api).struct_size >= offsetof(INFERD_ServerApi, field) + sizeof((api).field) && \
   (api).field != nullptr)

uint64_t RequestBatch::Now() const {
  return INFERD_ORT_HAS_API(api_, NowNanoseconds) ? api_.NowNanoseconds() : 0;
}

void RequestBatch::ReportComputeTimes(uint64_t start_ns, uint64_t end_ns) const {
  if (start_ns == 0 || !INFERD_ORT_HAS_API(api_, RequestReportComputeTimes)) return;
  for (size_t i = 0; i < count_; ++i) {
    if (!completed_[i]) api_.RequestReportComputeTimes(requests_[i], start_ns, end_ns);
  }
}

RequestedOutputs CollectRequestedOutputs(const RequestBatch& batch) {
  RequestedOutputs out;
  const INFERD_ServerApi& api = batch.api();
  for (size_t i = 0; i < batch.size(); ++i) {
    const size_t count = api.RequestOutputCount(batch.request(i));
    for (size_t k = 0; k < count; ++k) {
      const char* name = api.RequestOutputName(batch.request(i), k);
      if (name == nullptr) continue;
      size_t j = 0;
      while (j < out.names.size() && out.names[j] != name) ++j;
      if (j == out.names.size()) {
        out.names.emplace_back(name);
        out.wanted.emplace_back(batch.size(), false);
      }
      out.wanted[j][i] = true;
    }
  }
  return out;
}

}  // namespace inferd::backend_util
