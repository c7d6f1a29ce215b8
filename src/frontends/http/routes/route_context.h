// SPDX-License-Identifier: Apache-2.0
// What a route handler receives: the shared serving context, the matched
// route, the request header and the body (owned, shareable so that input
// tensors can point into it).
#pragma once

#include <memory>
#include <string>

#include "boost/beast/http/message.hpp"
#include "frontends/http/responder.h"
#include "frontends/http/router.h"
#include "frontends/http/serving_context.h"

namespace inferd::frontends::http {

struct IncomingRequest {
  RouteMatch route;
  boost::beast::http::request_header<> header;
  std::shared_ptr<std::string> body;
};

}  // namespace inferd::frontends::http
