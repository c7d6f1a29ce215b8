// SPDX-License-Identifier: Apache-2.0
// What every session and route handler shares: the Server, the options and
// the connection tracker. Held by shared_ptr so that it outlives the last
// session and the last infer callback.
#pragma once

#include <atomic>

#include "frontends/http/connection_tracker.h"
#include "frontends/http/http_frontend.h"
#include "server/server.h"

namespace inferd::frontends::http {

struct ServingContext {
  using SideHandler = decltype(SideEndpoint::handler);

  ServingContext(Server& server_in, HttpOptions options_in, SideHandler side_handler_in = nullptr)
      : server(server_in),
        options(std::move(options_in)),
        side_handler(std::move(side_handler_in)) {}

  Server& server;  // not owned; outlives the frontend
  const HttpOptions options;
  // Set for a side endpoint (/metrics): answers every request in place of
  // the KServe routes.
  const SideHandler side_handler;
  ConnectionTracker tracker;
  // Set by HttpFrontend::BeginDrain: every reply from then on says
  // `Connection: close` (docs/deployment.md, "Shutdown").
  std::atomic<bool> draining{false};
};

}  // namespace inferd::frontends::http
