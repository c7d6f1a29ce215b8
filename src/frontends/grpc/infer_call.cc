// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/infer_call.h"

#include <algorithm>

#include "base/logging.h"

namespace inferd::frontends::grpc {
namespace {

constexpr std::chrono::nanoseconds kFarFuture = std::chrono::hours(24 * 365);

}  // namespace

void InferCallReactor::OnCancel() {
  INFERD_LOG_DEBUG(
      "grpc: a ModelInfer call was cancelled; its request will not run if still queued");
  // A request still queued leaves it and is answered CANCELLED; Finish then
  // completes a call the client no longer waits for.
  token_->Cancel();
}

int64_t DeadlineNanos(std::chrono::system_clock::time_point deadline,
                      std::chrono::system_clock::time_point wall_now, int64_t clock_now) {
  if (deadline == std::chrono::system_clock::time_point::max()) return 0;
  const auto remaining = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - wall_now);
  if (remaining > kFarFuture) return 0;
  return std::max<int64_t>(clock_now + remaining.count(), 1);
}

}  // namespace inferd::frontends::grpc
