// SPDX-License-Identifier: Apache-2.0
// Runs batches on a model's instances: one thread per instance (Triton's
// contract: an instance executes one batch at a time), all pulling from one
// FIFO so a batch goes to the first free instance.
#pragma once

#include <deque>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "backends/abi/backend_model.h"
#include "backends/abi/backend_request.h"

namespace inferd::scheduling {

using Batch = std::vector<std::unique_ptr<INFERD_Request>>;

class InstancePool {
 public:
  // Starts one thread per instance; `name` labels the threads in logs.
  InstancePool(std::string name, std::vector<std::unique_ptr<backends::BackendInstance>> instances);
  // Stop()s and joins.
  ~InstancePool();
  InstancePool(const InstancePool&) = delete;
  InstancePool& operator=(const InstancePool&) = delete;

  // Queues a batch for the next free instance. After Stop() the batch's
  // requests are completed with Unavailable instead.
  void Enqueue(Batch batch);
  // Stops accepting, lets the instances finish every queued batch, joins.
  void Stop();
  size_t instance_count() const { return instances_.size(); }

 private:
  void Run(backends::BackendInstance& instance);

  const std::string name_;
  std::vector<std::unique_ptr<backends::BackendInstance>> instances_;
  absl::Mutex mu_;
  std::deque<Batch> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace inferd::scheduling
