// SPDX-License-Identifier: Apache-2.0
// Server metadata, model metadata, model readiness and model configuration.
#include "absl/strings/str_cat.h"
#include "core/model_config_json.h"
#include "frontends/http/routes/routes.h"
#include "model_config.pb.h"
#include "server/metadata_json.h"

namespace inferd::frontends::http {
namespace {

std::string ModelLabel(const RouteMatch& route) {
  return route.version.empty() ? absl::StrCat("model '", route.model, "'")
                               : absl::StrCat("model '", route.model, "' version ", route.version);
}

HttpReply ModelReady(const ServingContext& context, const RouteMatch& route) {
  const absl::StatusOr<bool> ready = context.server.IsModelReady(route.model, route.version);
  if (!ready.ok()) return ErrorReply(ready.status());
  if (!*ready) return ErrorReply(400, absl::StrCat(ModelLabel(route), " is not ready"));
  return EmptyReply(200);
}

HttpReply ModelConfig(const ServingContext& context, const RouteMatch& route) {
  const auto config = context.server.GetModelConfig(route.model, route.version);
  if (!config.ok()) return ErrorReply(config.status());
  return JsonReply(200, core::ModelConfigToJson(**config));
}

HttpReply ModelMetadataReply(const ServingContext& context, const RouteMatch& route) {
  const auto metadata = context.server.GetModelMetadata(route.model, route.version);
  if (!metadata.ok()) return ErrorReply(metadata.status());
  return JsonReply(200, ModelMetadataJson(*metadata));
}

}  // namespace

HttpReply HandleMetadata(const ServingContext& context, const RouteMatch& route) {
  switch (route.route) {
    case Route::kServerMetadata:
      return JsonReply(200, ServerMetadataJson(context.server.Metadata()));
    case Route::kModelReady:
      return ModelReady(context, route);
    case Route::kModelConfig:
      return ModelConfig(context, route);
    case Route::kModelMetadata:
      return ModelMetadataReply(context, route);
    default:
      break;
  }
  return ErrorReply(absl::InternalError("metadata handler reached for another route"));
}

}  // namespace inferd::frontends::http
