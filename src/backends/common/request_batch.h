// SPDX-License-Identifier: Apache-2.0
// The requests of one InstanceExecute call and whether each has been
// completed. Guarantees the backend.h contract that every request is
// completed exactly once: Complete ignores a second call, and the destructor
// fails whatever is still open.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "backend_status.h"
#include "inferd/backend.h"

namespace inferd::backend_util {

// Not thread-safe; used by the one instance thread running the batch.
// `api` and `requests` are borrowed for the batch's lifetime.
class RequestBatch {
 public:
  RequestBatch(const INFERD_ServerApi& api, INFERD_Request** requests, size_t count);
  ~RequestBatch();  // completes open requests with INTERNAL
  RequestBatch(const RequestBatch&) = delete;
  RequestBatch& operator=(const RequestBatch&) = delete;

  const INFERD_ServerApi& api() const { return api_; }
  size_t size() const { return count_; }
  // REQUIRES: !completed(i). The request must not be touched once completed.
  INFERD_Request* request(size_t i) const { return requests_[i]; }
  bool completed(size_t i) const { return completed_[i]; }

  // Completes request i; `error` (owned, may be NULL) passes to the server.
  // REQUIRES: !completed(i).
  void Complete(size_t i, INFERD_Error* error);
  // Completes every open request with `status` (OK: success).
  void CompleteRemaining(const Status& status);
  // Request i is completed by someone else from now on (a backend that
  // answers it later, from another thread): this batch no longer touches
  // it. REQUIRES: !completed(i).
  void HandOver(size_t i) { completed_[i] = true; }

  // The server's clock (0 from a server older than ABI 1.1) and the
  // statistics report of the compute phase for every open request.
  uint64_t Now() const;
  void ReportComputeTimes(uint64_t start_ns, uint64_t end_ns) const;

 private:
  const INFERD_ServerApi& api_;
  INFERD_Request** requests_;
  size_t count_;
  std::vector<bool> completed_;
};

// The outputs at least one request asked for, in first-asked order, and for
// each of them which requests want it.
struct RequestedOutputs {
  std::vector<std::string> names;
  std::vector<std::vector<bool>> wanted;  // [output][request]
};
RequestedOutputs CollectRequestedOutputs(const RequestBatch& batch);

}  // namespace inferd::backend_util
