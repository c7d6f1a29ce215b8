// SPDX-License-Identifier: Apache-2.0
// A backend shared library opened with dlopen: its exported INFERD_Backend*
// functions and the check that it was built for our ABI major version.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "inferd/backend.h"

namespace inferd::backends {

class BackendLibrary {
 public:
  using DescribeFn = decltype(&INFERD_BackendDescribeModel);
  using ModelCreateFn = decltype(&INFERD_BackendModelCreate);
  using ModelDeleteFn = decltype(&INFERD_BackendModelDelete);
  using InstanceCreateFn = decltype(&INFERD_BackendInstanceCreate);
  using InstanceDeleteFn = decltype(&INFERD_BackendInstanceDelete);
  using ExecuteFn = decltype(&INFERD_BackendInstanceExecute);

  // Opens <backend_directory>/<name>/libinferd_<name>.so. NotFound when the
  // file is missing; FailedPrecondition for a wrong ABI version or symbol.
  static absl::StatusOr<std::shared_ptr<BackendLibrary>> Open(const std::string& backend_directory,
                                                              const std::string& name);
  ~BackendLibrary();
  BackendLibrary(const BackendLibrary&) = delete;
  BackendLibrary& operator=(const BackendLibrary&) = delete;

  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  DescribeFn describe() const { return describe_; }  // may be null
  ModelCreateFn model_create() const { return model_create_; }
  ModelDeleteFn model_delete() const { return model_delete_; }
  InstanceCreateFn instance_create() const { return instance_create_; }
  InstanceDeleteFn instance_delete() const { return instance_delete_; }
  ExecuteFn execute() const { return execute_; }

 private:
  BackendLibrary(std::string name, std::string path, void* handle)
      : name_(std::move(name)), path_(std::move(path)), handle_(handle) {}
  absl::Status ResolveSymbols();

  const std::string name_;
  const std::string path_;
  void* const handle_;
  DescribeFn describe_ = nullptr;
  ModelCreateFn model_create_ = nullptr;
  ModelDeleteFn model_delete_ = nullptr;
  InstanceCreateFn instance_create_ = nullptr;
  InstanceDeleteFn instance_delete_ = nullptr;
  ExecuteFn execute_ = nullptr;
};

}  // namespace inferd::backends
