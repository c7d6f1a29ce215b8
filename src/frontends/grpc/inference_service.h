// SPDX-License-Identifier: Apache-2.0
// inference.GRPCInferenceService on gRPC's callback API: every RPC is a
// translation to inferd::Server and back. Inference never blocks a gRPC
// thread: the call is finished from the server's completion callback.
#pragma once

#include "frontends/grpc/infer_message_allocator.h"
#include "frontends/grpc/stream_infer_reactor.h"
#include "grpc_service.grpc.pb.h"
#include "server/server.h"

namespace inferd::frontends::grpc {

// Thread-safe. `server` must outlive this; this must outlive the grpc::Server
// it is registered with.
class InferenceService final : public inference::GRPCInferenceService::CallbackService {
 public:
  explicit InferenceService(Server& server);
  InferenceService(const InferenceService&) = delete;
  InferenceService& operator=(const InferenceService&) = delete;

  using Context = ::grpc::CallbackServerContext;
  using Unary = ::grpc::ServerUnaryReactor;

  Unary* ServerLive(Context* context, const inference::ServerLiveRequest* request,
                    inference::ServerLiveResponse* response) override;
  Unary* ServerReady(Context* context, const inference::ServerReadyRequest* request,
                     inference::ServerReadyResponse* response) override;
  Unary* ModelReady(Context* context, const inference::ModelReadyRequest* request,
                    inference::ModelReadyResponse* response) override;
  Unary* ServerMetadata(Context* context, const inference::ServerMetadataRequest* request,
                        inference::ServerMetadataResponse* response) override;
  Unary* ModelMetadata(Context* context, const inference::ModelMetadataRequest* request,
                       inference::ModelMetadataResponse* response) override;
  Unary* ModelConfig(Context* context, const inference::ModelConfigRequest* request,
                     inference::ModelConfigResponse* response) override;
  Unary* RepositoryIndex(Context* context, const inference::RepositoryIndexRequest* request,
                         inference::RepositoryIndexResponse* response) override;
  Unary* ModelInfer(Context* context, const inference::ModelInferRequest* request,
                    inference::ModelInferResponse* response) override;
  // Empty name: every ready model; empty version: every ready version.
  Unary* ModelStatistics(Context* context, const inference::ModelStatisticsRequest* request,
                         inference::ModelStatisticsResponse* response) override;

  // Explicit model control (repository_service.cc): finished once the
  // Server has loaded or unloaded the model.
  Unary* RepositoryModelLoad(Context* context, const inference::RepositoryModelLoadRequest* request,
                             inference::RepositoryModelLoadResponse* response) override;
  Unary* RepositoryModelUnload(Context* context,
                               const inference::RepositoryModelUnloadRequest* request,
                               inference::RepositoryModelUnloadResponse* response) override;

  // Many requests on one bidirectional stream (stream_infer_reactor.h);
  // decoupled models answer here with every response.
  ::grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
  ModelStreamInfer(Context* context) override;

  // Shutdown, before the grpc::Server's: every open stream ends (OK) once
  // its requests are answered; new streams are refused.
  void EndStreams() { streams_.EndAll(); }

  // The shared-memory extensions (shared_memory_service.cc, every region
  // operation of the gRPC frontend): system regions over the Server's
  // registry; CUDA as a server without GPUs answers.
  Unary* SystemSharedMemoryStatus(Context* context,
                                  const inference::SystemSharedMemoryStatusRequest* request,
                                  inference::SystemSharedMemoryStatusResponse* response) override;
  Unary* SystemSharedMemoryRegister(
      Context* context, const inference::SystemSharedMemoryRegisterRequest* request,
      inference::SystemSharedMemoryRegisterResponse* response) override;
  Unary* SystemSharedMemoryUnregister(
      Context* context, const inference::SystemSharedMemoryUnregisterRequest* request,
      inference::SystemSharedMemoryUnregisterResponse* response) override;
  Unary* CudaSharedMemoryStatus(Context* context,
                                const inference::CudaSharedMemoryStatusRequest* request,
                                inference::CudaSharedMemoryStatusResponse* response) override;
  Unary* CudaSharedMemoryRegister(Context* context,
                                  const inference::CudaSharedMemoryRegisterRequest* request,
                                  inference::CudaSharedMemoryRegisterResponse* response) override;
  Unary* CudaSharedMemoryUnregister(
      Context* context, const inference::CudaSharedMemoryUnregisterRequest* request,
      inference::CudaSharedMemoryUnregisterResponse* response) override;

  // Not implemented yet (inference_service_unimplemented.cc): UNIMPLEMENTED
  // with a message naming the RPC.
  Unary* TraceSetting(Context* context, const inference::TraceSettingRequest* request,
                      inference::TraceSettingResponse* response) override;
  Unary* LogSettings(Context* context, const inference::LogSettingsRequest* request,
                     inference::LogSettingsResponse* response) override;

 private:
  Server& server_;
  InferMessageAllocator infer_allocator_;
  StreamRegistry streams_;
};

}  // namespace inferd::frontends::grpc
