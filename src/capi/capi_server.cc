// SPDX-License-Identifier: Apache-2.0
// INFERD_EmbeddedServer: an inferd::Server created, queried, controlled and
// stopped from C. The JSON documents are the HTTP endpoints' own
// (server/metadata_json.h, server/statistics_json.h, core/model_config_json.h).
#include <dlfcn.h>

#include <filesystem>
#include <future>

#include "base/logging.h"
#include "capi/capi_internal.h"
#include "core/model_config_json.h"
#include "model_config.pb.h"
#include "server/metadata_json.h"
#include "server/statistics_json.h"

namespace {

using inferd::capi::CopyOut;
using inferd::capi::Guarded;
using inferd::capi::RequireNonNull;
using inferd::capi::VersionString;

// "backends" beside libinferd.so: build/lib/backends in the build tree,
// <prefix>/lib/backends once installed (cmake/inferd_install.cmake).
std::string DefaultBackendDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&INFERD_ServerNew), &info) == 0 || info.dli_fname == nullptr) {
    return "backends";
  }
  std::error_code ec;
  const auto library = std::filesystem::canonical(info.dli_fname, ec);
  return ((ec ? std::filesystem::path(info.dli_fname) : library).parent_path() / "backends")
      .string();
}

absl::Status CheckServer(const INFERD_EmbeddedServer* server, const char* function) {
  return RequireNonNull(server, function, "server");
}

// Server calls answered through a callback, waited for: load and unload.
// The promise is shared, so the callback may still be unwinding on its
// thread after the waiter returned.
absl::Status Wait(const std::function<void(inferd::ModelControlCallback)>& start) {
  auto done = std::make_shared<std::promise<absl::Status>>();
  auto result = done->get_future();
  start([done](absl::Status status) { done->set_value(std::move(status)); });
  return result.get();
}

// A call that answers JSON about one model version: the shared argument
// checks, then `produce(model, version)`.
template <typename Produce>
INFERD_Error* ModelJsonCall(const char* function, INFERD_EmbeddedServer* server, const char* model,
                            int64_t version, char** json, Produce produce) {
  return Guarded(function, [&]() -> absl::Status {
    if (auto status = CheckServer(server, function); !status.ok()) return status;
    if (auto status = RequireNonNull(model, function, "model"); !status.ok()) return status;
    if (auto status = RequireNonNull(json, function, "json"); !status.ok()) return status;
    auto number = VersionString(function, version);
    if (!number.ok()) return number.status();
    absl::StatusOr<std::string> text = produce(std::string_view(model), *number);
    if (!text.ok()) return text.status();
    *json = CopyOut(*text);
    return absl::OkStatus();
  });
}

}  // namespace

extern "C" {

INFERD_Error* INFERD_ServerNew(INFERD_EmbeddedServer** server,
                               const INFERD_ServerOptions* options) {
  constexpr char kFunction[] = "INFERD_ServerNew";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = RequireNonNull(server, kFunction, "server"); !status.ok()) return status;
    if (auto status = RequireNonNull(options, kFunction, "options"); !status.ok()) return status;
    if (options->options.model_repositories.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          kFunction, ": no model repository (INFERD_ServerOptionsAddModelRepository)"));
    }
    if (options->log_level) {
      if (auto status = inferd::base::SetLogLevel(*options->log_level); !status.ok()) {
        return status;
      }
    }
    inferd::ServerOptions server_options = options->options;
    if (!options->backend_directory_set)
      server_options.backend_directory = DefaultBackendDirectory();
    // An embedder has no endpoints to open first: Create returns with the
    // start-up models loaded (or failed).
    server_options.load_models_in_create = true;
    auto created = inferd::Server::Create(std::move(server_options));
    if (!created.ok()) return created.status();
    *server = new INFERD_EmbeddedServer{std::move(*created), options->exit_timeout};
    return absl::OkStatus();
  });
}

void INFERD_ServerDelete(INFERD_EmbeddedServer* server) {
  if (server == nullptr) return;
  try {
    server->server->Stop(server->exit_timeout);
  } catch (...) {
    // Stop does not throw; the destructor below stops for good anyway.
  }
  delete server;
}

INFERD_Error* INFERD_ServerStop(INFERD_EmbeddedServer* server) {
  return Guarded("INFERD_ServerStop", [&]() -> absl::Status {
    if (auto status = CheckServer(server, "INFERD_ServerStop"); !status.ok()) return status;
    server->server->Stop(server->exit_timeout);
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerIsLive(INFERD_EmbeddedServer* server, int* live) {
  return Guarded("INFERD_ServerIsLive", [&]() -> absl::Status {
    if (auto status = CheckServer(server, "INFERD_ServerIsLive"); !status.ok()) return status;
    if (auto status = RequireNonNull(live, "INFERD_ServerIsLive", "live"); !status.ok())
      return status;
    *live = server->server->IsLive() ? 1 : 0;
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerIsReady(INFERD_EmbeddedServer* server, int* ready) {
  return Guarded("INFERD_ServerIsReady", [&]() -> absl::Status {
    if (auto status = CheckServer(server, "INFERD_ServerIsReady"); !status.ok()) return status;
    if (auto status = RequireNonNull(ready, "INFERD_ServerIsReady", "ready"); !status.ok())
      return status;
    *ready = server->server->IsReady() ? 1 : 0;
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerModelIsReady(INFERD_EmbeddedServer* server, const char* model,
                                        int64_t version, int* ready) {
  constexpr char kFunction[] = "INFERD_ServerModelIsReady";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = CheckServer(server, kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(model, kFunction, "model"); !status.ok()) return status;
    if (auto status = RequireNonNull(ready, kFunction, "ready"); !status.ok()) return status;
    auto number = VersionString(kFunction, version);
    if (!number.ok()) return number.status();
    auto is_ready = server->server->IsModelReady(model, *number);
    if (!is_ready.ok()) return is_ready.status();
    *ready = *is_ready ? 1 : 0;
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerMetadata(INFERD_EmbeddedServer* server, char** json) {
  constexpr char kFunction[] = "INFERD_ServerMetadata";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = CheckServer(server, kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(json, kFunction, "json"); !status.ok()) return status;
    *json = CopyOut(inferd::ServerMetadataJson(server->server->Metadata()));
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerModelIndex(INFERD_EmbeddedServer* server, int ready_only, char** json) {
  constexpr char kFunction[] = "INFERD_ServerModelIndex";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = CheckServer(server, kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(json, kFunction, "json"); !status.ok()) return status;
    *json = CopyOut(inferd::RepositoryIndexJson(server->server->RepositoryIndex(ready_only != 0)));
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerModelMetadata(INFERD_EmbeddedServer* server, const char* model,
                                         int64_t version, char** json) {
  return ModelJsonCall(
      "INFERD_ServerModelMetadata", server, model, version, json,
      [server](std::string_view name, const std::string& number) -> absl::StatusOr<std::string> {
        auto metadata = server->server->GetModelMetadata(name, number);
        if (!metadata.ok()) return metadata.status();
        return inferd::ModelMetadataJson(*metadata);
      });
}

INFERD_Error* INFERD_ServerModelConfig(INFERD_EmbeddedServer* server, const char* model,
                                       int64_t version, char** json) {
  return ModelJsonCall(
      "INFERD_ServerModelConfig", server, model, version, json,
      [server](std::string_view name, const std::string& number) -> absl::StatusOr<std::string> {
        auto config = server->server->GetModelConfig(name, number);
        if (!config.ok()) return config.status();
        return inferd::core::ModelConfigToJson(**config);
      });
}

INFERD_Error* INFERD_ServerModelStatistics(INFERD_EmbeddedServer* server, const char* model,
                                           int64_t version, char** json) {
  constexpr char kFunction[] = "INFERD_ServerModelStatistics";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = CheckServer(server, kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(json, kFunction, "json"); !status.ok()) return status;
    const std::string name = model == nullptr ? "" : model;
    auto number = VersionString(kFunction, version);
    if (!number.ok()) return number.status();
    if (name.empty() && !number->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kFunction, ": a version (", version, ") needs a model"));
    }
    auto stats = server->server->Statistics(name, *number);
    if (!stats.ok()) return stats.status();
    *json = CopyOut(inferd::ModelStatisticsJson(*stats));
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerLoadModel(INFERD_EmbeddedServer* server, const char* model,
                                     const char* config_json) {
  constexpr char kFunction[] = "INFERD_ServerLoadModel";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = CheckServer(server, kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(model, kFunction, "model"); !status.ok()) return status;
    inferd::ModelLoadRequest request;
    request.model = model;
    if (config_json != nullptr) request.config_json = config_json;
    return Wait([&](inferd::ModelControlCallback done) {
      server->server->LoadModelAsync(std::move(request), std::move(done));
    });
  });
}

INFERD_Error* INFERD_ServerUnloadModel(INFERD_EmbeddedServer* server, const char* model,
                                       int unload_dependents) {
  constexpr char kFunction[] = "INFERD_ServerUnloadModel";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = CheckServer(server, kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(model, kFunction, "model"); !status.ok()) return status;
    return Wait([&](inferd::ModelControlCallback done) {
      server->server->UnloadModelAsync(model, unload_dependents != 0, std::move(done));
    });
  });
}

}  // extern "C"
