// SPDX-License-Identifier: Apache-2.0
// The shared memory region between the server and one Python worker
// (python/PROTOCOL.md "Shared memory region"): created as a memfd, or a file
// under /dev/shm when memfd is unavailable, mapped read-write by both sides.
// The server allocates inside it; blocks are freed from any thread, because a
// response output that points into the region is released on whichever
// thread sends the response.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "py_protocol.h"

namespace inferd::python {

// Where regions come from (config parameter `shared_memory`).
enum class ShmMode {
  kAuto,    // memfd, else /dev/shm, else none
  kDevShm,  // /dev/shm only (as Triton does), else none
  kNone,    // no region: every tensor travels inside the messages
};
std::optional<ShmMode> ParseShmMode(std::string_view text);

inline constexpr uint64_t kRegionAlignment = 64;

// Rounds up to kRegionAlignment.
constexpr uint64_t AlignUp(uint64_t size) {
  return (size + kRegionAlignment - 1) / kRegionAlignment * kRegionAlignment;
}

class ShmRegion : public std::enable_shared_from_this<ShmRegion> {
 public:
  // Creates and maps a region of `size` bytes. Pages are committed up front
  // for /dev/shm (posix_fallocate), so a full /dev/shm fails here with a
  // clear error instead of a SIGBUS later; a memfd is not limited by
  // /dev/shm's size at all. `kind` names which one was used.
  static StatusOr<std::shared_ptr<ShmRegion>> Create(ShmMode mode, uint64_t size,
                                                     const std::string& name_hint);
  ~ShmRegion();
  ShmRegion(const ShmRegion&) = delete;
  ShmRegion& operator=(const ShmRegion&) = delete;

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  uint8_t* base() const { return base_; }
  const char* kind() const { return kind_; }

  // First fit, `kRegionAlignment`-aligned; nullopt when no free range is
  // large enough.
  std::optional<uint64_t> Allocate(uint64_t size);
  // The largest free range, reserved whole (nullopt when none is free); with
  // `share_divisor` > 1 only the first 1/share_divisor of it (aligned, at
  // least one alignment unit), so that the rest stays for Allocate.
  struct Range {
    uint64_t offset = 0;
    uint64_t size = 0;
  };
  std::optional<Range> ReserveLargest(uint32_t share_divisor = 1);
  void Free(uint64_t offset, uint64_t size);
  uint64_t FreeBytes() const;

 private:
  ShmRegion(int fd, uint8_t* base, uint64_t size, const char* kind);

  const int fd_;
  uint8_t* const base_;
  const uint64_t size_;
  const char* const kind_;
  mutable std::mutex mu_;
  std::map<uint64_t, uint64_t> free_;  // offset → size, coalesced
};

// Part of a region, freed when its last owner lets go: the output range of
// one EXECUTE, owned by the instance while it runs, by the response outputs
// that point into it (ResponseAddOutput's release) and by the BLS inputs the
// worker placed in it (InferRequestAddInput's release), which the target
// model may still read after the EXECUTE ended.
class RegionBlock {
 public:
  RegionBlock(std::shared_ptr<ShmRegion> region, uint64_t offset, uint64_t size)
      : region_(std::move(region)), offset_(offset), size_(size) {}
  ~RegionBlock() {
    if (size_ > 0) region_->Free(offset_, size_);
  }
  uint64_t offset() const { return offset_; }
  uint64_t size() const { return size_; }
  // Frees everything past the first `size` bytes now. Only its creator
  // calls it, while it still owns the block (so no destructor can run
  // concurrently).
  void Shrink(uint64_t size) {
    size = AlignUp(size);
    if (size >= size_) return;
    region_->Free(offset_ + size, size_ - size);
    size_ = size;
  }
  // INFERD_ReleaseFn over a std::shared_ptr<RegionBlock>* context.
  static void Release(void* context) { delete static_cast<std::shared_ptr<RegionBlock>*>(context); }

 private:
  std::shared_ptr<ShmRegion> region_;
  uint64_t offset_;
  uint64_t size_;
};

}  // namespace inferd::python
