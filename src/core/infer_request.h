// SPDX-License-Identifier: Apache-2.0
// An inference request and its response as the server API sees them,
// independent of the protocol that carried them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "core/cancellation.h"
#include "core/tensor.h"

namespace inferd::core {

struct InferResponse;

// Takes the responses of a decoupled model (model_transaction_policy
// { decoupled: true }) before its last one, in the order the model sent
// them, one call at a time: a response, or an error that does not end the
// request (docs/architecture.md, "Decoupled responses").
using PartialResponseCallback = std::function<void(absl::StatusOr<InferResponse>)>;

// A request or tensor parameter (KServe "parameters" / gRPC InferParameter).
using Parameter = std::variant<bool, int64_t, uint64_t, double, std::string>;
using Parameters = std::map<std::string, Parameter, std::less<>>;

struct InferRequest {
  std::string model_name;
  std::string model_version;  // decimal string; empty: the server chooses
  std::string id;             // echoed in the response
  Parameters parameters;
  std::vector<Tensor> inputs;
  // Names of the outputs to return, in this order; empty: every output in
  // the order of the model configuration.
  std::vector<std::string> requested_outputs;
  // Requested outputs to answer as their top k classes (Triton's
  // classification extension, docs/api.md "Classification"): name -> k > 0.
  // The server replaces each such output with BYTES "value:index[:label]".
  std::map<std::string, int64_t, std::less<>> output_class_counts;
  // Raised by the frontend when the client gave up; null when the transport
  // cannot tell. A cancelled request still queued is never executed.
  std::shared_ptr<CancellationToken> cancellation;
  // Absolute deadline on base::Clock::Real() (e.g. the gRPC deadline); 0 =
  // none. A request still queued past it is answered DEADLINE_EXCEEDED.
  int64_t deadline_nanos = 0;
  // Set by callers that take many responses per request (a gRPC stream, a
  // Server-Sent Events stream, a decoupled BLS call). A decoupled model's
  // responses go here except the last, which goes to the InferCallback as
  // for any request, so "answered exactly once" still means one
  // InferCallback. Null: the caller takes exactly one response, and the
  // server refuses a decoupled model (Unimplemented, with the
  // kDecoupledRefusalPayload payload so a frontend can word it as Triton
  // does). Ordinary models never call it.
  PartialResponseCallback on_partial_response;
  // Set by a frontend whose thread may run a short execution itself: when
  // the model's instance is idle, nothing is queued and its executions are
  // known to be short, the scheduler runs the request on the submitting
  // thread instead of handing it to the instance thread and back
  // (docs/architecture.md, "Threading"). Never set for internal submissions
  // (ensemble steps, BLS calls), whose thread may be one a backend waits on.
  bool may_run_on_caller_thread = false;
};

// Payload key on the error that refuses a decoupled model to a caller
// without on_partial_response.
inline constexpr char kDecoupledRefusalPayload[] = "inferd.dev/decoupled_refused";

struct InferResponse {
  std::string model_name;
  int64_t model_version = 0;
  std::string id;
  // In the order of the request's requested_outputs (or the config's).
  std::vector<Tensor> outputs;
  // The last "response" of a decoupled model that sent its final flag with
  // no response (Triton's flags-only TRITONSERVER_RESPONSE_COMPLETE_FINAL):
  // no outputs. Streams forward it only when the client asked for empty
  // final responses.
  bool flags_only = false;
};

// Called exactly once per accepted request, on a server thread: keep it short
// and never block in it.
using InferCallback = std::function<void(absl::StatusOr<InferResponse>)>;

}  // namespace inferd::core
