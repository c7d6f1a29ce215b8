// SPDX-License-Identifier: Apache-2.0
// The extern "C" entry points of the LibTorch backend (include/inferd/
// backend.h). No exception crosses the ABI: the functions of pt_backend.h
// catch everything themselves.
//
// There is no INFERD_BackendDescribeModel: a TorchScript file records neither
// the data types nor the shapes of its inputs and outputs, so a pytorch model
// needs a complete config.
#include <new>

#include "inferd/backend.h"
#include "pt_backend.h"

struct INFERD_BackendModel {
  inferd::pt::PtModel* impl;
};
struct INFERD_BackendInstance {
  inferd::pt::PtInstance* impl;
};

namespace {

using inferd::pt::Status;

using inferd::backend_util::ToError;

Status CheckAbi(const INFERD_ServerApi* api, const INFERD_ModelSpec* spec) {
  return inferd::backend_util::CheckAbi(api, spec, "pytorch");
}

}  // namespace

extern "C" {

INFERD_BACKEND_EXPORT uint32_t INFERD_BackendApiVersion(void) {
  return INFERD_BACKEND_API_VERSION_MAJOR << 16 | INFERD_BACKEND_API_VERSION_MINOR;
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendModelCreate(const INFERD_ServerApi* api,
                                                              const INFERD_ModelSpec* spec,
                                                              INFERD_BackendModel** model) {
  Status status = CheckAbi(api, spec);
  if (!status.ok()) return ToError(api, status);
  inferd::pt::PtModel* impl = nullptr;
  status = inferd::pt::CreateModel(*api, *spec, &impl);
  if (!status.ok()) return ToError(api, status);
  *model = new (std::nothrow) INFERD_BackendModel{impl};
  if (*model == nullptr) {
    inferd::pt::DeleteModel(impl);
    return api->ErrorNew(INFERD_ERROR_INTERNAL, "pytorch backend: out of memory");
  }
  return nullptr;
}

INFERD_BACKEND_EXPORT void INFERD_BackendModelDelete(INFERD_BackendModel* model) {
  if (model == nullptr) return;
  inferd::pt::DeleteModel(model->impl);
  delete model;
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendInstanceCreate(
    INFERD_BackendModel* model, uint32_t index, INFERD_BackendInstance** instance) {
  const INFERD_ServerApi& api = inferd::pt::ModelApi(*model->impl);
  inferd::pt::PtInstance* impl = nullptr;
  Status status = inferd::pt::CreateInstance(*model->impl, index, &impl);
  if (!status.ok()) return ToError(&api, status);
  *instance = new (std::nothrow) INFERD_BackendInstance{impl};
  if (*instance == nullptr) {
    inferd::pt::DeleteInstance(impl);
    return api.ErrorNew(INFERD_ERROR_INTERNAL, "pytorch backend: out of memory");
  }
  return nullptr;
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceDelete(INFERD_BackendInstance* instance) {
  if (instance == nullptr) return;
  inferd::pt::DeleteInstance(instance->impl);
  delete instance;
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceExecute(INFERD_BackendInstance* instance,
                                                         INFERD_Request** requests,
                                                         size_t request_count) {
  inferd::pt::Execute(*instance->impl, requests, request_count);
}

}  // extern "C"
