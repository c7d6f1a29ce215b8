// SPDX-License-Identifier: Apache-2.0
// Runs the batches the sequence batcher forms for one instance, on that
// instance's own thread. Unlike the instance pool's shared FIFO, a batch
// here belongs to one instance: the sequences in it hold slots (rows) or
// candidacy on that instance.
#pragma once

#include <deque>
#include <memory>
#include <thread>

#include "backends/abi/backend_model.h"
#include "base/clock.h"
#include "base/mutex.h"
#include "scheduling/instance_pool.h"

namespace inferd::scheduling {

class SequenceRunner {
 public:
  // `clock` is borrowed and outlives the runner.
  SequenceRunner(std::unique_ptr<backends::BackendInstance> instance, const base::Clock& clock);
  ~SequenceRunner();  // Stop()s; then deletes the instance
  SequenceRunner(const SequenceRunner&) = delete;
  SequenceRunner& operator=(const SequenceRunner&) = delete;

  // Queues a batch; its requests already left the batcher's queues.
  void Run(Batch batch);
  // Runs what is queued, then joins. Idempotent.
  void Stop();

 private:
  void Loop();

  std::unique_ptr<backends::BackendInstance> instance_;
  const base::Clock& clock_;
  base::Mutex mu_;
  std::deque<Batch> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace inferd::scheduling
