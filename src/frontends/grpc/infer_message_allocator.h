// SPDX-License-Identifier: Apache-2.0
// Allocates each ModelInfer call's request and response under one shared_ptr,
// so that input tensors can point into the request (no copy of
// raw_input_contents) and keep it alive for as long as they live, even past
// the end of the call.
#pragma once

#include <memory>

#include "grpc_service.pb.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/message_allocator.h"

namespace inferd::frontends::grpc {

// Thread-safe (stateless). Register it with
// SetMessageAllocatorFor_ModelInfer; it must outlive the grpc::Server.
class InferMessageAllocator final
    : public ::grpc::MessageAllocator<inference::ModelInferRequest, inference::ModelInferResponse> {
 public:
  ::grpc::MessageHolder<inference::ModelInferRequest, inference::ModelInferResponse>*
  AllocateMessages() override;

  // The owner of the current call's messages. REQUIRES: `context` belongs to
  // a ModelInfer call of a service that registered this allocator.
  static std::shared_ptr<const void> OwnerOf(::grpc::CallbackServerContext& context);
};

}  // namespace inferd::frontends::grpc
