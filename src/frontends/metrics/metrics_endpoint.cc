// SPDX-License-Identifier: Apache-2.0
#include "frontends/metrics/metrics_endpoint.h"

#include <utility>

#include "base/logging.h"
#include "frontends/metrics/text_format.h"

namespace inferd::frontends::metrics {

http::SideEndpoint MetricsEndpoint(const Server& server, std::string host, int port,
                                   MetricsOptions options) {
  http::SideEndpoint endpoint;
  endpoint.name = "metrics";
  endpoint.host = std::move(host);
  endpoint.port = port;
  endpoint.handler = [&server, options](std::string_view method, std::string_view target) {
    return HandleMetricsRequest(server, options, method, target);
  };
  return endpoint;
}

http::HttpReply HandleMetricsRequest(const Server& server, const MetricsOptions& options,
                                     std::string_view method, std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path != "/metrics") return http::ErrorReply(404, "Not Found");
  if (method != "GET") {
    http::HttpReply reply = http::ErrorReply(405, "Method Not Allowed");
    reply.headers.emplace_back("Allow", "GET");
    return reply;
  }
  auto models = server.Statistics("", "");
  if (!models.ok()) return http::ErrorReply(models.status());
  auto process = ReadProcessMetrics();
  if (!process.ok()) {
    INFERD_LOG_DEBUG("metrics: no process metrics: {}", process.status().ToString());
  }
  http::HttpReply reply;
  reply.status = 200;
  reply.content_type = std::string(kTextFormatContentType);
  reply.body = RenderMetrics(*models, process.ok() ? &*process : nullptr, options);
  return reply;
}

}  // namespace inferd::frontends::metrics
