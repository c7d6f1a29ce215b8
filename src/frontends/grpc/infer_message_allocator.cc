// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/infer_message_allocator.h"

namespace inferd::frontends::grpc {
namespace {

struct InferMessages {
  inference::ModelInferRequest request;
  inference::ModelInferResponse response;
};

// gRPC calls Release() once the call is done; the messages live on while a
// tensor still holds `messages_`.
class InferMessageHolder final
    : public ::grpc::MessageHolder<inference::ModelInferRequest, inference::ModelInferResponse> {
 public:
  InferMessageHolder() : messages_(std::make_shared<InferMessages>()) {
    set_request(&messages_->request);
    set_response(&messages_->response);
  }
  // gRPC's documented idiom: the holder frees itself.
  void Release() override { delete this; }
  std::shared_ptr<const void> owner() const { return messages_; }

 private:
  std::shared_ptr<InferMessages> messages_;
};

}  // namespace

::grpc::MessageHolder<inference::ModelInferRequest, inference::ModelInferResponse>*
InferMessageAllocator::AllocateMessages() {
  return new InferMessageHolder();
}

std::shared_ptr<const void> InferMessageAllocator::OwnerOf(::grpc::CallbackServerContext& context) {
  ::grpc::RpcAllocatorState* state = context.GetRpcAllocatorState();
  if (state == nullptr) return nullptr;
  return static_cast<InferMessageHolder*>(state)->owner();
}

}  // namespace inferd::frontends::grpc
