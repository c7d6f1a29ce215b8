// SPDX-License-Identifier: Apache-2.0
// How code below the server submits inference to another model: ensemble
// steps (scheduling), BLS calls from backends (the backend ABI) and, later,
// the C API. The server implements it with the same path its frontends use
// (resolve, validate, the target model's own scheduler), so every request,
// wherever it comes from, is scheduled, batched, counted and cancelled the
// same way. Injected downwards so that no layer reaches up to the server
// (docs/architecture.md, "One request path").
#pragma once

#include <memory>

#include "core/infer_request.h"

namespace inferd::core {

// On an error from SubmitInternal that happened once the model's version was
// chosen, the status carries that version (decimal) as a payload under this
// key, so that an ensemble can name the version of a failing step.
inline constexpr char kModelVersionPayload[] = "inferd.dev/model_version";

class InferenceSubmitter {
 public:
  virtual ~InferenceSubmitter() = default;
  // Runs `request` on its model; `on_complete` is called exactly once, on
  // any thread, possibly before this returns. The request is part of one
  // the server has already accepted (an ensemble's, a backend's), so it is
  // accepted during a shutdown drain too; it fails only when its model is
  // unknown or not ready, or the request is invalid.
  virtual void SubmitInternal(std::unique_ptr<InferRequest> request, InferCallback on_complete) = 0;
};

}  // namespace inferd::core
