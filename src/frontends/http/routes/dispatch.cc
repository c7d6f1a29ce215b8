// SPDX-License-Identifier: Apache-2.0
// Request line -> route group; routing failures and the Triton endpoints
// this server does not offer yet are answered here.
#include "absl/strings/str_cat.h"
#include "frontends/http/routes/routes.h"
#include "frontends/http/string_view_util.h"

namespace inferd::frontends::http {
namespace {

std::string_view Describe(Route route) {
  switch (route) {
    case Route::kModelTraceSetting:
    case Route::kTraceSetting:
      return "trace settings";
    case Route::kLogging:
      return "log settings";
    default:
      break;
  }
  return "this endpoint";
}

}  // namespace

void DispatchRequest(const std::shared_ptr<ServingContext>& context, IncomingRequest request,
                     Responder responder) {
  const std::string_view method(request.header.method_string().data(),
                                request.header.method_string().size());
  const std::string_view target(request.header.target().data(), request.header.target().size());
  if (context->side_handler) {
    responder.Send(context->side_handler(method, target));
    return;
  }
  if (context->options.routes) {
    context->options.routes(context, std::move(request), std::move(responder));
    return;
  }
  RouteResult result = MatchRoute(MethodFromString(method), target);
  if (result.outcome == RouteResult::Outcome::kNotFound) {
    responder.Send(ErrorReply(404, "Not Found"));
    return;
  }
  if (result.outcome == RouteResult::Outcome::kMethodNotAllowed) {
    responder.Send(ErrorReply(405, "Method Not Allowed"));
    return;
  }
  request.route = std::move(result.match);
  switch (request.route.route) {
    case Route::kHealthLive:
    case Route::kHealthReady:
      responder.Send(HandleHealth(*context, request.route));
      return;
    case Route::kServerMetadata:
    case Route::kModelMetadata:
    case Route::kModelReady:
    case Route::kModelConfig:
      responder.Send(HandleMetadata(*context, request.route));
      return;
    case Route::kModelStats:
      responder.Send(HandleStatistics(*context, request.route));
      return;
    case Route::kModelInfer:
      HandleInfer(context, std::move(request), std::move(responder));
      return;
    case Route::kModelGenerate:
    case Route::kModelGenerateStream: {
      const bool streaming = request.route.route == Route::kModelGenerateStream;
      HandleGenerate(context, std::move(request), std::move(responder), streaming);
      return;
    }
    case Route::kRepositoryIndex:
      responder.Send(HandleRepositoryIndex(*context, request));
      return;
    case Route::kSystemSharedMemoryStatus:
    case Route::kSystemSharedMemoryRegister:
    case Route::kSystemSharedMemoryUnregister:
    case Route::kCudaSharedMemoryStatus:
    case Route::kCudaSharedMemoryRegister:
    case Route::kCudaSharedMemoryUnregister:
      responder.Send(HandleSharedMemory(*context, request));
      return;
    case Route::kRepositoryLoad:
    case Route::kRepositoryUnload:
      HandleRepositoryControl(context, request, std::move(responder));
      return;
    default:
      break;
  }
  responder.Send(ErrorReply(absl::UnimplementedError(absl::StrCat(
      AsAbsl(Describe(request.route.route)), " is not supported by this server yet"))));
}

}  // namespace inferd::frontends::http
