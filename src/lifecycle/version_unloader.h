// SPDX-License-Identifier: Apache-2.0
// Unloads a model version when its last user lets go. Requests pin the
// version they run on (a shared_ptr), so the last pin may drop on any thread,
// including one of the version's own instance threads, which cannot join
// itself: the pin's deleter only queues the version, and this class's one
// thread stops its scheduler, deletes it, returns freed heap to the system
// (malloc_trim) and reports it released.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>

#include "base/mutex.h"
#include "lifecycle/model_version.h"

namespace inferd::lifecycle {

class VersionUnloader {
 public:
  // `on_released(id)` runs on the unloader thread after the version that was
  // adopted with `id` is deleted. It must not wait for other versions.
  explicit VersionUnloader(std::function<void(uint64_t id)> on_released);
  // Unloads what is queued, then joins. Versions released later are
  // unloaded on the releasing thread.
  ~VersionUnloader();
  VersionUnloader(const VersionUnloader&) = delete;
  VersionUnloader& operator=(const VersionUnloader&) = delete;

  // The shared owner through which the version is served and pinned.
  std::shared_ptr<ModelVersion> Adopt(std::unique_ptr<ModelVersion> version, uint64_t id);

 private:
  struct Queue;
  static void Run(Queue& queue);

  // Shared with the deleters, which may outlive this object.
  std::shared_ptr<Queue> queue_;
  std::thread thread_;
};

}  // namespace inferd::lifecycle
