// SPDX-License-Identifier: Apache-2.0
#include "server/shared_memory_tensors.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "core/bytes_encoding.h"
#include "core/shape.h"

namespace inferd {
namespace {

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace

absl::Status AttachSharedMemoryInput(const SharedMemoryRegistry& registry,
                                     const SharedMemoryRef& ref, std::string_view model,
                                     core::Tensor& tensor) {
  INFERD_ASSIGN_OR_RETURN(const int64_t count, core::ElementCount(tensor.shape));
  if (tensor.datatype != core::DataType::kBytes) {
    INFERD_ASSIGN_OR_RETURN(const size_t expected,
                            core::FixedByteSize(tensor.datatype, tensor.shape));
    if (expected != ref.byte_size) {
      return absl::InvalidArgumentError(
          absl::StrCat("input byte size mismatch for input '", tensor.name, "' for model '",
                       Sv(model), "'. Expected ", expected, ", got ", ref.byte_size));
    }
  }
  INFERD_ASSIGN_OR_RETURN(tensor.data, registry.Read(ref));
  if (tensor.datatype == core::DataType::kBytes) {
    auto elements = core::CountBytesElements(tensor.data.view());
    if (!elements.ok() || *elements != count) {
      const std::string found = elements.ok() ? absl::StrCat(*elements, " BYTES elements")
                                              : std::string(elements.status().message());
      tensor.data = {};
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", tensor.name, "' for model '", Sv(model), "': the ", ref.byte_size,
          " bytes of shared memory region '", ref.region, "' hold ", found, " but its shape ",
          core::ShapeToString(tensor.shape), " needs ", count, " length-prefixed elements"));
    }
  }
  return absl::OkStatus();
}

absl::Status ReserveSharedMemoryOutput(const SharedMemoryRegistry& registry, std::string name,
                                       SharedMemoryRef ref, SharedMemoryOutputs& outputs) {
  INFERD_ASSIGN_OR_RETURN(WritableSharedMemory window, registry.Write(ref));
  outputs.insert_or_assign(std::move(name), SharedMemoryOutput{std::move(ref), std::move(window)});
  return absl::OkStatus();
}

absl::Status WriteSharedMemoryOutput(const core::Tensor& output, const SharedMemoryOutput& target) {
  if (output.data.size > target.window.size) {
    return absl::InternalError(
        absl::StrCat("shared memory size specified with the request for output '", output.name,
                     "' (", target.window.size, " bytes) should be at least ", output.data.size,
                     " bytes to hold the results"));
  }
  if (output.data.size > 0) std::memcpy(target.window.data, output.data.data, output.data.size);
  if (target.window.guard != nullptr && target.window.guard->faulted()) {
    return absl::InvalidArgumentError(
        absl::StrCat("output '", output.name, "' could not be written into shared memory region '",
                     target.ref.region, "': its object shrank while the request was using it"));
  }
  return absl::OkStatus();
}

}  // namespace inferd
