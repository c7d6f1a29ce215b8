// SPDX-License-Identifier: Apache-2.0
// The shared-memory extensions, Triton's control-plane endpoints for regions:
// /v2/systemsharedmemory[/region/{r}]/status|register|unregister over the
// Server's registry, and /v2/cudasharedmemory/... as a server without GPUs
// answers them (status and unregister succeed with nothing registered;
// register is refused). Every region operation of the HTTP frontend is here,
// so that access control can guard this one door (docs/api.md, "Shared
// memory").
#include "absl/strings/str_cat.h"
#include "frontends/http/routes/routes.h"
#include "frontends/http/shared_memory_json.h"

namespace inferd::frontends::http {
namespace {

// Success is 200 with an empty body, as Triton answers.
HttpReply Done(const absl::Status& status) {
  return status.ok() ? EmptyReply(200) : ErrorReply(status);
}

HttpReply System(SharedMemoryRegistry& registry, const IncomingRequest& request) {
  const RouteMatch& route = request.route;
  switch (route.route) {
    case Route::kSystemSharedMemoryStatus: {
      auto regions = registry.Status(route.region);
      if (!regions.ok()) return ErrorReply(regions.status());
      return JsonReply(200, SharedMemoryStatusJson(*regions));
    }
    case Route::kSystemSharedMemoryRegister: {
      auto body = ParseSharedMemoryRegisterBody(*request.body);
      if (!body.ok()) return ErrorReply(body.status());
      return Done(registry.Register(route.region, body->key, body->offset, body->byte_size));
    }
    default:
      if (route.region.empty()) {
        registry.UnregisterAll();
      } else {
        registry.Unregister(route.region);
      }
      return Done(absl::OkStatus());
  }
}

// As Triton built without GPU support answers.
HttpReply Cuda(const RouteMatch& route) {
  switch (route.route) {
    case Route::kCudaSharedMemoryStatus:
      if (route.region.empty()) return JsonReply(200, "[]");
      return ErrorReply(absl::NotFoundError(
          absl::StrCat("Unable to find cuda shared memory region: '", route.region, "'")));
    case Route::kCudaSharedMemoryRegister:
      return ErrorReply(
          absl::InvalidArgumentError(absl::StrCat("failed to register CUDA shared memory region: '",
                                                  route.region, "', GPUs not supported")));
    default:
      return Done(absl::OkStatus());  // nothing is registered: nothing to remove
  }
}

}  // namespace

HttpReply HandleSharedMemory(const ServingContext& context, const IncomingRequest& request) {
  switch (request.route.route) {
    case Route::kCudaSharedMemoryStatus:
    case Route::kCudaSharedMemoryRegister:
    case Route::kCudaSharedMemoryUnregister:
      return Cuda(request.route);
    default:
      return System(context.server.shared_memory(), request);
  }
}

}  // namespace inferd::frontends::http
