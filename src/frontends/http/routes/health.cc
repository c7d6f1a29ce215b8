// SPDX-License-Identifier: Apache-2.0
// Health probes: 200 with no body, or 400 with no body (Triton's behaviour).
#include "frontends/http/routes/routes.h"

namespace inferd::frontends::http {

HttpReply HandleHealth(const ServingContext& context, const RouteMatch& route) {
  const bool ok =
      route.route == Route::kHealthLive ? context.server.IsLive() : context.server.IsReady();
  return EmptyReply(ok ? 200 : 400);
}

}  // namespace inferd::frontends::http
