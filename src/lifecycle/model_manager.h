// SPDX-License-Identifier: Apache-2.0
// Owns every model the server knows: loads the repositories, publishes the
// serving table, resolves a (model, version) for each request, and unloads
// on shutdown. Start-up loading is all this issue needs; polling and
// explicit load/unload will decide and publish through the same table.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lifecycle/model_loader.h"
#include "lifecycle/serving_table.h"

namespace inferd::lifecycle {

struct ModelManagerOptions {
  std::vector<std::string> repositories;
  LoaderOptions loader;
};

class ModelManager {
 public:
  // NotFound when a repository folder does not exist. Models that fail to
  // load do not fail Create: they are UNAVAILABLE with their reason.
  static absl::StatusOr<std::unique_ptr<ModelManager>> Create(ModelManagerOptions options);
  ~ModelManager();

  std::shared_ptr<const ServingSnapshot> Snapshot() const { return table_.Get(); }

  // The version a request for (model, version) runs on. `version` is a
  // decimal string or empty (the newest ready version). NotFound for an
  // unknown model or version; Unavailable when it exists but is not ready.
  absl::StatusOr<std::shared_ptr<ModelVersion>> Resolve(std::string_view model,
                                                        std::string_view version) const;
  // Every model READY in every selected version (Triton's strict readiness).
  bool AllReady() const;
  // Stops every version's scheduler (finishing accepted requests) and
  // unloads them. Idempotent.
  void UnloadAll();

 private:
  explicit ModelManager(ModelManagerOptions options) : options_(std::move(options)) {}
  absl::Status LoadAll();

  const ModelManagerOptions options_;
  ServingTable table_;
};

// "" -> nullopt (server's choice); digits -> the number; else an error.
absl::StatusOr<std::optional<int64_t>> ParseRequestedVersion(std::string_view model, std::string_view version);

}  // namespace inferd::lifecycle
