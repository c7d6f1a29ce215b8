// SPDX-License-Identifier: Apache-2.0
// The INFERD_ServerApi function table that the server hands to backends, and
// the server-side definitions of INFERD_Error and INFERD_Signature.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/infer_request.h"
#include "core/inference_submitter.h"
#include "core/shape.h"
#include "inferd/backend.h"

struct INFERD_Error {
  explicit INFERD_Error(absl::Status error) : status(std::move(error)), message(status.message()) {}
  const absl::Status status;
  // What ErrorMessage returns: a NUL-terminated copy (absl's message is a
  // string_view), made once so that every pointer handed out stays valid
  // while the error lives and concurrent readers need no lock.
  const std::string message;
};

// What INFERD_ModelSpec::server points to: the door through which a backend
// reaches other models (ABI 1.3). Owned by the model loader, shared by every
// model it loads; outlives them.
struct INFERD_Server {
  inferd::core::InferenceSubmitter* submitter = nullptr;
};

// A request a backend builds for another model; becomes the InferRequest.
// Its inputs' Buffer owners run the backend's release functions, so
// whatever frees the InferRequest (InferRequestDelete, the server once done
// with it) releases them exactly once.
struct INFERD_InferRequest {
  INFERD_Server* server = nullptr;
  std::unique_ptr<inferd::core::InferRequest> request;
  uint64_t timeout_us = 0;  // InferRequestSetTimeout; applied when sent
};

struct INFERD_InferResponse {
  inferd::core::InferResponse response;
};

namespace inferd::backends {

struct SignatureTensor {
  std::string name;
  core::DataType datatype = core::DataType::kInvalid;
  core::Shape dims;  // -1 for symbolic or unknown dimensions
};

}  // namespace inferd::backends

struct INFERD_Signature {
  std::vector<inferd::backends::SignatureTensor> inputs;
  std::vector<inferd::backends::SignatureTensor> outputs;
  // SignatureSetMaxBatchSize (ABI 1.2); unset: guessed from the dims.
  std::optional<int32_t> max_batch_size;
};

namespace inferd::backends {

// The table; valid for the life of the process.
const INFERD_ServerApi* ServerApi();
// Takes ownership of `error` (may be null) and turns it into a Status.
absl::Status TakeError(INFERD_Error* error);
// A new INFERD_Error for `status` (for code that returns errors to backends).
INFERD_Error* NewError(const absl::Status& status);

}  // namespace inferd::backends
