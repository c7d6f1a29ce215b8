// SPDX-License-Identifier: Apache-2.0
// What every session and route handler shares: the Server, the options and
// the connection tracker. Held by shared_ptr so that it outlives the last
// session and the last infer callback.
#pragma once

#include "frontends/http/connection_tracker.h"
#include "frontends/http/http_frontend.h"
#include "server/server.h"

namespace inferd::frontends::http {

struct ServingContext {
  ServingContext(Server& server_in, HttpOptions options_in)
      : server(server_in), options(std::move(options_in)) {}

  Server& server;  // not owned; outlives the frontend
  const HttpOptions options;
  ConnectionTracker tracker;
};

}  // namespace inferd::frontends::http
