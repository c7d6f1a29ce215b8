// SPDX-License-Identifier: Apache-2.0
// The extern "C" entry points of the Python backend (include/inferd/
// backend.h). A model is model.py (Triton's TritonPythonModel interface);
// each instance is a separate Python process (py_instance.h), so nothing a
// model does can crash the server.
#include <new>

#include "inferd/backend.h"
#include "py_describe.h"
#include "py_instance.h"
#include "py_model.h"

struct INFERD_BackendModel {
  std::unique_ptr<inferd::python::PyModel> impl;
};
struct INFERD_BackendInstance {
  std::unique_ptr<inferd::python::PyInstance> impl;
};

namespace {

using inferd::python::Status;

using inferd::backend_util::ToError;

Status CheckAbi(const INFERD_ServerApi* api, const INFERD_ModelSpec* spec) {
  return inferd::backend_util::CheckAbi(api, spec, "python");
}

template <typename F>
INFERD_Error* Guarded(const INFERD_ServerApi* api, F&& body) noexcept {
  try {
    return ToError(api, body());
  } catch (const std::exception& e) {
    return api->ErrorNew(INFERD_ERROR_INTERNAL,
                         (std::string("python backend: ") + e.what()).c_str());
  } catch (...) {
    return api->ErrorNew(INFERD_ERROR_INTERNAL, "python backend: unknown exception");
  }
}

}  // namespace

extern "C" {

INFERD_BACKEND_EXPORT uint32_t INFERD_BackendApiVersion(void) {
  return INFERD_BACKEND_API_VERSION_MAJOR << 16 | INFERD_BACKEND_API_VERSION_MINOR;
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendDescribeModel(const INFERD_ServerApi* api,
                                                                const INFERD_ModelSpec* spec,
                                                                INFERD_Signature* signature) {
  return Guarded(api, [&]() -> Status {
    Status status = CheckAbi(api, spec);
    if (!status.ok()) return status;
    return inferd::python::DescribePythonModel(*api, *spec, signature);
  });
}

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendModelCreate(const INFERD_ServerApi* api,
                                                              const INFERD_ModelSpec* spec,
                                                              INFERD_BackendModel** model) {
  return Guarded(api, [&]() -> Status {
    Status status = CheckAbi(api, spec);
    if (!status.ok()) return status;
    auto created = inferd::python::CreatePyModel(*api, *spec);
    if (!created.ok()) return created.status();
    *model = new INFERD_BackendModel{std::move(*created)};
    return Status();
  });
}

INFERD_BACKEND_EXPORT void INFERD_BackendModelDelete(INFERD_BackendModel* model) { delete model; }

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendInstanceCreate(
    INFERD_BackendModel* model, uint32_t index, INFERD_BackendInstance** instance) {
  const INFERD_ServerApi* api = model->impl->api;
  return Guarded(api, [&]() -> Status {
    auto impl = std::make_unique<inferd::python::PyInstance>(*model->impl, index);
    Status status = impl->Start();
    if (!status.ok()) return status;
    *instance = new INFERD_BackendInstance{std::move(impl)};
    return Status();
  });
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceDelete(INFERD_BackendInstance* instance) {
  try {
    delete instance;
  } catch (...) {
  }
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceExecute(INFERD_BackendInstance* instance,
                                                         INFERD_Request** requests,
                                                         size_t request_count) {
  instance->impl->Execute(requests, request_count);
}

}  // extern "C"
