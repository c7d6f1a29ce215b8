// SPDX-License-Identifier: Apache-2.0
// Model repository: the index (optionally only ready models), and explicit
// load and unload, answered from the Server's completion callback.
#include "absl/strings/str_cat.h"
#include "frontends/http/repository_json.h"
#include "frontends/http/routes/routes.h"
#include "server/metadata_json.h"

namespace inferd::frontends::http {
namespace {

// Success is 200 with an empty body, as Triton answers.
HttpReply ControlReply(const absl::Status& status) {
  return status.ok() ? EmptyReply(200) : ErrorReply(status);
}

}  // namespace

HttpReply HandleRepositoryIndex(const ServingContext& context, const IncomingRequest& request) {
  const absl::StatusOr<bool> ready_only = ParseRepositoryIndexBody(*request.body);
  if (!ready_only.ok()) return ErrorReply(ready_only.status());
  return JsonReply(200, RepositoryIndexJson(context.server.RepositoryIndex(*ready_only)));
}

void HandleRepositoryControl(const std::shared_ptr<ServingContext>& context,
                             const IncomingRequest& request, Responder responder) {
  const RouteMatch& route = request.route;
  const bool load = route.route == Route::kRepositoryLoad;
  // As Triton: one implicit repository set, which cannot be named.
  if (!route.repository.empty()) {
    responder.Send(ErrorReply(absl::UnimplementedError(
        absl::StrCat("repository names are not supported in model ", load ? "load" : "unload",
                     "; got '", route.repository, "'"))));
    return;
  }
  absl::StatusOr<ModelLoadRequest> load_request;
  absl::StatusOr<bool> unload_dependents = false;
  if (load) {
    load_request = ParseModelLoadBody(route.model, *request.body);
  } else {
    unload_dependents = ParseModelUnloadBody(*request.body);
  }
  const absl::Status parsed = load ? load_request.status() : unload_dependents.status();
  if (!parsed.ok()) {
    responder.Send(ErrorReply(parsed));
    return;
  }
  // The reply is posted to the session's executor, so the I/O threads must
  // outlive the callback: bracket the call as an infer call is.
  if (!context->tracker.BeginCall()) {
    responder.Send(ErrorReply(absl::UnavailableError("the HTTP endpoint is shutting down")));
    return;
  }
  // Runs inline or on a control-plane thread.
  auto done = [context, responder](absl::Status status) {
    responder.Send(ControlReply(status));
    context->tracker.EndCall();
  };
  if (load) {
    context->server.LoadModelAsync(*std::move(load_request), std::move(done));
  } else {
    context->server.UnloadModelAsync(route.model, *unload_dependents, std::move(done));
  }
}

}  // namespace inferd::frontends::http
