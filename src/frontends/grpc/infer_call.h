// SPDX-License-Identifier: Apache-2.0
// What a ModelInfer call tells the scheduler about its client: a reactor that
// raises the request's cancellation token when gRPC reports the call
// cancelled (client cancel, deadline passed, connection lost), and the call's
// deadline as an absolute time on base::Clock::Real().
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "core/cancellation.h"
#include "grpcpp/support/server_callback.h"

namespace inferd::frontends::grpc {

// The reactor of one ModelInfer call. Allocated with new by the handler;
// deletes itself in OnDone, which gRPC calls once after Finish completed, so
// it stays valid for the inference callback that calls Finish. Finish must
// be called exactly once (gRPC accepts it after a cancellation too).
class InferCallReactor final : public ::grpc::ServerUnaryReactor {
 public:
  InferCallReactor() : token_(std::make_shared<core::CancellationToken>()) {}

  // The token to put into the call's InferRequest.
  const std::shared_ptr<core::CancellationToken>& token() const { return token_; }

  // On a gRPC thread, possibly while the inference callback runs Finish.
  void OnCancel() override;
  void OnDone() override { delete this; }

 private:
  const std::shared_ptr<core::CancellationToken> token_;
};

// The absolute deadline on a steady clock that reads `clock_now` when the
// wall clock reads `wall_now`, for a call whose gRPC deadline is `deadline`;
// 0 (none) for an infinite deadline (time_point::max()) or one more than a
// year away. A deadline already passed gives a time at or before clock_now
// (never 0).
int64_t DeadlineNanos(std::chrono::system_clock::time_point deadline,
                      std::chrono::system_clock::time_point wall_now, int64_t clock_now);

}  // namespace inferd::frontends::grpc
