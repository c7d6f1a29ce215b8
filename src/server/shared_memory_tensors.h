// SPDX-License-Identifier: Apache-2.0
// Tensors in shared-memory regions, whatever protocol named them: an input
// read straight from its region (no copy: the Buffer points into the mapping
// and holds a lease on the region), an output written into its region once
// the response exists. docs/architecture.md, "Who owns tensors".
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "core/tensor.h"
#include "server/shared_memory_registry.h"

namespace inferd {

// An output the client asked to receive in a region, with the leased window.
struct SharedMemoryOutput {
  SharedMemoryRef ref;
  WritableSharedMemory window;
};
// By output name.
using SharedMemoryOutputs = std::map<std::string, SharedMemoryOutput, std::less<>>;

// Points `tensor.data` (name, datatype and shape already set) at `ref`.
// Checks the byte size against the datatype and shape with Triton's words
// ("input byte size mismatch for input 'I' for model 'M'. Expected E, got
// G"), and that a BYTES tensor holds exactly its elements (length-prefixed);
// the registry's errors otherwise.
absl::Status AttachSharedMemoryInput(const SharedMemoryRegistry& registry,
                                     const SharedMemoryRef& ref, std::string_view model,
                                     core::Tensor& tensor);

// Leases the window of `ref` for the output `name` and adds it to `outputs`.
absl::Status ReserveSharedMemoryOutput(const SharedMemoryRegistry& registry, std::string name,
                                       SharedMemoryRef ref, SharedMemoryOutputs& outputs);

// Copies `output`'s bytes into its window. Internal, with Triton's message,
// when they do not fit ("shared memory size specified with the request for
// output 'O' (N bytes) should be at least M bytes to hold the results").
absl::Status WriteSharedMemoryOutput(const core::Tensor& output, const SharedMemoryOutput& target);

}  // namespace inferd
