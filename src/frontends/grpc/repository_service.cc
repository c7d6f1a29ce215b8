// SPDX-License-Identifier: Apache-2.0
// The repository extension's explicit model control: RepositoryModelLoad and
// RepositoryModelUnload, finished from the Server's completion callback
// (inline for an error found at once, else on a control-plane thread).
#include <utility>

#include "frontends/grpc/grpc_status.h"
#include "frontends/grpc/inference_service.h"
#include "frontends/grpc/repository_codec.h"

namespace inferd::frontends::grpc {

InferenceService::Unary* InferenceService::RepositoryModelLoad(
    Context* context, const inference::RepositoryModelLoadRequest* request,
    inference::RepositoryModelLoadResponse*) {
  Unary* reactor = context->DefaultReactor();
  absl::StatusOr<ModelLoadRequest> decoded = DecodeModelLoadRequest(*request);
  if (!decoded.ok()) {
    reactor->Finish(ToGrpcStatus(decoded.status()));
    return reactor;
  }
  // The callback touches only the reactor, which gRPC keeps until Finish
  // completes; the request message is not used after this point.
  server_.LoadModelAsync(*std::move(decoded),
                         [reactor](absl::Status status) { reactor->Finish(ToGrpcStatus(status)); });
  return reactor;
}

InferenceService::Unary* InferenceService::RepositoryModelUnload(
    Context* context, const inference::RepositoryModelUnloadRequest* request,
    inference::RepositoryModelUnloadResponse*) {
  Unary* reactor = context->DefaultReactor();
  absl::StatusOr<ModelUnloadRequest> decoded = DecodeModelUnloadRequest(*request);
  if (!decoded.ok()) {
    reactor->Finish(ToGrpcStatus(decoded.status()));
    return reactor;
  }
  server_.UnloadModelAsync(
      std::move(decoded->model), decoded->unload_dependents,
      [reactor](absl::Status status) { reactor->Finish(ToGrpcStatus(status)); });
  return reactor;
}

}  // namespace inferd::frontends::grpc
