// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/version_unloader.h"

#include <malloc.h>
#include <pthread.h>

namespace inferd::lifecycle {
namespace {

void Unload(ModelVersion* version) {
  version->Stop();  // nothing is queued (no pins are left); joins the instance threads
  delete version;
  // glibc keeps freed pages of its heaps; a multi-hundred-MB model would
  // otherwise stay in RSS after unload. Cheap next to an unload.
  malloc_trim(0);
}

}  // namespace

struct VersionUnloader::Queue {
  explicit Queue(std::function<void(uint64_t)> released) : on_released(std::move(released)) {}
  const std::function<void(uint64_t)> on_released;
  base::Mutex mu;
  std::deque<std::pair<ModelVersion*, uint64_t>> pending ABSL_GUARDED_BY(mu);
  bool stopped ABSL_GUARDED_BY(mu) = false;
};

VersionUnloader::VersionUnloader(std::function<void(uint64_t id)> on_released)
    : queue_(std::make_shared<Queue>(std::move(on_released))), thread_([this] {
        pthread_setname_np(pthread_self(), "inferd-unload");
        Run(*queue_);
      }) {}

VersionUnloader::~VersionUnloader() {
  {
    base::MutexLock lock(&queue_->mu);
    queue_->stopped = true;
  }
  thread_.join();
}

void VersionUnloader::Run(Queue& queue) {
  for (;;) {
    std::pair<ModelVersion*, uint64_t> next;
    {
      base::MutexLock lock(&queue.mu);
      queue.mu.Await([&queue]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(queue.mu) {
        return queue.stopped || !queue.pending.empty();
      });
      if (queue.pending.empty()) return;  // stopped and drained
      next = queue.pending.front();
      queue.pending.pop_front();
    }
    Unload(next.first);
    queue.on_released(next.second);
  }
}

std::shared_ptr<ModelVersion> VersionUnloader::Adopt(std::unique_ptr<ModelVersion> version,
                                                     uint64_t id) {
  std::weak_ptr<Queue> weak_queue = queue_;
  return std::shared_ptr<ModelVersion>(version.release(), [weak_queue, id](ModelVersion* released) {
    if (auto queue = weak_queue.lock()) {
      base::MutexLock lock(&queue->mu);
      if (!queue->stopped) {
        queue->pending.emplace_back(released, id);
        return;
      }
    }
    // The manager is gone (a pin outlived it): nobody waits for the id.
    Unload(released);
  });
}

}  // namespace inferd::lifecycle
