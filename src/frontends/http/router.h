// SPDX-License-Identifier: Apache-2.0
// Maps a request line (method + target) to a route, following Triton's
// http_server.cc: exact paths, /v2/models/stats before the per-model
// pattern, numeric versions only, 404 for unknown paths, 405 for a known path
// with the wrong method. No I/O; unit-tested on its own.
#pragma once

#include <string>
#include <string_view>

namespace inferd::frontends::http {

enum class HttpMethod { kGet, kPost, kOther };

enum class Route {
  kServerMetadata,
  kHealthLive,
  kHealthReady,
  kModelMetadata,
  kModelReady,
  kModelConfig,
  kModelInfer,
  kModelStats,  // also /v2/models/stats (model empty)
  kModelGenerate,
  kModelGenerateStream,
  kModelTraceSetting,
  kTraceSetting,
  kLogging,
  kRepositoryIndex,
  kRepositoryLoad,
  kRepositoryUnload,
  kSystemSharedMemoryStatus,
  kSystemSharedMemoryRegister,
  kSystemSharedMemoryUnregister,
  kCudaSharedMemoryStatus,
  kCudaSharedMemoryRegister,
  kCudaSharedMemoryUnregister,
};

struct RouteMatch {
  Route route = Route::kServerMetadata;
  std::string model;       // percent-decoded; empty when the route has none
  std::string version;     // digits, or empty
  std::string repository;  // /v2/repository/{repo}/..., or empty
  std::string region;      // shared-memory region, or empty
};

struct RouteResult {
  enum class Outcome { kMatched, kNotFound, kMethodNotAllowed };
  Outcome outcome = Outcome::kNotFound;
  RouteMatch match;
};

HttpMethod MethodFromString(std::string_view method);
// `target` is the request target: an origin-form path with an optional query
// (ignored).
RouteResult MatchRoute(HttpMethod method, std::string_view target);

}  // namespace inferd::frontends::http
