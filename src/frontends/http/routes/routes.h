// SPDX-License-Identifier: Apache-2.0
// The route groups, one file each: health probes, metadata (server, model,
// config, ready), inference, statistics, and the model repository.
#pragma once

#include "frontends/http/routes/route_context.h"

namespace inferd::frontends::http {

// GET /v2/health/live and /v2/health/ready.
HttpReply HandleHealth(const ServingContext& context, const RouteMatch& route);
// GET /v2, /v2/models/{M}[/versions/{V}][/ready|/config].
HttpReply HandleMetadata(const ServingContext& context, const RouteMatch& route);
// GET /v2/models/stats and /v2/models/{M}[/versions/{V}]/stats.
HttpReply HandleStatistics(const ServingContext& context, const RouteMatch& route);
// POST /v2/repository[/{R}]/index.
HttpReply HandleRepositoryIndex(const ServingContext& context, const IncomingRequest& request);
// POST /v2/repository[/{R}]/models/{M}/load|unload; answers asynchronously,
// once the Server has loaded or unloaded the model (200, empty body).
void HandleRepositoryControl(const std::shared_ptr<ServingContext>& context,
                             const IncomingRequest& request, Responder responder);
// POST /v2/models/{M}[/versions/{V}]/infer; answers asynchronously.
void HandleInfer(const std::shared_ptr<ServingContext>& context, IncomingRequest request,
                 Responder responder);

// POST /v2/models/{M}[/versions/{V}]/generate and .../generate_stream
// (Triton's generate extension, generate.cc); answers asynchronously, the
// stream as Server-Sent Events.
void HandleGenerate(const std::shared_ptr<ServingContext>& context, IncomingRequest request,
                    Responder responder, bool streaming);

// GET /v2/{system,cuda}sharedmemory[/region/{R}]/status, POST .../register
// and .../unregister (routes/shared_memory.cc: every region operation).
HttpReply HandleSharedMemory(const ServingContext& context, const IncomingRequest& request);

// Routes to the handler above or answers 404/405/501 itself.
void DispatchRequest(const std::shared_ptr<ServingContext>& context, IncomingRequest request,
                     Responder responder);

}  // namespace inferd::frontends::http
