// SPDX-License-Identifier: Apache-2.0
#include "backends/abi/server_api.h"

#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "backends/abi/backend_request.h"
#include "base/clock.h"
#include "core/bytes_encoding.h"
#include "core/status_mapping.h"

namespace inferd::backends {
namespace {

INFERD_Error* ErrorNew(INFERD_ErrorCode code, const char* message) {
  return new INFERD_Error(core::StatusFromBackendError(code, message == nullptr ? "" : message));
}

void AddTensor(std::vector<SignatureTensor>& into, const char* name, INFERD_DataType datatype,
               const int64_t* dims, size_t dims_count) {
  into.push_back(SignatureTensor{name == nullptr ? "" : name, static_cast<core::DataType>(datatype),
                                 core::Shape(dims, dims + dims_count)});
}

void SignatureAddInput(INFERD_Signature* signature, const char* name, INFERD_DataType datatype,
                       const int64_t* dims, size_t dims_count) {
  AddTensor(signature->inputs, name, datatype, dims, dims_count);
}

void SignatureAddOutput(INFERD_Signature* signature, const char* name, INFERD_DataType datatype,
                        const int64_t* dims, size_t dims_count) {
  AddTensor(signature->outputs, name, datatype, dims, dims_count);
}

void SignatureSetMaxBatchSize(INFERD_Signature* signature, int32_t max_batch_size) {
  signature->max_batch_size = max_batch_size < 0 ? 0 : max_batch_size;
}

size_t RequestInputCount(const INFERD_Request* request) { return request->request().inputs.size(); }

void RequestInput(const INFERD_Request* request, size_t index, const char** name,
                  INFERD_DataType* datatype, const int64_t** shape, size_t* shape_count,
                  const void** data, size_t* byte_size) {
  const auto& tensor = request->request().inputs.at(index);
  *name = tensor.name.c_str();
  *datatype = static_cast<INFERD_DataType>(tensor.datatype);
  *shape = tensor.shape.data();
  *shape_count = tensor.shape.size();
  *data = tensor.data.data;
  *byte_size = tensor.data.size;
}

size_t RequestOutputCount(const INFERD_Request* request) { return request->output_names().size(); }

const char* RequestOutputName(const INFERD_Request* request, size_t index) {
  return request->output_names().at(index).c_str();
}

INFERD_Error* ResponseAddOutput(INFERD_Request* request, const char* name, INFERD_DataType datatype,
                                const int64_t* shape, size_t shape_count, const void* data,
                                size_t byte_size, INFERD_ReleaseFn release, void* release_context) {
  // Own the backend's memory first, so it is released on every path.
  std::shared_ptr<const void> owner(data, [release, release_context](const void*) {
    if (release != nullptr) release(release_context);
  });
  core::Buffer buffer{static_cast<const char*>(data), byte_size, std::move(owner)};
  auto status = request->AddOutput(name == nullptr ? "" : name, datatype, shape, shape_count,
                                   std::move(buffer));
  return status.ok() ? nullptr : NewError(status);
}

void RequestComplete(INFERD_Request* request, INFERD_Error* error) {
  std::unique_ptr<INFERD_Request> owned(request);  // the backend hands it back here
  absl::Status status = TakeError(error);
  // A backend that stopped because the client went away (RequestIsCancelled)
  // counts as a cancellation in the metrics, not as a backend failure.
  const core::FailureReason reason =
      absl::IsCancelled(status) ? core::FailureReason::kCanceled : core::FailureReason::kBackend;
  owned->Complete(std::move(status), reason);
}

uint64_t NowNanoseconds() { return static_cast<uint64_t>(base::Clock::Real().NowNanos()); }

void RequestReportComputeTimes(INFERD_Request* request, uint64_t compute_start_ns,
                               uint64_t compute_end_ns) {
  request->SetComputeTimes(static_cast<int64_t>(compute_start_ns),
                           static_cast<int64_t>(compute_end_ns));
}

INFERD_ErrorCode ErrorCodeOf(const INFERD_Error* error) {
  return error == nullptr ? INFERD_ERROR_UNKNOWN : core::BackendErrorCode(error->status.code());
}

const char* ErrorMessageOf(const INFERD_Error* error) {
  return error == nullptr ? "" : error->message.c_str();
}

void ErrorDelete(INFERD_Error* error) { delete error; }

INFERD_InferRequest* InferRequestNew(INFERD_Server* server, const char* model_name,
                                     int64_t model_version) {
  auto* request = new INFERD_InferRequest;
  request->server = server;
  request->request = std::make_unique<core::InferRequest>();
  request->request->model_name = model_name == nullptr ? "" : model_name;
  // Empty: the server picks the newest ready version, as for a client.
  if (model_version > 0) request->request->model_version = std::to_string(model_version);
  return request;
}

// What can be told without the target's config: the bytes agree with the
// datatype and shape. Saves the backend a round trip for its own mistakes.
absl::Status CheckInputBytes(const core::Tensor& tensor) {
  if (!core::IsValidDataType(static_cast<int32_t>(tensor.datatype))) {
    return absl::InvalidArgumentError(absl::StrCat("InferRequestAddInput: input '", tensor.name,
                                                   "' has unknown datatype ",
                                                   static_cast<int32_t>(tensor.datatype)));
  }
  const auto elements_in_shape = core::ElementCount(tensor.shape);
  if (!elements_in_shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("InferRequestAddInput: input '", tensor.name,
                                                   "': ", elements_in_shape.status().message()));
  }
  const int64_t count = *elements_in_shape;
  if (tensor.datatype == core::DataType::kBytes) {
    auto elements = core::CountBytesElements(tensor.data.view());
    if (elements.ok() && *elements == count) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "InferRequestAddInput: input '", tensor.name,
        "' is not a length-prefixed BYTES tensor of shape ", core::ShapeToString(tensor.shape)));
  }
  const size_t expected = static_cast<size_t>(count) * core::DataTypeByteSize(tensor.datatype);
  if (tensor.data.size != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("InferRequestAddInput: input '", tensor.name, "' has ", tensor.data.size,
                     " bytes; shape ", core::ShapeToString(tensor.shape), " needs ", expected));
  }
  return absl::OkStatus();
}

INFERD_Error* InferRequestAddInput(INFERD_InferRequest* request, const char* name,
                                   INFERD_DataType datatype, const int64_t* shape,
                                   size_t shape_count, const void* data, size_t byte_size,
                                   INFERD_ReleaseFn release, void* release_context) {
  // Own the release first, so that it runs exactly once on every path: on
  // an error below when `owner` goes out of scope, else when the last copy
  // of the tensor (the request's, or one a target kept) is gone.
  std::shared_ptr<const void> owner(data, [release, release_context](const void*) {
    if (release != nullptr) release(release_context);
  });
  if (shape_count > 0 && shape == nullptr) {
    return NewError(absl::InvalidArgumentError("InferRequestAddInput: shape is NULL"));
  }
  if (byte_size > 0 && data == nullptr) {
    return NewError(absl::InvalidArgumentError("InferRequestAddInput: data is NULL"));
  }
  core::Tensor tensor;
  tensor.name = name == nullptr ? "" : name;
  tensor.datatype = static_cast<core::DataType>(datatype);
  tensor.shape.assign(shape, shape + shape_count);
  tensor.data = core::Buffer{static_cast<const char*>(data), byte_size, std::move(owner)};
  if (auto status = CheckInputBytes(tensor); !status.ok()) return NewError(status);
  // Names and shapes are checked against the target's config when the
  // request is submitted, exactly as for a client's request.
  request->request->inputs.push_back(std::move(tensor));
  return nullptr;
}

void InferRequestAddRequestedOutput(INFERD_InferRequest* request, const char* name) {
  request->request->requested_outputs.emplace_back(name == nullptr ? "" : name);
}

void InferRequestSetParent(INFERD_InferRequest* request, const INFERD_Request* parent) {
  if (parent == nullptr) return;
  request->request->cancellation = parent->request().cancellation;
  request->request->deadline_nanos = parent->request().deadline_nanos;
}

void InferRequestSetTimeout(INFERD_InferRequest* request, uint64_t timeout_us) {
  request->timeout_us = timeout_us;
}

void InferRequestSetIntParameter(INFERD_InferRequest* request, const char* key, int64_t value) {
  request->request->parameters[key == nullptr ? "" : key] = value;
}

void InferRequestSetStringParameter(INFERD_InferRequest* request, const char* key,
                                    const char* value) {
  request->request->parameters[key == nullptr ? "" : key] =
      std::string(value == nullptr ? "" : value);
}

void InferRequestSetBoolParameter(INFERD_InferRequest* request, const char* key, int value) {
  request->request->parameters[key == nullptr ? "" : key] = value != 0;
}

void InferRequestDelete(INFERD_InferRequest* request) { delete request; }

// The absolute deadline `timeout_us` from `now`, or 0 (none) when it is past
// what the clock can represent: a backend passing UINT64_MAX for "forever"
// must not wrap around to a deadline in the past.
int64_t DeadlineAfter(int64_t now, uint64_t timeout_us) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (timeout_us > static_cast<uint64_t>(kMax / 1000)) return 0;
  const int64_t span = static_cast<int64_t>(timeout_us) * 1000;
  return span > kMax - now ? 0 : now + span;
}

void ServerInferAsync(INFERD_InferRequest* request, INFERD_InferCompleteFn complete,
                      void* context) {
  std::unique_ptr<INFERD_InferRequest> owned(request);
  auto finish = [complete, context](absl::StatusOr<core::InferResponse> result) {
    if (complete == nullptr) return;
    if (!result.ok()) {
      complete(context, nullptr, NewError(result.status()));
      return;
    }
    complete(context, new INFERD_InferResponse{std::move(*result)}, nullptr);
  };
  if (owned == nullptr) {
    finish(absl::InvalidArgumentError("ServerInferAsync: the request is NULL"));
    return;
  }
  if (owned->server == nullptr) {
    finish(absl::InvalidArgumentError(absl::StrCat(
        "ServerInferAsync: the request for model '", owned->request->model_name,
        "' has no server (InferRequestNew got NULL; INFERD_ModelSpec::server is NULL during "
        "INFERD_BackendDescribeModel and on servers older than ABI 1.3)")));
    return;
  }
  if (owned->server->submitter == nullptr) {
    finish(absl::UnimplementedError(absl::StrCat("ServerInferAsync: the request for model '",
                                                 owned->request->model_name,
                                                 "' cannot be sent: this server takes no "
                                                 "requests from backends")));
    return;
  }
  if (owned->timeout_us > 0) {
    const int64_t deadline = DeadlineAfter(base::Clock::Real().NowNanos(), owned->timeout_us);
    auto& current = owned->request->deadline_nanos;
    if (deadline != 0 && (current == 0 || deadline < current)) current = deadline;
  }
  owned->server->submitter->SubmitInternal(std::move(owned->request), std::move(finish));
}

size_t InferResponseOutputCount(const INFERD_InferResponse* response) {
  return response->response.outputs.size();
}

void InferResponseOutput(const INFERD_InferResponse* response, size_t index, const char** name,
                         INFERD_DataType* datatype, const int64_t** shape, size_t* shape_count,
                         const void** data, size_t* byte_size) {
  const auto& tensor = response->response.outputs.at(index);
  *name = tensor.name.c_str();
  *datatype = static_cast<INFERD_DataType>(tensor.datatype);
  *shape = tensor.shape.data();
  *shape_count = tensor.shape.size();
  *data = tensor.data.data;
  *byte_size = tensor.data.size;
}

void InferResponseDelete(INFERD_InferResponse* response) { delete response; }

INFERD_Error* RequestSendResponse(INFERD_Request* request, INFERD_Error* error, uint32_t flags) {
  auto status = request->SendResponse(TakeError(error), (flags & INFERD_RESPONSE_FLAG_FINAL) != 0);
  return status.ok() ? nullptr : NewError(status);
}

void RequestCorrelationId(const INFERD_Request* request, uint64_t* id, const char** string_id) {
  uint64_t numeric = 0;
  const char* text = nullptr;
  const auto& parameters = request->request().parameters;
  if (auto it = parameters.find("sequence_id"); it != parameters.end()) {
    if (const auto* u = std::get_if<uint64_t>(&it->second)) numeric = *u;
    if (const auto* i = std::get_if<int64_t>(&it->second); i != nullptr && *i > 0) {
      numeric = static_cast<uint64_t>(*i);
    }
    if (const auto* s = std::get_if<std::string>(&it->second)) text = s->c_str();
  }
  if (id != nullptr) *id = numeric;
  if (string_id != nullptr) *string_id = text;
}

const char* RequestParametersJson(const INFERD_Request* request) {
  // Built lazily by the one thread that holds the request (calls about a
  // request never overlap), so the cast does not race.
  return const_cast<INFERD_Request*>(request)->ParametersJson().c_str();
}

void ServerInferAsyncDecoupled(INFERD_InferRequest* request, INFERD_InferResponseFn on_response,
                               void* context) {
  if (request != nullptr && request->request != nullptr) {
    request->request->on_partial_response = [on_response,
                                             context](absl::StatusOr<core::InferResponse> r) {
      if (on_response == nullptr) return;
      if (!r.ok()) {
        on_response(context, nullptr, NewError(r.status()), 0);
      } else {
        on_response(context, new INFERD_InferResponse{std::move(*r)}, nullptr, 0);
      }
    };
  }
  struct Final {
    INFERD_InferResponseFn on_response;
    void* context;
  };
  // The final answer arrives through ServerInferAsync's completion; a
  // flags-only final is the final flag with no response.
  auto* final = new Final{on_response, context};
  ServerInferAsync(
      request,
      [](void* raw, INFERD_InferResponse* response, INFERD_Error* error) {
        std::unique_ptr<Final> final(static_cast<Final*>(raw));
        if (response != nullptr && response->response.flags_only) {
          delete response;
          response = nullptr;
        }
        if (final->on_response == nullptr) {
          delete response;
          delete error;
          return;
        }
        final->on_response(final->context, response, error, INFERD_RESPONSE_FLAG_FINAL);
      },
      final);
}

int32_t RequestIsCancelled(const INFERD_Request* request) {
  return request != nullptr && request->IsCancelled() ? 1 : 0;
}

constexpr INFERD_ServerApi kApi = {
    sizeof(INFERD_ServerApi),
    INFERD_BACKEND_API_VERSION_MAJOR,
    INFERD_BACKEND_API_VERSION_MINOR,
    &ErrorNew,
    &SignatureAddInput,
    &SignatureAddOutput,
    &RequestInputCount,
    &RequestInput,
    &RequestOutputCount,
    &RequestOutputName,
    &ResponseAddOutput,
    &RequestComplete,
    &NowNanoseconds,
    &RequestReportComputeTimes,
    &SignatureSetMaxBatchSize,
    &ErrorCodeOf,
    &ErrorMessageOf,
    &ErrorDelete,
    &InferRequestNew,
    &InferRequestAddInput,
    &InferRequestAddRequestedOutput,
    &InferRequestSetParent,
    &InferRequestSetTimeout,
    &InferRequestSetIntParameter,
    &InferRequestSetStringParameter,
    &InferRequestSetBoolParameter,
    &InferRequestDelete,
    &ServerInferAsync,
    &InferResponseOutputCount,
    &InferResponseOutput,
    &InferResponseDelete,
    &RequestSendResponse,
    &RequestCorrelationId,
    &RequestParametersJson,
    &ServerInferAsyncDecoupled,
    &RequestIsCancelled,
};

}  // namespace

const INFERD_ServerApi* ServerApi() { return &kApi; }

absl::Status TakeError(INFERD_Error* error) {
  if (error == nullptr) return absl::OkStatus();
  std::unique_ptr<INFERD_Error> owned(error);
  return owned->status.ok() ? absl::UnknownError("backend returned an error with an OK code")
                            : owned->status;
}

INFERD_Error* NewError(const absl::Status& status) { return new INFERD_Error(status); }

}  // namespace inferd::backends
