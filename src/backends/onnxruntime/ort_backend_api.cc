// SPDX-License-Identifier: Apache-2.0
// The extern "C" entry points of the ONNX Runtime backend (include/inferd/
// backend.h). Each body runs through CatchAll, so no exception crosses the ABI.
#include <memory>

#include "inferd/backend.h"
#include "ort_errors.h"
#include "ort_instance.h"
#include "ort_model.h"
#include "ort_signature.h"

// The opaque handles are our C++ objects wrapped LevelDB-style.
struct INFERD_BackendModel {
  std::unique_ptr<inferd::ort::OrtModel> impl;
};
struct INFERD_BackendInstance {
  std::unique_ptr<inferd::ort::OrtInstance> impl;
};

namespace {

using inferd::ort::Status;

using inferd::backend_util::ToError;

Status CheckAbi(const INFERD_ServerApi* api, const INFERD_ModelSpec* spec) {
  return inferd::backend_util::CheckAbi(api, spec, "onnxruntime");
}

}  // namespace

extern "C" {

INFERD_BACKEND_EXPORT uint32_t INFERD_BackendApiVersion(void) {
  return INFERD_BACKEND_API_VERSION_MAJOR << 16 | INFERD_BACKEND_API_VERSION_MINOR;
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendDescribeModel(const INFERD_ServerApi* api,
                                                                const INFERD_ModelSpec* spec,
                                                                INFERD_Signature* signature) {
  return ToError(api, inferd::ort::CatchAll([&] {
                   INFERD_ORT_RETURN_IF_ERROR(CheckAbi(api, spec));
                   return inferd::ort::DescribeModel(*api, *spec, signature);
                 }));
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendModelCreate(const INFERD_ServerApi* api,
                                                              const INFERD_ModelSpec* spec,
                                                              INFERD_BackendModel** model) {
  return ToError(api, inferd::ort::CatchAll([&] {
                   INFERD_ORT_RETURN_IF_ERROR(CheckAbi(api, spec));
                   auto created = inferd::ort::OrtModel::Create(*api, *spec);
                   if (!created.ok()) return created.status();
                   *model = new INFERD_BackendModel{std::move(*created)};
                   return Status();
                 }));
}

INFERD_BACKEND_EXPORT void INFERD_BackendModelDelete(INFERD_BackendModel* model) {
  (void)inferd::ort::CatchAll([&] {
    std::unique_ptr<INFERD_BackendModel> owned(model);
    return Status();
  });
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendInstanceCreate(
    INFERD_BackendModel* model, uint32_t index, INFERD_BackendInstance** instance) {
  return ToError(&model->impl->api(), inferd::ort::CatchAll([&] {
    auto created = inferd::ort::OrtInstance::Create(*model->impl, index);
    if (!created.ok()) return created.status();
    *instance = new INFERD_BackendInstance{std::move(*created)};
    return Status();
  }));
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceDelete(INFERD_BackendInstance* instance) {
  (void)inferd::ort::CatchAll([&] {
    std::unique_ptr<INFERD_BackendInstance> owned(instance);
    return Status();
  });
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceExecute(INFERD_BackendInstance* instance,
                                                         INFERD_Request** requests,
                                                         size_t request_count) {
  // OrtInstance::Execute completes every request itself and never throws.
  instance->impl->Execute(requests, request_count);
}

}  // extern "C"
