// SPDX-License-Identifier: Apache-2.0
// The system shared-memory regions clients registered (Triton's
// system_shared_memory extension, docs/api.md "Shared memory"): a name maps
// to a window [offset, offset + byte_size) of a POSIX shared-memory object.
// Both frontends use the one registry the Server owns. Thread-safe.
//
// Security (what Triton's CVEs taught):
// - a key names a POSIX shared-memory object, never a path: one optional
//   leading '/', then 1-255 bytes without '/' or NUL, not "." or "..", and
//   not the reserved prefixes of Triton's and inferd's own backend regions;
//   shm_open (O_NOFOLLOW, no O_CREAT) opens it, so nothing outside
//   /dev/shm is reachable and nothing is created;
// - the window is checked against the object's real size (fstat) when it is
//   registered and again at every use, because the client may shrink the
//   object later (reading a truncated page would raise SIGBUS);
// - access: the window is mapped PROT_READ when registered (what inputs
//   read); the first output written into a region maps it a second time
//   PROT_READ|PROT_WRITE, and only if the object could be opened O_RDWR;
// - a region in use (a request holds a lease on it) is not unmapped by
//   Unregister: as Triton does, it stays listed and usable until its last
//   lease ends, and is removed then;
// - a client that shrinks its object while a request reads or writes it
//   cannot crash the server: the mappings are guarded (sigbus_guard.h); the
//   access sees zeros, an output written then fails, and the region is
//   refused from then on;
// - at most `max_regions` regions (each keeps a descriptor open).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "server/sigbus_guard.h"

namespace inferd {

struct SharedMemoryRegionStatus {
  std::string name;
  std::string key;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

// Where a tensor lives in a region: the request parameters
// shared_memory_region, shared_memory_offset, shared_memory_byte_size.
struct SharedMemoryRef {
  std::string region;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

// A writable window of a region. `owner` is the lease that keeps the region
// registered and mapped while the caller writes.
struct WritableSharedMemory {
  char* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> owner;
  // Tells whether the client shrank the object under a write (see
  // sigbus_guard.h); null when the mapping is not guarded.
  const SigbusGuard* guard = nullptr;
};

// The prefix of Triton's Python-backend regions, which Triton refuses as a
// key; inferd refuses it too, and its own backend's ("inferd-").
inline constexpr std::string_view kTritonReservedShmPrefix = "triton_python_backend_shm_region_";
inline constexpr std::string_view kInferdReservedShmPrefix = "inferd-";

// OK when `key` names a POSIX shared-memory object (see above);
// InvalidArgument naming the rule otherwise.
absl::Status ValidateSharedMemoryKey(std::string_view region, std::string_view key);

class SharedMemoryRegistry {
 public:
  struct Options {
    size_t max_regions = 1024;
  };
  SharedMemoryRegistry() : SharedMemoryRegistry(Options{}) {}
  explicit SharedMemoryRegistry(Options options);
  ~SharedMemoryRegistry();
  SharedMemoryRegistry(const SharedMemoryRegistry&) = delete;
  SharedMemoryRegistry& operator=(const SharedMemoryRegistry&) = delete;

  // Triton's errors: InvalidArgument for an empty name, a bad or reserved
  // key, a window outside the object ("failed to register shared memory
  // region 'N': invalid args ..."); AlreadyExists ("shared memory region 'N'
  // already in manager"); Internal when the object cannot be opened
  // ("Unable to open shared memory region: 'K'"); ResourceExhausted past
  // max_regions.
  absl::Status Register(std::string_view name, std::string_view key, uint64_t offset,
                        uint64_t byte_size);
  // OK for an unknown name (as Triton). A region in use is removed when its
  // last lease ends.
  void Unregister(std::string_view name);
  void UnregisterAll();
  // Every region (sorted by name) when `name` is empty; else that one, or
  // NotFound "Unable to find system shared memory region: 'N'".
  absl::StatusOr<std::vector<SharedMemoryRegionStatus>> Status(std::string_view name) const;

  // A read-only view of `ref` whose owner is a lease on the region (it stays
  // mapped while the Buffer lives). NotFound "Unable to find shared memory
  // region: 'N'"; InvalidArgument "Invalid offset for shared memory region:
  // 'N'", "Integer overflow detected: ...", "Invalid offset + byte size for
  // shared memory region: 'N'", or when the object shrank below the window.
  absl::StatusOr<core::Buffer> Read(const SharedMemoryRef& ref) const;
  // The same window for writing (outputs). Also InvalidArgument when the
  // object could only be opened read-only.
  absl::StatusOr<WritableSharedMemory> Write(const SharedMemoryRef& ref) const;

  // Regions registered and not yet removed (including those awaiting their
  // last lease), and the leases held now: for tests and metrics.
  size_t RegionCount() const;
  size_t LeaseCount() const;

  struct State;
  struct Region;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace inferd
