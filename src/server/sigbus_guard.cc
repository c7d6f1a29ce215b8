// SPDX-License-Identifier: Apache-2.0
#include "server/sigbus_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>

namespace inferd {

struct SigbusGuardTable {
  SigbusGuard slots[SigbusGuard::kSlots];
  std::mutex claim_mu;  // serializes claiming and freeing slots (never taken in the handler)
  struct sigaction previous {};
};

namespace {

SigbusGuardTable& Table() {
  // Never destroyed: the handler may run while static destructors do.
  static SigbusGuardTable* const table = new SigbusGuardTable;
  return *table;
}

uintptr_t PageSize() {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// Passes a SIGBUS that is not ours on to whoever handled it before us; with
// nobody, restores the default action and raises it again, which ends the
// process as it would have without the guard.
void ForwardSigbus(int signal, siginfo_t* info, void* context) {
  const struct sigaction& previous = Table().previous;
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal, info, context);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
      previous.sa_handler != nullptr) {
    previous.sa_handler(signal);
    return;
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(SIGBUS, &fallback, nullptr);
  ::raise(signal);  // delivered with the default action once the handler returns
}

// Async-signal-safe: only atomics and mmap (a plain system call on Linux).
void OnSigbus(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (SigbusGuard& slot : Table().slots) {
    if (slot.TryRecover(address)) return;
  }
  ForwardSigbus(signal, info, context);
}

void InstallHandlerOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = &OnSigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &Table().previous);
  });
}

}  // namespace

bool SigbusGuard::TryRecover(uintptr_t address) {
  const uintptr_t start = start_.load(std::memory_order_acquire);
  if (start == 0) return false;
  const size_t length = length_.load(std::memory_order_acquire);
  if (address < start || address >= start + length) return false;
  // From the faulting page to the end of the mapping: the object ends there
  // now, so every later page would fault too.
  const uintptr_t page = address & ~(PageSize() - 1);
  void* replaced = ::mmap(reinterpret_cast<void*>(page), start + length - page,
                          PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (replaced == MAP_FAILED) return false;
  faulted_.store(true, std::memory_order_release);
  return true;
}

SigbusGuard* SigbusGuard::Guard(void* base, size_t length) {
  InstallHandlerOnce();
  SigbusGuardTable& table = Table();
  std::lock_guard<std::mutex> lock(table.claim_mu);
  for (SigbusGuard& slot : table.slots) {
    if (slot.start_.load(std::memory_order_relaxed) != 0) continue;
    slot.faulted_.store(false, std::memory_order_relaxed);
    slot.length_.store(length, std::memory_order_relaxed);
    slot.start_.store(reinterpret_cast<uintptr_t>(base), std::memory_order_release);
    return &slot;
  }
  return nullptr;
}

void SigbusGuard::Release(SigbusGuard* guard) {
  if (guard == nullptr) return;
  std::lock_guard<std::mutex> lock(Table().claim_mu);
  guard->start_.store(0, std::memory_order_release);
  guard->length_.store(0, std::memory_order_relaxed);
}

}  // namespace inferd
