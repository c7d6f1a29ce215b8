// SPDX-License-Identifier: Apache-2.0
// Requests, inference and responses of the C API. A request is the backend
// ABI's INFERD_InferRequest, built with the same functions
// (backends::ServerApi(): inputs lent with a release function, parameters,
// timeout); sending it always goes through Server::InferAsync, the path of
// every client request (docs/architecture.md, "One request path").
#include <future>
#include <limits>

#include "absl/strings/cord.h"
#include "base/clock.h"
#include "capi/capi_internal.h"
#include "core/data_type.h"
#include "core/infer_request.h"

namespace {

using inferd::capi::Guarded;
using inferd::capi::RequireNonNull;
using inferd::capi::VersionString;

const INFERD_ServerApi& Api() { return *inferd::backends::ServerApi(); }

absl::Status CheckRequest(const INFERD_InferRequest* request, const char* function) {
  return RequireNonNull(request, function, "request");
}

// The absolute deadline `timeout_us` after `now`, or 0 (none) past what the
// clock can represent, so that UINT64_MAX ("forever") cannot wrap around.
int64_t DeadlineAfter(int64_t now, uint64_t timeout_us) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (timeout_us > static_cast<uint64_t>(kMax / 1000)) return 0;
  const int64_t span = static_cast<int64_t>(timeout_us) * 1000;
  return span > kMax - now ? 0 : now + span;
}

// Takes the core request out of `owned`, its timeout turned into a deadline
// from now.
std::unique_ptr<inferd::core::InferRequest> Prepare(std::unique_ptr<INFERD_InferRequest> owned) {
  auto request = std::move(owned->request);
  if (owned->timeout_us > 0) {
    request->deadline_nanos =
        DeadlineAfter(inferd::base::Clock::Real().NowNanos(), owned->timeout_us);
  }
  return request;
}

// One call of `on_response` for a result of the server.
void Deliver(INFERD_ResponseFn on_response, void* context,
             absl::StatusOr<inferd::core::InferResponse> result, uint32_t flags) {
  if (!result.ok()) {
    on_response(context, nullptr, inferd::backends::NewError(result.status()), flags);
  } else if (result->flags_only) {
    on_response(context, nullptr, nullptr, flags);  // a decoupled model's final flag alone
  } else {
    on_response(context, new INFERD_InferResponse{std::move(*result)}, nullptr, flags);
  }
}

// What INFERD_ServerInfer says for a decoupled model, in the words Triton's
// frontends use for their one-response calls.
absl::Status RewordDecoupledRefusal(absl::Status status) {
  if (!status.GetPayload(inferd::core::kDecoupledRefusalPayload)) return status;
  return absl::UnimplementedError(
      "INFERD_ServerInfer doesn't support models with decoupled transaction policy: use "
      "INFERD_ServerInferAsync, which takes every response");
}

template <typename Body>
INFERD_Error* WithResponse(const INFERD_InferResponse* response, const char* function,
                           Body&& body) {
  return Guarded(function, [&]() -> absl::Status {
    if (auto status = RequireNonNull(response, function, "response"); !status.ok()) return status;
    body(response->response);
    return absl::OkStatus();
  });
}

}  // namespace

extern "C" {

INFERD_Error* INFERD_InferRequestNew(INFERD_InferRequest** request, const char* model,
                                     int64_t version) {
  constexpr char kFunction[] = "INFERD_InferRequestNew";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = RequireNonNull(request, kFunction, "request"); !status.ok()) return status;
    if (auto status = RequireNonNull(model, kFunction, "model"); !status.ok()) return status;
    if (auto number = VersionString(kFunction, version); !number.ok()) return number.status();
    // No INFERD_Server: the backend ABI's door to SubmitInternal is not
    // used; INFERD_ServerInfer[Async] sends it.
    *request = Api().InferRequestNew(nullptr, model, version);
    return absl::OkStatus();
  });
}

void INFERD_InferRequestDelete(INFERD_InferRequest* request) { Api().InferRequestDelete(request); }

INFERD_Error* INFERD_InferRequestSetId(INFERD_InferRequest* request, const char* id) {
  return Guarded("INFERD_InferRequestSetId", [&]() -> absl::Status {
    if (auto status = CheckRequest(request, "INFERD_InferRequestSetId"); !status.ok())
      return status;
    if (auto status = RequireNonNull(id, "INFERD_InferRequestSetId", "id"); !status.ok())
      return status;
    request->request->id = id;
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_InferRequestAddInput(INFERD_InferRequest* request, const char* name,
                                          INFERD_DataType datatype, const int64_t* shape,
                                          size_t dim_count, const void* data, size_t byte_size,
                                          INFERD_ReleaseFn release, void* release_context) {
  constexpr char kFunction[] = "INFERD_InferRequestAddInput";
  absl::Status status = CheckRequest(request, kFunction);
  if (status.ok()) status = RequireNonNull(name, kFunction, "name");
  const int raw_datatype = inferd::capi::RawEnumValue(datatype);
  if (status.ok() && !inferd::core::IsValidDataType(raw_datatype)) {
    status = absl::InvalidArgumentError(
        absl::StrCat(kFunction, ": input '", name, "' has unknown datatype ", raw_datatype));
  }
  if (!status.ok()) {
    // The data was lent to this call: give it back as the contract says.
    if (release != nullptr) release(release_context);
    return inferd::backends::NewError(status);
  }
  // Owns the release from here on: it runs exactly once on every path.
  return Api().InferRequestAddInput(request, name, static_cast<INFERD_DataType>(raw_datatype),
                                    shape, dim_count, data, byte_size, release, release_context);
}

INFERD_Error* INFERD_InferRequestAddRequestedOutput(INFERD_InferRequest* request,
                                                    const char* name) {
  constexpr char kFunction[] = "INFERD_InferRequestAddRequestedOutput";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = CheckRequest(request, kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(name, kFunction, "name"); !status.ok()) return status;
    Api().InferRequestAddRequestedOutput(request, name);
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_InferRequestSetTimeout(INFERD_InferRequest* request, uint64_t timeout_us) {
  return Guarded("INFERD_InferRequestSetTimeout", [&]() -> absl::Status {
    if (auto status = CheckRequest(request, "INFERD_InferRequestSetTimeout"); !status.ok())
      return status;
    Api().InferRequestSetTimeout(request, timeout_us);
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_InferRequestSetIntParameter(INFERD_InferRequest* request, const char* key,
                                                 int64_t value) {
  constexpr char kFunction[] = "INFERD_InferRequestSetIntParameter";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = CheckRequest(request, kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(key, kFunction, "key"); !status.ok()) return status;
    Api().InferRequestSetIntParameter(request, key, value);
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_InferRequestSetStringParameter(INFERD_InferRequest* request, const char* key,
                                                    const char* value) {
  constexpr char kFunction[] = "INFERD_InferRequestSetStringParameter";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = CheckRequest(request, kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(key, kFunction, "key"); !status.ok()) return status;
    if (auto status = RequireNonNull(value, kFunction, "value"); !status.ok()) return status;
    Api().InferRequestSetStringParameter(request, key, value);
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_InferRequestSetBoolParameter(INFERD_InferRequest* request, const char* key,
                                                  int value) {
  constexpr char kFunction[] = "INFERD_InferRequestSetBoolParameter";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = CheckRequest(request, kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(key, kFunction, "key"); !status.ok()) return status;
    Api().InferRequestSetBoolParameter(request, key, value);
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerInferAsync(INFERD_EmbeddedServer* server, INFERD_InferRequest* request,
                                      INFERD_ResponseFn on_response, void* context) {
  constexpr char kFunction[] = "INFERD_ServerInferAsync";
  std::unique_ptr<INFERD_InferRequest> owned(request);  // ours from here on, on every path
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = RequireNonNull(server, kFunction, "server"); !status.ok()) return status;
    if (auto status = CheckRequest(owned.get(), kFunction); !status.ok()) return status;
    if (auto status =
            RequireNonNull(reinterpret_cast<const void*>(on_response), kFunction, "on_response");
        !status.ok()) {
      return status;
    }
    auto core_request = Prepare(std::move(owned));
    // A decoupled model's responses before its last come here; every other
    // model never calls it (core/infer_request.h).
    core_request->on_partial_response =
        [on_response, context](absl::StatusOr<inferd::core::InferResponse> partial) {
          Deliver(on_response, context, std::move(partial), 0);
        };
    server->server->InferAsync(
        std::move(core_request),
        [on_response, context](absl::StatusOr<inferd::core::InferResponse> result) {
          Deliver(on_response, context, std::move(result), INFERD_RESPONSE_FLAG_FINAL);
        });
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_ServerInfer(INFERD_EmbeddedServer* server, INFERD_InferRequest* request,
                                 INFERD_InferResponse** response) {
  constexpr char kFunction[] = "INFERD_ServerInfer";
  std::unique_ptr<INFERD_InferRequest> owned(request);
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = RequireNonNull(server, kFunction, "server"); !status.ok()) return status;
    if (auto status = CheckRequest(owned.get(), kFunction); !status.ok()) return status;
    if (auto status = RequireNonNull(response, kFunction, "response"); !status.ok()) return status;
    // Shared with the callback, which may still be unwinding on its thread
    // after get() returned here.
    auto done = std::make_shared<std::promise<absl::StatusOr<inferd::core::InferResponse>>>();
    auto result = done->get_future();
    // No on_partial_response: the server refuses a decoupled model.
    server->server->InferAsync(
        Prepare(std::move(owned)),
        [done](absl::StatusOr<inferd::core::InferResponse> r) { done->set_value(std::move(r)); });
    auto answered = result.get();
    if (!answered.ok()) return RewordDecoupledRefusal(answered.status());
    *response = new INFERD_InferResponse{std::move(*answered)};
    return absl::OkStatus();
  });
}

INFERD_Error* INFERD_InferResponseModel(const INFERD_InferResponse* response, const char** model,
                                        int64_t* version) {
  return WithResponse(response, "INFERD_InferResponseModel",
                      [&](const inferd::core::InferResponse& r) {
                        if (model != nullptr) *model = r.model_name.c_str();
                        if (version != nullptr) *version = r.model_version;
                      });
}

INFERD_Error* INFERD_InferResponseId(const INFERD_InferResponse* response, const char** id) {
  return WithResponse(response, "INFERD_InferResponseId",
                      [&](const inferd::core::InferResponse& r) {
                        if (id != nullptr) *id = r.id.c_str();
                      });
}

INFERD_Error* INFERD_InferResponseOutputCount(const INFERD_InferResponse* response, size_t* count) {
  return WithResponse(response, "INFERD_InferResponseOutputCount",
                      [&](const inferd::core::InferResponse& r) {
                        if (count != nullptr) *count = r.outputs.size();
                      });
}

INFERD_Error* INFERD_InferResponseOutput(const INFERD_InferResponse* response, size_t index,
                                         const char** name, INFERD_DataType* datatype,
                                         const int64_t** shape, size_t* dim_count,
                                         const void** data, size_t* byte_size) {
  constexpr char kFunction[] = "INFERD_InferResponseOutput";
  return Guarded(kFunction, [&]() -> absl::Status {
    if (auto status = RequireNonNull(response, kFunction, "response"); !status.ok()) return status;
    const auto& outputs = response->response.outputs;
    if (index >= outputs.size()) {
      return absl::InvalidArgumentError(absl::StrCat(kFunction, ": index ", index,
                                                     " is out of range (the response has ",
                                                     outputs.size(), " outputs)"));
    }
    const inferd::core::Tensor& tensor = outputs[index];
    if (name != nullptr) *name = tensor.name.c_str();
    if (datatype != nullptr) *datatype = static_cast<INFERD_DataType>(tensor.datatype);
    if (shape != nullptr) *shape = tensor.shape.data();
    if (dim_count != nullptr) *dim_count = tensor.shape.size();
    if (data != nullptr) *data = tensor.data.data;
    if (byte_size != nullptr) *byte_size = tensor.data.size;
    return absl::OkStatus();
  });
}

void INFERD_InferResponseDelete(INFERD_InferResponse* response) { delete response; }

}  // extern "C"
