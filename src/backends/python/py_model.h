// SPDX-License-Identifier: Apache-2.0
// A Python model version: where model.py is, which interpreter runs it and
// with what environment (EXECUTION_ENV_PATH), how its workers exchange
// tensors (shared memory parameters) and how long they may take. Read-only
// after creation, shared by the model's instances.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "inferd/backend.h"
#include "py_protocol.h"
#include "shm_region.h"
#include "worker_process.h"

namespace inferd::python {

// Config `parameters` of a Python model (docs/backends.md "Python models").
struct PyParameters {
  // EXECUTION_ENV_PATH: a virtualenv/conda environment folder (its
  // bin/python3 runs the model) or an interpreter; relative to the model
  // folder; $$TRITON_MODEL_DIRECTORY is replaced by the model folder.
  std::string execution_env;
  // --python / --backend-config=python,interpreter=...: the interpreter when
  // EXECUTION_ENV_PATH is unset and INFERD_PYTHON is too (py_interpreter.h).
  std::string default_interpreter;
  ShmMode shm_mode = ShmMode::kAuto;       // shared_memory: auto | dev-shm | none
  uint64_t region_bytes = 0;               // shm_region_bytes; 0: sized from the config
  uint64_t max_region_bytes = 1ull << 30;  // shm_max_region_bytes
  uint64_t response_pool_bytes = 0;        // shm_response_pool_bytes; 0: the region's first size
  // execute_timeout_seconds / initialize_timeout_seconds; 0: wait forever.
  std::chrono::milliseconds execute_timeout{std::chrono::seconds(300)};
  std::chrono::milliseconds initialize_timeout{std::chrono::seconds(300)};
};
StatusOr<PyParameters> ParseParameters(const INFERD_ModelSpec& spec);

struct PyModel {
  const INFERD_ServerApi* api = nullptr;
  // Where BLS requests go (INFERD_ModelSpec::server); null when the server
  // offers none.
  INFERD_Server* server = nullptr;
  std::string name;
  int64_t version = 0;
  std::string model_directory;
  std::string model_file;  // absolute path of <version>/model.py
  std::string config_json;
  PyParameters params;
  WorkerCommand command;  // how to start a worker
  uint64_t initial_region_bytes = 0;
  // model_transaction_policy { decoupled: true }: answers through response
  // senders only (py_responses.h).
  bool decoupled = false;
  // The response pool of a decoupled model's worker.
  uint64_t response_pool_bytes = 0;
};

// Validates the spec (model.py exists, parameters, interpreter) and fills a
// PyModel; errors are the model's UNAVAILABLE reason.
StatusOr<std::unique_ptr<PyModel>> CreatePyModel(const INFERD_ServerApi& api,
                                                 const INFERD_ModelSpec& spec);

// INIT's JSON payload for instance `index` (PROTOCOL.md).
std::string InitMessageJson(const PyModel& model, uint32_t index);

// The region size to start with: every configured tensor at max_batch_size
// rows (variable dims and BYTES counted as 64 KiB), twice (inputs of one
// batch plus outputs still being sent), clamped to [1 MiB, max].
uint64_t EstimateRegionBytes(const INFERD_ModelSpec& spec, uint64_t max_region_bytes);

// The worker command for the model's interpreter (EXECUTION_ENV_PATH
// resolved, or the default): `-m inferd_python_worker`, and the server's
// environment with PYTHONPATH led by this backend's Python package folder.
StatusOr<WorkerCommand> MakeWorkerCommand(const PyParameters& params,
                                          const std::string& model_directory,
                                          int32_t default_threads);

}  // namespace inferd::python
