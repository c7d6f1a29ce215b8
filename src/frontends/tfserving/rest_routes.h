// SPDX-License-Identifier: Apache-2.0
// TF Serving's REST API (docs/api.md, "TensorFlow Serving") served by a
// second HTTP frontend on its own port (--tfs-rest-port, TF Serving's
// 8501): model status, metadata and :predict over inferd::Server alone.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "frontends/http/http_frontend.h"
#include "server/server.h"

namespace inferd::frontends::tfserving {

// The RouteHandler of that frontend (http::HttpOptions::routes).
void HandleTfsRestRequest(const std::shared_ptr<http::ServingContext>& context,
                          http::IncomingRequest request, http::Responder responder);

// Starts the frontend: `options` with the TF Serving routes (its port,
// threads and limits as given). `server` must outlive it.
absl::StatusOr<std::unique_ptr<http::HttpFrontend>> StartTfsRestFrontend(Server& server,
                                                                         http::HttpOptions options);

}  // namespace inferd::frontends::tfserving
