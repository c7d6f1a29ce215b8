// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/prediction_service.h"

#include <chrono>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/clock.h"
#include "frontends/grpc/grpc_status.h"
#include "frontends/grpc/infer_call.h"
#include "frontends/tfserving/model_status.h"
#include "frontends/tfserving/model_target.h"
#include "frontends/tfserving/predict_codec.h"
#include "frontends/tfserving/signature.h"
#include "tensorflow_serving/apis/get_model_metadata.pb.h"

namespace inferd::frontends::tfserving {
namespace {

using grpc::ToGrpcStatus;
namespace tfs = tensorflow::serving;

constexpr char kSignatureDefField[] = "signature_def";

absl::StatusOr<ModelTarget> TargetOf(const Server& server, const tfs::ModelSpec& spec) {
  std::optional<int64_t> version;
  if (spec.has_version()) version = spec.version().value();
  return ResolveTarget(server, spec.name(), version, spec.version_label(), spec.signature_name());
}

::grpc::ServerUnaryReactor* FinishNow(::grpc::CallbackServerContext* context,
                                      const absl::Status& status) {
  ::grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

absl::Status FillMetadata(const Server& server, const tfs::GetModelMetadataRequest& request,
                          tfs::GetModelMetadataResponse& response) {
  if (request.metadata_field_size() == 0) {
    return absl::InvalidArgumentError(
        "GetModelMetadataRequest must specify at least one metadata_field");
  }
  for (const std::string& field : request.metadata_field()) {
    if (field != kSignatureDefField) {
      return absl::InvalidArgumentError(
          absl::StrCat("Metadata field ", field, " is not supported"));
    }
  }
  auto target = TargetOf(server, request.model_spec());
  if (!target.ok()) return target.status();
  auto metadata = server.GetModelMetadata(target->model, target->version);
  if (!metadata.ok()) return TfServingStatus(metadata.status(), *target);
  int64_t version = 0;
  if (!target->version.empty()) {
    version = std::stoll(target->version);
  } else if (!metadata->versions.empty()) {
    version = std::stoll(metadata->versions.back());
  }
  FillModelSpec(target->model, version, "", *response.mutable_model_spec());
  tfs::SignatureDefMap signatures;
  BuildSignatureDef(*metadata, (*signatures.mutable_signature_def())[kDefaultSignature]);
  if (!(*response.mutable_metadata())[kSignatureDefField].PackFrom(signatures)) {
    return absl::InternalError("cannot pack the signature_def metadata");
  }
  return absl::OkStatus();
}

}  // namespace

::grpc::ServerUnaryReactor* PredictionService::Predict(::grpc::CallbackServerContext* context,
                                                       const tfs::PredictRequest* request,
                                                       tfs::PredictResponse* response) {
  auto target = TargetOf(server_, request->model_spec());
  if (!target.ok()) return FinishNow(context, target.status());
  auto decoded = DecodePredictRequest(*request, *target);
  if (!decoded.ok()) return FinishNow(context, decoded.status());
  auto* reactor = new grpc::InferCallReactor();  // deletes itself when the call is done
  // A cancelled call or a passed deadline takes the request out of the queue.
  (*decoded)->cancellation = reactor->token();
  (*decoded)->deadline_nanos = grpc::DeadlineNanos(
      context->deadline(), std::chrono::system_clock::now(), base::Clock::Real().NowNanos());
  // The callback touches only the call's own objects, which gRPC keeps until
  // Finish completes.
  server_.InferAsync(*std::move(decoded), [reactor, response, target = *std::move(target)](
                                              absl::StatusOr<core::InferResponse> result) {
    if (!result.ok()) {
      reactor->Finish(ToGrpcStatus(TfServingStatus(result.status(), target)));
      return;
    }
    reactor->Finish(ToGrpcStatus(EncodePredictResponse(*result, target, *response)));
  });
  return reactor;
}

::grpc::ServerUnaryReactor* PredictionService::GetModelMetadata(
    ::grpc::CallbackServerContext* context, const tfs::GetModelMetadataRequest* request,
    tfs::GetModelMetadataResponse* response) {
  return FinishNow(context, FillMetadata(server_, *request, *response));
}

::grpc::ServerUnaryReactor* ModelStatusService::GetModelStatus(
    ::grpc::CallbackServerContext* context, const tfs::GetModelStatusRequest* request,
    tfs::GetModelStatusResponse* response) {
  // The signature plays no part in a model's status.
  std::optional<int64_t> version;
  if (request->model_spec().has_version()) version = request->model_spec().version().value();
  auto target = ResolveTarget(server_, request->model_spec().name(), version,
                              request->model_spec().version_label(), "");
  if (!target.ok()) return FinishNow(context, target.status());
  auto status = tfserving::GetModelStatus(server_, target->model, target->version);
  if (status.ok()) *response = *std::move(status);
  return FinishNow(context, status.status());
}

}  // namespace inferd::frontends::tfserving
