// SPDX-License-Identifier: Apache-2.0
#include "frontends/grpc/inference_service.h"

#include <chrono>
#include <utility>

#include "base/clock.h"
#include "frontends/grpc/grpc_status.h"
#include "frontends/grpc/infer_call.h"
#include "frontends/grpc/infer_request_codec.h"
#include "frontends/grpc/infer_response_codec.h"
#include "frontends/grpc/metadata_codec.h"
#include "frontends/grpc/statistics_codec.h"
#include "model_config.pb.h"

namespace inferd::frontends::grpc {
namespace {

// Triton's words for a decoupled model reached through the unary RPC
// (docs/api.md, "Streaming"); every other error keeps its status.
::grpc::Status UnaryInferStatus(const absl::Status& status) {
  if (absl::IsUnimplemented(status) && status.GetPayload(core::kDecoupledRefusalPayload)) {
    return ::grpc::Status(
        ::grpc::StatusCode::UNIMPLEMENTED,
        "ModelInfer RPC doesn't support models with decoupled transaction policy");
  }
  return ToGrpcStatus(status);
}

}  // namespace

InferenceService::InferenceService(Server& server) : server_(server) {
  SetMessageAllocatorFor_ModelInfer(&infer_allocator_);
}

InferenceService::Unary* InferenceService::ServerLive(Context* context,
                                                      const inference::ServerLiveRequest*,
                                                      inference::ServerLiveResponse* response) {
  response->set_live(server_.IsLive());
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(::grpc::Status::OK);
  return reactor;
}

InferenceService::Unary* InferenceService::ServerReady(Context* context,
                                                       const inference::ServerReadyRequest*,
                                                       inference::ServerReadyResponse* response) {
  response->set_ready(server_.IsReady());
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(::grpc::Status::OK);
  return reactor;
}

InferenceService::Unary* InferenceService::ModelReady(Context* context,
                                                      const inference::ModelReadyRequest* request,
                                                      inference::ModelReadyResponse* response) {
  absl::StatusOr<bool> ready = server_.IsModelReady(request->name(), request->version());
  if (ready.ok()) response->set_ready(*ready);
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(ready.status()));
  return reactor;
}

InferenceService::Unary* InferenceService::ServerMetadata(
    Context* context, const inference::ServerMetadataRequest*,
    inference::ServerMetadataResponse* response) {
  EncodeServerMetadata(server_.Metadata(), *response);
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(::grpc::Status::OK);
  return reactor;
}

InferenceService::Unary* InferenceService::ModelMetadata(
    Context* context, const inference::ModelMetadataRequest* request,
    inference::ModelMetadataResponse* response) {
  auto metadata = server_.GetModelMetadata(request->name(), request->version());
  if (metadata.ok()) EncodeModelMetadata(*metadata, *response);
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(metadata.status()));
  return reactor;
}

InferenceService::Unary* InferenceService::ModelConfig(Context* context,
                                                       const inference::ModelConfigRequest* request,
                                                       inference::ModelConfigResponse* response) {
  auto config = server_.GetModelConfig(request->name(), request->version());
  if (config.ok()) response->mutable_config()->CopyFrom(**config);
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(config.status()));
  return reactor;
}

InferenceService::Unary* InferenceService::RepositoryIndex(
    Context* context, const inference::RepositoryIndexRequest* request,
    inference::RepositoryIndexResponse* response) {
  Unary* reactor = context->DefaultReactor();
  // As Triton: one implicit repository set, which cannot be named.
  if (!request->repository_name().empty()) {
    reactor->Finish(::grpc::Status(::grpc::StatusCode::UNIMPLEMENTED,
                                   "'repository_name' is not supported in repository index"));
    return reactor;
  }
  EncodeRepositoryIndex(server_.RepositoryIndex(request->ready()), *response);
  reactor->Finish(::grpc::Status::OK);
  return reactor;
}

InferenceService::Unary* InferenceService::ModelStatistics(
    Context* context, const inference::ModelStatisticsRequest* request,
    inference::ModelStatisticsResponse* response) {
  auto stats = server_.Statistics(request->name(), request->version());
  if (stats.ok()) EncodeModelStatistics(*stats, *response);
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(stats.status()));
  return reactor;
}

InferenceService::Unary* InferenceService::ModelInfer(Context* context,
                                                      const inference::ModelInferRequest* request,
                                                      inference::ModelInferResponse* response) {
  auto* reactor = new InferCallReactor();  // deletes itself when the call is done
  SharedMemoryOutputs shm_outputs;         // outputs into regions, leased until encoded
  auto decoded = DecodeInferRequest(*request, InferMessageAllocator::OwnerOf(*context),
                                    &server_.shared_memory(), &shm_outputs);
  if (!decoded.ok()) {
    reactor->Finish(ToGrpcStatus(decoded.status()));
    return reactor;
  }
  // A cancelled call or a passed deadline takes the request out of the queue.
  (*decoded)->cancellation = reactor->token();
  // A short execution may run on this callback thread (Finish may be called
  // before the handler returns).
  (*decoded)->may_run_on_caller_thread = true;
  (*decoded)->deadline_nanos = DeadlineNanos(context->deadline(), std::chrono::system_clock::now(),
                                             base::Clock::Real().NowNanos());
  // The callback touches only the call's own objects, which gRPC keeps until
  // Finish completes, so it may outlive this service during shutdown.
  server_.InferAsync(*std::move(decoded), [reactor, response, shm_outputs = std::move(shm_outputs)](
                                              absl::StatusOr<core::InferResponse> result) {
    if (!result.ok()) {
      reactor->Finish(UnaryInferStatus(result.status()));
      return;
    }
    const absl::Status encoded = EncodeInferResponse(*result, shm_outputs, *response);
    reactor->Finish(encoded.ok() ? ::grpc::Status::OK : ToGrpcStatus(encoded));
  });
  return reactor;
}

::grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
InferenceService::ModelStreamInfer(Context* context) {
  return new StreamInferReactor(server_, context, streams_);  // deletes itself in OnDone
}

}  // namespace inferd::frontends::grpc
