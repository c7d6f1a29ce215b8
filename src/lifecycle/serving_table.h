// SPDX-License-Identifier: Apache-2.0
// The immutable snapshot of every model and version the server knows, with
// their states. The request path reads it through an atomic shared_ptr and
// never takes a lifecycle lock (docs/architecture.md, "Threading").
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lifecycle/model_version.h"
#include "model_config.pb.h"

namespace inferd::lifecycle {

enum class VersionState { kLoading, kReady, kUnavailable, kUnloading };
std::string_view VersionStateName(VersionState state);

struct VersionStatus {
  int64_t version = 0;
  VersionState state = VersionState::kUnavailable;
  std::string reason;
  std::shared_ptr<ModelVersion> loaded;  // set when kReady
};

struct ModelStatus {
  std::string name;
  // The completed config; null when the config itself could not be read.
  std::shared_ptr<const inference::ModelConfig> config;
  // Set when the model as a whole failed before any version was tried.
  std::string reason;
  // Should be serving: strict readiness waits for it. False once unloaded.
  bool wanted = true;
  std::vector<VersionStatus> versions;  // ascending

  // The newest ready version, or null.
  const VersionStatus* NewestReady() const;
  const VersionStatus* Find(int64_t version) const;
};

struct ServingSnapshot {
  std::map<std::string, ModelStatus, std::less<>> models;
};

class ServingTable {
 public:
  ServingTable() : current_(std::make_shared<const ServingSnapshot>()) {}
  std::shared_ptr<const ServingSnapshot> Get() const {
    return current_.load(std::memory_order_acquire);
  }
  void Publish(std::shared_ptr<const ServingSnapshot> snapshot) {
    current_.store(std::move(snapshot), std::memory_order_release);
  }

 private:
  std::atomic<std::shared_ptr<const ServingSnapshot>> current_;
};

}  // namespace inferd::lifecycle
