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

Unary* InferenceService::TraceSetting(Context* context, const inference::TraceSettingRequest*,
                                      inference::TraceSettingResponse*) {
  return Unimplemented(context, "TraceSetting (trace extension)");
}

Unary* InferenceService::LogSettings(Context* context, const inference::LogSettingsRequest*,
                                     inference::LogSettingsResponse*) {
  return Unimplemented(context, "LogSettings (logging extension)");
}

}  // namespace inferd::frontends::grpc
