// SPDX-License-Identifier: Apache-2.0
#include "next_model.h"

#include <memory>
#include <new>
#include <string>
#include <utility>

namespace image_preprocess {
namespace {

// What the completion function needs, owned by the call: it depends on
// nothing of the model, which may be deleted as soon as the request is
// completed.
struct Call {
  const INFERD_ServerApi* api = nullptr;
  INFERD_Request* request = nullptr;
  std::string next_name;
  CallInfo info;
};

// The response of the next model, kept alive until the server has released
// the last of its outputs that were forwarded to the client.
class SharedResponse final : public SharedRelease {
 public:
  SharedResponse(const INFERD_ServerApi* api, INFERD_InferResponse* response)
      : api_(api), response_(response) {}

 private:
  ~SharedResponse() override { api_->InferResponseDelete(response_); }
  const INFERD_ServerApi* api_;
  INFERD_InferResponse* response_;
};

// NOT_FOUND would tell the client that the model it called does not exist.
// That model exists; the one it relies on is missing, which the client may
// retry once that model is loaded: UNAVAILABLE (HTTP 503). Other codes
// (INVALID_ARG for a tensor the next model refuses, DEADLINE_EXCEEDED,
// CANCELLED, UNAVAILABLE) mean the same to the client as to us.
INFERD_ErrorCode ClientCode(INFERD_ErrorCode code) {
  return code == INFERD_ERROR_NOT_FOUND ? INFERD_ERROR_UNAVAILABLE : code;
}

// Completes the request with the next model's error, named as such.
void FailFromNextModel(const Call& call, INFERD_Error* error) {
  const INFERD_ServerApi* api = call.api;
  const INFERD_ErrorCode code = ClientCode(api->ErrorCode(error));
  INFERD_Error* ours = nullptr;
  try {
    const std::string message = "image_preprocess model '" + call.info.model_name +
                                "': next_model '" + call.next_name +
                                "' failed: " + api->ErrorMessage(error);
    ours = api->ErrorNew(code, message.c_str());
  } catch (const std::bad_alloc&) {
    ours = api->ErrorNew(code, api->ErrorMessage(error));
  }
  api->ErrorDelete(error);  // ours replaces it (ABI 1.3 can free an error)
  api->RequestComplete(call.request, ours);
}

// Hands every output of `response` to the request, each holding one
// reference on `shared`. Returns the server's error for the first one it
// refused (an output our config declares differently), or NULL.
INFERD_Error* ForwardOutputs(const INFERD_ServerApi* api, INFERD_Request* request,
                             const INFERD_InferResponse* response, SharedRelease* shared) {
  for (size_t i = 0, n = api->InferResponseOutputCount(response); i < n; ++i) {
    const char* name = nullptr;
    INFERD_DataType datatype = INFERD_TYPE_INVALID;
    const int64_t* shape = nullptr;
    size_t shape_count = 0;
    const void* data = nullptr;
    size_t byte_size = 0;
    api->InferResponseOutput(response, i, &name, &datatype, &shape, &shape_count, &data,
                             &byte_size);
    shared->Ref();  // released by the server, maybe before ResponseAddOutput returns
    INFERD_Error* error = api->ResponseAddOutput(request, name, datatype, shape, shape_count, data,
                                                 byte_size, &SharedRelease::Unref, shared);
    if (error != nullptr) return error;
  }
  return nullptr;
}

// INFERD_InferCompleteFn: runs once, on a server thread (or on the thread
// of ServerInferAsync when the request failed at once).
void OnNextModelDone(void* context, INFERD_InferResponse* response, INFERD_Error* error) {
  const std::unique_ptr<Call> call(static_cast<Call*>(context));
  const INFERD_ServerApi* api = call->api;
  if (error != nullptr) {
    FailFromNextModel(*call, error);
    return;
  }
  auto* shared = new (std::nothrow) SharedResponse(api, response);
  if (shared == nullptr) {
    api->InferResponseDelete(response);
    api->RequestComplete(call->request,
                         api->ErrorNew(INFERD_ERROR_INTERNAL, "image_preprocess: out of memory"));
    return;
  }
  const std::unique_ptr<SharedRelease, Unref> ours(shared);  // dropped after completing
  INFERD_Error* refused = ForwardOutputs(api, call->request, response, shared);
  if (refused == nullptr && call->info.report_times) {
    api->RequestReportComputeTimes(call->request, call->info.start_ns, api->NowNanoseconds());
  }
  // On a refused output its error goes to the client as it came; the
  // outputs already added are dropped, each releasing its reference.
  api->RequestComplete(call->request, refused);
}

}  // namespace

bool CanCallModels(const INFERD_ServerApi& api, const INFERD_ModelSpec& spec) {
  // A member exists when the server's struct reaches past it (backend.h,
  // "Versioning"); the last one added in 1.3 stands for the rest.
  return api.struct_size >=
             offsetof(INFERD_ServerApi, InferResponseDelete) + sizeof(api.InferResponseDelete) &&
         spec.struct_size >= offsetof(INFERD_ModelSpec, server) + sizeof(spec.server) &&
         spec.server != nullptr;
}

bool InferNextModel(const INFERD_ServerApi* api, INFERD_Server* server, const NextModel& next,
                    INFERD_Request* request, const TensorRef& tensor,
                    const std::vector<std::string>& outputs, CallInfo info, INFERD_Error** error) {
  // Everything that can throw comes first, before the request exists.
  auto call = std::make_unique<Call>();
  call->api = api;
  call->request = request;
  call->next_name = next.name;
  call->info = std::move(info);

  INFERD_InferRequest* infer = api->InferRequestNew(server, next.name.c_str(), next.version);
  // The client's cancellation and deadline apply to this request too.
  api->InferRequestSetParent(infer, request);
  tensor.owner->Ref();  // the server's, released once it no longer reads the tensor
  *error = api->InferRequestAddInput(infer, next.input.c_str(), INFERD_TYPE_FP32,
                                     tensor.shape.data(), tensor.shape.size(), tensor.data,
                                     tensor.byte_size, &SharedRelease::Unref, tensor.owner);
  if (*error != nullptr) {
    api->InferRequestDelete(infer);
    return false;
  }
  for (const std::string& name : outputs) api->InferRequestAddRequestedOutput(infer, name.c_str());
  // From here on the completion function owns `call` and completes `request`.
  api->ServerInferAsync(infer, &OnNextModelDone, call.release());
  return true;
}

}  // namespace image_preprocess
