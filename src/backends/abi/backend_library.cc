// SPDX-License-Identifier: Apache-2.0
#include "backends/abi/backend_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "base/file_system.h"

namespace inferd::backends {
namespace {

template <typename Fn>
absl::Status Resolve(void* handle, const char* symbol, const std::string& path, Fn* out,
                     bool required = true) {
  *out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (*out == nullptr && required) {
    return absl::FailedPreconditionError(
        absl::StrCat("backend library '", path, "' does not export ", symbol));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<BackendLibrary>> BackendLibrary::Open(
    const std::string& backend_directory, const std::string& name) {
  const std::string path = base::JoinPath(base::JoinPath(backend_directory, name),
                                          absl::StrCat("libinferd_", name, ".so"));
  if (!base::FileExists(path)) {
    return absl::NotFoundError(absl::StrCat("backend '", name, "' not found: no library at '", path,
                                            "' (see --backend-directory)"));
  }
  // RTLD_LOCAL keeps each backend's dependencies (ORT, LibTorch) apart.
  // RTLD_NODELETE keeps the code mapped after dlclose: frameworks register
  // thread-local and atexit destructors that must still find it at exit.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load backend '", name, "': ", dlerror()));
  }
  std::shared_ptr<BackendLibrary> library(new BackendLibrary(name, path, handle));
  using VersionFn = decltype(&INFERD_BackendApiVersion);
  VersionFn version_fn = nullptr;
  auto status = Resolve(handle, "INFERD_BackendApiVersion", path, &version_fn);
  if (!status.ok()) return status;
  const uint32_t version = version_fn();
  if ((version >> 16) != INFERD_BACKEND_API_VERSION_MAJOR) {
    return absl::FailedPreconditionError(
        absl::StrCat("backend '", name, "' was built for backend ABI ", version >> 16, ".",
                     version & 0xffff, "; this server speaks ", INFERD_BACKEND_API_VERSION_MAJOR,
                     ".", INFERD_BACKEND_API_VERSION_MINOR));
  }
  status = library->ResolveSymbols();
  if (!status.ok()) return status;
  return library;
}

absl::Status BackendLibrary::ResolveSymbols() {
  auto status =
      Resolve(handle_, "INFERD_BackendDescribeModel", path_, &describe_, /*required=*/false);
  if (status.ok()) status = Resolve(handle_, "INFERD_BackendModelCreate", path_, &model_create_);
  if (status.ok()) status = Resolve(handle_, "INFERD_BackendModelDelete", path_, &model_delete_);
  if (status.ok())
    status = Resolve(handle_, "INFERD_BackendInstanceCreate", path_, &instance_create_);
  if (status.ok())
    status = Resolve(handle_, "INFERD_BackendInstanceDelete", path_, &instance_delete_);
  if (status.ok()) status = Resolve(handle_, "INFERD_BackendInstanceExecute", path_, &execute_);
  return status;
}

BackendLibrary::~BackendLibrary() { dlclose(handle_); }

}  // namespace inferd::backends
