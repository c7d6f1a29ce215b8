// SPDX-License-Identifier: Apache-2.0
// The RPCs of inference.GRPCInferenceService that later work implements.
// Each answers UNIMPLEMENTED naming what is missing, rather than gRPC's
// empty-message default.
#include <string>

#include "frontends/grpc/inference_service.h"

namespace inferd::frontends::grpc {
namespace {

using Unary = InferenceService::Unary;

Unary* Unimplemented(InferenceService::Context* context, std::string what) {
  Unary* reactor = context->DefaultReactor();
  reactor->Finish(::grpc::Status(::grpc::StatusCode::UNIMPLEMENTED,
                                 what + " is not implemented by this server yet"));
  return reactor;
}

}  // namespace

Unary* InferenceService::SystemSharedMemoryStatus(Context* context,
                                                  const inference::SystemSharedMemoryStatusRequest*,
                                                  inference::SystemSharedMemoryStatusResponse*) {
  return Unimplemented(context, "SystemSharedMemoryStatus (system shared memory)");
}

Unary* InferenceService::SystemSharedMemoryRegister(
    Context* context, const inference::SystemSharedMemoryRegisterRequest*,
    inference::SystemSharedMemoryRegisterResponse*) {
  return Unimplemented(context, "SystemSharedMemoryRegister (system shared memory)");
}

Unary* InferenceService::SystemSharedMemoryUnregister(
    Context* context, const inference::SystemSharedMemoryUnregisterRequest*,
    inference::SystemSharedMemoryUnregisterResponse*) {
  return Unimplemented(context, "SystemSharedMemoryUnregister (system shared memory)");
}

Unary* InferenceService::CudaSharedMemoryStatus(Context* context,
                                                const inference::CudaSharedMemoryStatusRequest*,
                                                inference::CudaSharedMemoryStatusResponse*) {
  return Unimplemented(context, "CudaSharedMemoryStatus (CUDA shared memory)");
}

Unary* InferenceService::CudaSharedMemoryRegister(Context* context,
                                                  const inference::CudaSharedMemoryRegisterRequest*,
                                                  inference::CudaSharedMemoryRegisterResponse*) {
  return Unimplemented(context, "CudaSharedMemoryRegister (CUDA shared memory)");
}

Unary* InferenceService::CudaSharedMemoryUnregister(
    Context* context, const inference::CudaSharedMemoryUnregisterRequest*,
    inference::CudaSharedMemoryUnregisterResponse*) {
  return Unimplemented(context, "CudaSharedMemoryUnregister (CUDA shared memory)");
}

Unary* InferenceService::TraceSetting(Context* context, const inference::TraceSettingRequest*,
                                      inference::TraceSettingResponse*) {
  return Unimplemented(context, "TraceSetting (trace extension)");
}

Unary* InferenceService::LogSettings(Context* context, const inference::LogSettingsRequest*,
                                     inference::LogSettingsResponse*) {
  return Unimplemented(context, "LogSettings (logging extension)");
}

}  // namespace inferd::frontends::grpc
