// SPDX-License-Identifier: Apache-2.0
// The statistics extension: GET /v2/models/stats (every ready model) and
// /v2/models/{M}[/versions/{V}]/stats.
#include "frontends/http/routes/routes.h"
#include "server/statistics_json.h"

namespace inferd::frontends::http {

HttpReply HandleStatistics(const ServingContext& context, const RouteMatch& route) {
  const auto stats = context.server.Statistics(route.model, route.version);
  if (!stats.ok()) return ErrorReply(stats.status());
  return JsonReply(200, ModelStatisticsJson(*stats));
}

}  // namespace inferd::frontends::http
