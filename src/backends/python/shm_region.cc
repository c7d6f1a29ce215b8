// SPDX-License-Identifier: Apache-2.0
#include "shm_region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace inferd::python {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

StatusOr<int> CreateMemfd(const std::string& name, uint64_t size) {
  const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) return Status::Internal(Errno("memfd_create"));
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    Status status = Status::Internal(Errno("ftruncate of a memfd"));
    ::close(fd);
    return status;
  }
  return fd;
}

StatusOr<int> CreateDevShm(const std::string& name, uint64_t size) {
  static std::atomic<uint64_t> counter{0};
  const std::string path = "/inferd-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter.fetch_add(1)) + "-" + name;
  const int fd = ::shm_open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Internal(Errno("shm_open /dev/shm" + path));
  // Nothing else needs the name: the worker receives the descriptor.
  ::shm_unlink(path.c_str());
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    Status status = Status::Internal(Errno("ftruncate in /dev/shm"));
    ::close(fd);
    return status;
  }
  // tmpfs hands out pages lazily: without this, a small /dev/shm shows up
  // as SIGBUS on first touch instead of an error here.
  const int error = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
  if (error != 0) {
    ::close(fd);
    return Status::Internal("reserving " + std::to_string(size) +
                            " bytes in /dev/shm failed: " + std::strerror(error) +
                            " (/dev/shm is too small; the worker falls back to copying "
                            "tensors through its socket)");
  }
  return fd;
}

}  // namespace

std::optional<ShmMode> ParseShmMode(std::string_view text) {
  if (text == "auto" || text.empty()) return ShmMode::kAuto;
  if (text == "dev-shm") return ShmMode::kDevShm;
  if (text == "none") return ShmMode::kNone;
  return std::nullopt;
}

StatusOr<std::shared_ptr<ShmRegion>> ShmRegion::Create(ShmMode mode, uint64_t size,
                                                       const std::string& name_hint) {
  if (mode == ShmMode::kNone) return Status::Internal("shared memory is off for this model");
  size = AlignUp(std::max<uint64_t>(size, kRegionAlignment));
  StatusOr<int> fd = Status::Internal("no shared memory");
  const char* kind = "memfd";
  std::string memfd_error;
  if (mode == ShmMode::kAuto) {
    fd = CreateMemfd("inferd-" + name_hint, size);
    if (!fd.ok()) memfd_error = fd.status().message() + "; ";
  }
  if (!fd.ok()) {
    kind = "/dev/shm";
    fd = CreateDevShm(name_hint, size);
  }
  if (!fd.ok()) return Status::Internal(memfd_error + fd.status().message());
  void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
  if (base == MAP_FAILED) {
    Status status = Status::Internal(Errno("mmap of the shared memory region"));
    ::close(*fd);
    return status;
  }
  return std::shared_ptr<ShmRegion>(new ShmRegion(*fd, static_cast<uint8_t*>(base), size, kind));
}

ShmRegion::ShmRegion(int fd, uint8_t* base, uint64_t size, const char* kind)
    : fd_(fd), base_(base), size_(size), kind_(kind) {
  free_.emplace(0, size);
}

ShmRegion::~ShmRegion() {
  ::munmap(base_, size_);
  ::close(fd_);
}

std::optional<uint64_t> ShmRegion::Allocate(uint64_t size) {
  size = AlignUp(std::max<uint64_t>(size, 1));
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const uint64_t offset = it->first;
    const uint64_t left = it->second - size;
    free_.erase(it);
    if (left > 0) free_.emplace(offset + size, left);
    return offset;
  }
  return std::nullopt;
}

std::optional<ShmRegion::Range> ShmRegion::ReserveLargest(uint32_t share_divisor) {
  std::lock_guard<std::mutex> lock(mu_);
  auto best = free_.end();
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (best == free_.end() || it->second > best->second) best = it;
  }
  if (best == free_.end()) return std::nullopt;
  Range range{best->first, best->second};
  free_.erase(best);
  if (share_divisor > 1) {
    const uint64_t share = std::max(
        range.size / share_divisor / kRegionAlignment * kRegionAlignment, kRegionAlignment);
    if (share < range.size) {
      free_.emplace(range.offset + share, range.size - share);
      range.size = share;
    }
  }
  return range;
}

void ShmRegion::Free(uint64_t offset, uint64_t size) {
  size = AlignUp(size);
  if (size == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto next = free_.lower_bound(offset);
  // Merge with the free range just before, then with the one just after.
  if (next != free_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second == offset) {
      offset = previous->first;
      size += previous->second;
      free_.erase(previous);
    }
  }
  if (next != free_.end() && offset + size == next->first) {
    size += next->second;
    free_.erase(next);
  }
  free_.emplace(offset, size);
}

uint64_t ShmRegion::FreeBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t total = 0;
  for (const auto& [offset, size] : free_) total += size;
  return total;
}

}  // namespace inferd::python
