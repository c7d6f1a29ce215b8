// SPDX-License-Identifier: Apache-2.0
// The Prometheus endpoint: GET /metrics on a port of its own, served by the
// HTTP frontend's I/O threads as a side endpoint (metrics own no thread).
#pragma once

#include <string>
#include <string_view>

#include "frontends/http/http_frontend.h"
#include "frontends/http/http_reply.h"
#include "frontends/metrics/metrics_exporter.h"
#include "server/server.h"

namespace inferd::frontends::metrics {

// A side endpoint for HttpFrontend::Create that serves /metrics on
// host:port. `server` is borrowed: it outlives the HTTP frontend.
http::SideEndpoint MetricsEndpoint(const Server& server, std::string host, int port,
                                   MetricsOptions options);

// One request: GET /metrics (any query ignored) gets the exposition; another
// path 404, another method on /metrics 405.
http::HttpReply HandleMetricsRequest(const Server& server, const MetricsOptions& options,
                                     std::string_view method, std::string_view target);

}  // namespace inferd::frontends::metrics
