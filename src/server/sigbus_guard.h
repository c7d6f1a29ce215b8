// SPDX-License-Identifier: Apache-2.0
// Keeps a client's shared-memory object from crashing the server.
//
// A region is a mapping of an object the client owns. The registry checks the
// object's size at registration and at every use, but a client can still
// shrink it while a request is reading or writing: touching a page past the
// new end raises SIGBUS, which would end the process (Triton has this hole).
// The guard installs one SIGBUS handler: when the faulting address lies in a
// guarded mapping, it replaces the mapping's pages from there to its end with
// anonymous zero pages, marks the mapping faulted, and returns, so the access
// is retried and reads zeros (writes go nowhere); the registry then refuses
// the region and the request that touched it is answered with an error where
// the server can tell (outputs). Any other SIGBUS goes to the handler that was
// installed before (or the default action, which ends the process), so real
// bugs still crash loudly. The technique is the one Wayland compositors use
// for client buffers (docs/api.md, "Shared memory").
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace inferd {

// One guarded mapping. Lives in a fixed table so the signal handler can read
// it without locks or allocation.
class SigbusGuard {
 public:
  // Guards [base, base + length) (page-aligned base). Returns nullptr when the
  // table is full (the mapping then stays unguarded, as before the guard).
  // Installs the handler on first use. Thread-safe.
  static SigbusGuard* Guard(void* base, size_t length);
  // Stops guarding; call before munmap. Thread-safe; nullptr does nothing.
  static void Release(SigbusGuard* guard);
  // Number of guard slots; the registry keeps at most this many mappings guarded.
  static constexpr size_t kSlots = 4096;

  // True once a SIGBUS hit this mapping (its contents are zeros from the
  // faulting page on).
  bool faulted() const { return faulted_.load(std::memory_order_acquire); }

  // For the signal handler only: when `address` lies in this mapping, swaps
  // in zero pages and returns true. Async-signal-safe.
  bool TryRecover(uintptr_t address);

 private:
  friend struct SigbusGuardTable;
  std::atomic<uintptr_t> start_{0};  // 0: the slot is free
  std::atomic<size_t> length_{0};
  std::atomic<bool> faulted_{false};
};

}  // namespace inferd
