// SPDX-License-Identifier: Apache-2.0
// The messages of a ModelStreamInfer stream, as Triton's gRPC frontend writes
// them (docs/api.md, "Streaming"): every response carries the request's id,
// the model name and version, and the parameter triton_final_response
// (true on the request's last response); an error travels as
// error_message without ending the stream; the final flag alone (a
// decoupled model's flags-only final response) is written only when the
// request asked for it with triton_enable_empty_final_response. No I/O.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/infer_request.h"
#include "grpc_service.pb.h"
#include "server/shared_memory_tensors.h"

namespace inferd::frontends::grpc {

inline constexpr char kEnableEmptyFinalResponse[] = "triton_enable_empty_final_response";
inline constexpr char kFinalResponseParameter[] = "triton_final_response";

// What the stream remembers of a request to answer it.
struct StreamRequestInfo {
  std::string id;
  std::string model_name;
  std::string model_version;  // as the client asked (may be empty)
  bool enable_empty_final_response = false;
};

// The request fields a stream answer needs (the parameter is a bool; its
// type was checked when the request was decoded).
StreamRequestInfo StreamRequestInfoOf(const inference::ModelInferRequest& request);

// The message for one response or error of a request that the server took;
// nullopt when nothing is to be written (a flags-only final response the
// client did not ask for). `final`: it is the request's last. Outputs named
// in `shared_memory` are written into their regions (as for unary
// ModelInfer); one that does not fit makes the message an error.
std::optional<inference::ModelStreamInferResponse> EncodeStreamResult(
    const StreamRequestInfo& request, const absl::StatusOr<core::InferResponse>& result, bool final,
    const SharedMemoryOutputs& shared_memory = {});

// The answer to a request refused before it reached the server (it could
// not be decoded): error_message and the request id only, as Triton does.
inference::ModelStreamInferResponse EncodeStreamRefusal(const std::string& id,
                                                        const absl::Status& status);

}  // namespace inferd::frontends::grpc
