// SPDX-License-Identifier: Apache-2.0
// One instance of a Python model: one worker process, its shared memory
// region, and the execution of batches through it. A worker that dies or
// hangs fails only the batch it was executing and is replaced before the
// next one (docs/architecture.md, "Backends calling other models"; user code never takes the server
// down). While it waits for the worker's answer, the instance thread also serves the worker's BLS
// requests (py_bls.h); what response senders send arrives on another thread (py_responses.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "inferd/backend.h"
#include "py_bls.h"
#include "py_model.h"
#include "py_responses.h"
#include "request_batch.h"
#include "shm_region.h"
#include "worker_process.h"

namespace inferd::python {

class PyInstance {
 public:
  PyInstance(const PyModel& model, uint32_t index) : model_(model), index_(index) {}
  ~PyInstance();  // finalizes the worker (FINALIZE, then kill if it lingers)
  PyInstance(const PyInstance&) = delete;
  PyInstance& operator=(const PyInstance&) = delete;

  // Starts the worker and runs initialize(); the error is the model's
  // UNAVAILABLE reason.
  Status Start();
  // Runs one batch; completes every request (backend.h contract).
  void Execute(INFERD_Request** requests, size_t count);

 private:
  Status StartWorker();
  // Before a batch: a worker that died while idle is replaced (with at most
  // one attempt a second while starting keeps failing).
  Status EnsureWorker();
  // Ends the worker after a failure in flight and says why, for the batch's
  // error.
  std::string AbandonWorker(const Status& cause, bool timed_out);
  Status SendRegion();
  // Grows the region to at least `needed` bytes free (a new region is sent
  // before the next EXECUTE); false when it cannot.
  bool GrowRegion(uint64_t needed);
  // Hands the worker the response socket (and pool) of a new router.
  Status StartResponses();
  // Runs one batch. Its requests are handed to the router (`opens`) just
  // before the EXECUTE goes out; an error return fails those still open.
  Status RunBatch(backend_util::RequestBatch& batch,
                  std::vector<std::shared_ptr<OpenRequest>>& opens);
  // The exchange for the message about to be sent: BLS with this region,
  // output range and parent (`unavailable` when BLS is not served then).
  BlsContext MakeBlsContext(std::shared_ptr<RegionBlock> output_range, const INFERD_Request* parent,
                            std::string unavailable = {});
  // Waits until `deadline` for the worker's answer to the message just
  // sent, serving its BLS requests meanwhile; *timed_out when the deadline
  // passed.
  StatusOr<WorkerChannel::Message> Await(BlsExchange& bls, WorkerChannel::Deadline deadline,
                                         bool* timed_out);
  std::string Describe() const;

  const PyModel& model_;
  const uint32_t index_;
  std::unique_ptr<WorkerProcess> worker_;
  // The current worker's response senders (one per worker: a new worker
  // gets a new socket); outlives worker_ so that it reads the end of file.
  std::unique_ptr<ResponseRouter> router_;
  uint64_t next_request_id_ = 1;
  std::shared_ptr<ShmRegion> region_;
  bool region_sent_ = false;
  bool region_failed_ = false;         // logged once; everything travels inline
  uint64_t refused_region_bytes_ = 0;  // the smallest size growing to failed
  std::shared_ptr<BlsMailbox> mailbox_;
  std::string mailbox_error_;
  // The model makes BLS calls: each EXECUTE's output range then leaves half
  // of the free space for the BLS outputs the server copies in.
  bool uses_bls_ = false;
  Status last_start_error_;
  std::chrono::steady_clock::time_point last_start_attempt_{};
};

}  // namespace inferd::python
