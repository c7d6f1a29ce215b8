// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/rest_routes.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "frontends/http/routes/route_context.h"
#include "frontends/tfserving/model_status.h"
#include "frontends/tfserving/model_target.h"
#include "frontends/tfserving/predict_codec.h"
#include "frontends/tfserving/rest_request_codec.h"
#include "frontends/tfserving/rest_response_codec.h"
#include "frontends/tfserving/rest_router.h"
#include "frontends/tfserving/signature.h"
#include "tensorflow_serving/apis/get_model_metadata.pb.h"

namespace inferd::frontends::tfserving {
namespace {

namespace tfs = tensorflow::serving;

http::HttpReply Json(absl::StatusOr<std::string> body) {
  if (!body.ok()) return TfServingErrorReply(body.status());
  return http::JsonReply(200, *std::move(body));
}

absl::StatusOr<std::string> StatusJson(const Server& server, const RestRoute& route) {
  INFERD_ASSIGN_OR_RETURN(ModelTarget target,
                          ResolveTarget(server, route.model, route.version, route.label, ""));
  INFERD_ASSIGN_OR_RETURN(auto status, GetModelStatus(server, target.model, target.version));
  return ProtoJson(status);
}

// TF Serving's REST metadata: {"model_spec": ..., "metadata": {"signature_def": <map>}}.
absl::StatusOr<std::string> MetadataJson(const Server& server, const RestRoute& route) {
  INFERD_ASSIGN_OR_RETURN(ModelTarget target,
                          ResolveTarget(server, route.model, route.version, route.label, ""));
  auto metadata = server.GetModelMetadata(target.model, target.version);
  if (!metadata.ok()) return TfServingStatus(metadata.status(), target);
  int64_t version = 0;
  if (!target.version.empty()) {
    version = std::stoll(target.version);
  } else if (!metadata->versions.empty()) {
    version = std::stoll(metadata->versions.back());
  }
  tfs::ModelSpec spec;
  FillModelSpec(target.model, version, "", spec);
  tfs::SignatureDefMap signatures;
  BuildSignatureDef(*metadata, (*signatures.mutable_signature_def())[kDefaultSignature]);
  INFERD_ASSIGN_OR_RETURN(std::string spec_json, ProtoJson(spec));
  INFERD_ASSIGN_OR_RETURN(std::string signatures_json, ProtoJson(signatures));
  return absl::StrCat("{\"model_spec\":", spec_json,
                      ",\"metadata\":{\"signature_def\":", signatures_json, "}}");
}

struct PreparedPredict {
  ModelTarget target;
  RestPredictRequest body;
};

absl::StatusOr<PreparedPredict> PreparePredict(const http::ServingContext& context,
                                               const RestRoute& route, const std::string& body) {
  INFERD_ASSIGN_OR_RETURN(std::string signature, ReadSignatureName(body));
  INFERD_ASSIGN_OR_RETURN(ModelTarget target, ResolveTarget(context.server, route.model,
                                                            route.version, route.label, signature));
  auto metadata = context.server.GetModelMetadata(target.model, target.version);
  if (!metadata.ok()) return TfServingStatus(metadata.status(), target);
  INFERD_ASSIGN_OR_RETURN(RestPredictRequest decoded,
                          DecodeRestPredict(body, *metadata, context.options.max_json_input_bytes));
  return PreparedPredict{std::move(target), std::move(decoded)};
}

void Predict(const std::shared_ptr<http::ServingContext>& context, const RestRoute& route,
             const http::IncomingRequest& request, const http::Responder& responder) {
  absl::StatusOr<PreparedPredict> prepared = PreparePredict(*context, route, *request.body);
  if (!prepared.ok()) {
    responder.Send(TfServingErrorReply(prepared.status()));
    return;
  }
  auto infer = std::make_unique<core::InferRequest>();
  infer->model_name = prepared->target.model;
  infer->model_version = prepared->target.version;
  infer->inputs = std::move(prepared->body.inputs);
  if (!context->tracker.BeginCall()) {
    responder.Send(TfServingErrorReply(
        absl::UnavailableError("the TF Serving REST endpoint is shutting down")));
    return;
  }
  // A client that disconnects while its request is queued takes it out of the queue.
  infer->cancellation = std::make_shared<core::CancellationToken>();
  responder.WatchDisconnect(infer->cancellation);
  context->server.InferAsync(std::move(infer), [context, responder, target = prepared->target,
                                                rows = prepared->body.row_format](
                                                   absl::StatusOr<core::InferResponse> result) {
    // On a backend thread: encode on the connection's executor.
    responder.SendLater([result = std::move(result), target, rows] {
      if (!result.ok()) return TfServingErrorReply(TfServingStatus(result.status(), target));
      return Json(EncodeRestPredict(*result, rows));
    });
    context->tracker.EndCall();
  });
}

}  // namespace

void HandleTfsRestRequest(const std::shared_ptr<http::ServingContext>& context,
                          http::IncomingRequest request, http::Responder responder) {
  const std::string_view method(request.header.method_string().data(),
                                request.header.method_string().size());
  const std::string_view target(request.header.target().data(), request.header.target().size());
  absl::StatusOr<RestRoute> route = MatchRestRoute(method, target);
  if (!route.ok()) {
    responder.Send(TfServingErrorReply(route.status()));
    return;
  }
  switch (route->action) {
    case RestAction::kStatus:
      responder.Send(Json(StatusJson(context->server, *route)));
      return;
    case RestAction::kMetadata:
      responder.Send(Json(MetadataJson(context->server, *route)));
      return;
    case RestAction::kPredict:
      Predict(context, *route, request, responder);
      return;
    case RestAction::kClassify:
    case RestAction::kRegress:
      break;
  }
  responder.Send(TfServingErrorReply(absl::UnimplementedError(absl::StrCat(
      route->action == RestAction::kClassify ? ":classify" : ":regress",
      " takes tf.Example inputs for a TensorFlow classification or regression signature, which "
      "inferd's models do not have; use :predict (model '",
      route->model, "')"))));
}

absl::StatusOr<std::unique_ptr<http::HttpFrontend>> StartTfsRestFrontend(
    Server& server, http::HttpOptions options) {
  options.name = "tfs-rest";
  options.routes = HandleTfsRestRequest;
  return http::HttpFrontend::Create(server, std::move(options));
}

}  // namespace inferd::frontends::tfserving
