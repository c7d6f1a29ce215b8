// SPDX-License-Identifier: Apache-2.0
// The shared-memory RPCs of inference.GRPCInferenceService, Triton's
// control-plane calls for regions: SystemSharedMemoryStatus / Register /
// Unregister over the Server's registry, and the CUDA ones as a server
// without GPUs answers them (status and unregister succeed with nothing
// registered; register is refused). Every region operation of the gRPC
// frontend is here, so that access control can guard this one door
// (docs/api.md, "Shared memory").
#include "absl/strings/str_cat.h"
#include "frontends/grpc/grpc_status.h"
#include "frontends/grpc/inference_service.h"

namespace inferd::frontends::grpc {
namespace {

using Unary = InferenceService::Unary;

Unary* FinishWith(InferenceService::Context* context, const absl::Status& status) {
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

}  // namespace

Unary* InferenceService::SystemSharedMemoryStatus(
    Context* context, const inference::SystemSharedMemoryStatusRequest* request,
    inference::SystemSharedMemoryStatusResponse* response) {
  auto regions = server_.shared_memory().Status(request->name());
  if (regions.ok()) {
    for (const SharedMemoryRegionStatus& region : *regions) {
      auto& out = (*response->mutable_regions())[region.name];
      out.set_name(region.name);
      out.set_key(region.key);
      out.set_offset(region.offset);
      out.set_byte_size(region.byte_size);
    }
  }
  return FinishWith(context, regions.status());
}

Unary* InferenceService::SystemSharedMemoryRegister(
    Context* context, const inference::SystemSharedMemoryRegisterRequest* request,
    inference::SystemSharedMemoryRegisterResponse*) {
  return FinishWith(
      context, server_.shared_memory().Register(request->name(), request->key(), request->offset(),
                                                request->byte_size()));
}

Unary* InferenceService::SystemSharedMemoryUnregister(
    Context* context, const inference::SystemSharedMemoryUnregisterRequest* request,
    inference::SystemSharedMemoryUnregisterResponse*) {
  if (request->name().empty()) {
    server_.shared_memory().UnregisterAll();
  } else {
    server_.shared_memory().Unregister(request->name());
  }
  return FinishWith(context, absl::OkStatus());
}

Unary* InferenceService::CudaSharedMemoryStatus(
    Context* context, const inference::CudaSharedMemoryStatusRequest* request,
    inference::CudaSharedMemoryStatusResponse*) {
  if (request->name().empty()) return FinishWith(context, absl::OkStatus());
  return FinishWith(context,
                    absl::NotFoundError(absl::StrCat("Unable to find cuda shared memory region: '",
                                                     request->name(), "'")));
}

Unary* InferenceService::CudaSharedMemoryRegister(
    Context* context, const inference::CudaSharedMemoryRegisterRequest* request,
    inference::CudaSharedMemoryRegisterResponse*) {
  return FinishWith(context, absl::InvalidArgumentError(
                                 absl::StrCat("failed to register CUDA shared memory region: '",
                                              request->name(), "', GPUs not supported")));
}

Unary* InferenceService::CudaSharedMemoryUnregister(
    Context* context, const inference::CudaSharedMemoryUnregisterRequest*,
    inference::CudaSharedMemoryUnregisterResponse*) {
  return FinishWith(context, absl::OkStatus());  // nothing is registered: nothing to remove
}

}  // namespace inferd::frontends::grpc
