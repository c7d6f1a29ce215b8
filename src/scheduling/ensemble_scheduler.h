// SPDX-License-Identifier: Apache-2.0
// Runs an ensemble's requests as a data flow over its graph: a step is
// submitted as soon as every tensor it reads exists, so independent branches
// run concurrently. Each step is an ordinary request to its model, sent
// through the server's public path (core::InferenceSubmitter): it waits in
// that model's own queue and batches with client requests. Intermediate
// tensors are passed on as they came back (shared buffers, no copy). No
// thread of its own: steps are launched from the thread that completed the
// step before (docs/architecture.md, "Ensembles").
#pragma once

#include <atomic>
#include <memory>

#include "core/inference_submitter.h"
#include "scheduling/ensemble_graph.h"
#include "scheduling/scheduler.h"

namespace inferd::scheduling {

class EnsembleScheduler final : public Scheduler {
 public:
  // `submitter` outlives every request (it is the server).
  EnsembleScheduler(std::shared_ptr<const EnsembleGraph> graph,
                    core::InferenceSubmitter* submitter);

  void Submit(std::unique_ptr<INFERD_Request> request) override;
  // New requests fail with Unavailable; running ones go on (each pins the
  // version, so the version outlives them).
  void Stop() override;
  // Queued steps wait in their own models' schedulers, which answer them
  // when those drain; nothing waits here.
  void FailQueued(const absl::Status&) override {}

 private:
  const std::shared_ptr<const EnsembleGraph> graph_;
  // Which steps a request that names no outputs needs: all that lead to an
  // ensemble output.
  const std::vector<bool> all_outputs_steps_;
  core::InferenceSubmitter* const submitter_;
  std::atomic<bool> stopped_{false};
};

}  // namespace inferd::scheduling
