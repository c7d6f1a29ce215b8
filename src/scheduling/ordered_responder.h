// SPDX-License-Identifier: Apache-2.0
// preserve_ordering: responses leave in the order their requests arrived,
// even when batches finish out of order on several instances. Each request's
// callback is wrapped with a ticket; a finished response waits until every
// earlier ticket has been answered. Thread-safe; callbacks run outside the
// lock, one thread at a time, in ticket order.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "base/mutex.h"
#include "core/infer_request.h"

namespace inferd::scheduling {

class OrderedResponder : public std::enable_shared_from_this<OrderedResponder> {
 public:
  // Wraps `callback` with the next ticket. The wrapper keeps *this alive.
  core::InferCallback Wrap(core::InferCallback callback);

 private:
  struct Finished {
    core::InferCallback callback;
    std::optional<absl::StatusOr<core::InferResponse>> result;
  };
  void Arrive(uint64_t ticket, absl::StatusOr<core::InferResponse> result);

  base::Mutex mu_;
  uint64_t next_ticket_ ABSL_GUARDED_BY(mu_) = 0;   // handed to the next request
  uint64_t next_release_ ABSL_GUARDED_BY(mu_) = 0;  // the ticket that may leave next
  bool releasing_ ABSL_GUARDED_BY(mu_) = false;     // a thread is calling callbacks
  std::map<uint64_t, Finished> waiting_ ABSL_GUARDED_BY(mu_);
};

}  // namespace inferd::scheduling
