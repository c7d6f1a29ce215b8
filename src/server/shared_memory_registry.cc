// SPDX-License-Identifier: Apache-2.0
#include "server/shared_memory_registry.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/mutex.h"

namespace inferd {
namespace {

// NAME_MAX: the longest file name /dev/shm (tmpfs) takes.
constexpr size_t kMaxKeyBytes = 255;

std::string ErrnoText(int error) { return std::strerror(error); }

// Debian's Abseil has its own string_view, which StrCat takes.
absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

absl::Status InvalidArgs(std::string_view name, std::string_view detail) {
  return absl::InvalidArgumentError(absl::StrCat("failed to register shared memory region '",
                                                 Sv(name), "': invalid args: ", Sv(detail)));
}

size_t PageSize() {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// The object's size now; -1 with errno when fstat fails.
int64_t ObjectSize(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return -1;
  return st.st_size;
}

// A mapping of [offset, offset + size) of `fd`, from the page that holds
// `offset`.
struct Mapping {
  void* base = nullptr;
  size_t length = 0;
  size_t delta = 0;  // offset - the page-aligned start
  // Turns a SIGBUS in the mapping (the client shrank its object while a
  // request used it) into zero pages and a flag instead of a crash.
  SigbusGuard* guard = nullptr;

  bool faulted() const { return guard != nullptr && guard->faulted(); }

  char* data() const { return static_cast<char*>(base) + delta; }
};

absl::StatusOr<Mapping> Map(int fd, uint64_t offset, uint64_t size, int protection) {
  Mapping mapping;
  const uint64_t aligned = offset / PageSize() * PageSize();
  mapping.delta = static_cast<size_t>(offset - aligned);
  mapping.length = mapping.delta + static_cast<size_t>(size);
  void* base =
      ::mmap(nullptr, mapping.length, protection, MAP_SHARED, fd, static_cast<off_t>(aligned));
  if (base == MAP_FAILED) return absl::InternalError(ErrnoText(errno));
  mapping.base = base;
  mapping.guard = SigbusGuard::Guard(base, mapping.length);
  return mapping;
}

}  // namespace

struct SharedMemoryRegistry::Region {
  std::string name;
  std::string key;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
  int fd = -1;
  bool fd_writable = false;
  Mapping read;  // PROT_READ, made at registration

  std::mutex write_mu;
  Mapping write;  // PROT_READ|PROT_WRITE, made by the first Write

  // Guarded by State::mu.
  int64_t leases = 0;
  bool removal_pending = false;

  ~Region() {
    SigbusGuard::Release(read.guard);
    SigbusGuard::Release(write.guard);
    if (read.base != nullptr) ::munmap(read.base, read.length);
    if (write.base != nullptr) ::munmap(write.base, write.length);
    if (fd >= 0) ::close(fd);
  }
};

struct SharedMemoryRegistry::State {
  explicit State(Options o) : options(o) {}
  const Options options;
  mutable base::Mutex mu;
  std::map<std::string, std::shared_ptr<Region>, std::less<>> regions ABSL_GUARDED_BY(mu);
  size_t leases ABSL_GUARDED_BY(mu) = 0;

  // Removes `region` from the map unless a lease still holds it; a region
  // already replaced under its name is left alone.
  void RemoveLocked(const std::shared_ptr<Region>& region) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (region->leases > 0) {
      region->removal_pending = true;
      return;
    }
    const auto it = regions.find(region->name);
    if (it != regions.end() && it->second == region) regions.erase(it);
  }

  void EndLease(const std::shared_ptr<Region>& region) {
    base::MutexLock lock(&mu);
    --region->leases;
    --leases;
    if (region->leases == 0 && region->removal_pending) RemoveLocked(region);
  }
};

absl::Status ValidateSharedMemoryKey(std::string_view region, std::string_view key) {
  std::string_view object = key;
  if (object.starts_with('/')) object.remove_prefix(1);
  const auto refuse = [&] {
    return InvalidArgs(
        region, absl::StrCat("key '", absl::CHexEscape(Sv(key)),
                             "' is not the name of a POSIX shared-memory object (one optional "
                             "leading '/', then 1 to ",
                             kMaxKeyBytes, " bytes without '/', '..', NUL or control characters)"));
  };
  if (object.empty() || object == "." || object.size() > kMaxKeyBytes ||
      object.find("..") != std::string_view::npos) {
    return refuse();
  }
  for (const char c : object) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '/' || byte < 0x20 || byte == 0x7f) return refuse();
  }
  for (const std::string_view prefix : {kTritonReservedShmPrefix, kInferdReservedShmPrefix}) {
    if (object.starts_with(prefix)) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot register shared memory region '", Sv(region), "' with key '",
                       Sv(key), "' as the key contains the reserved prefix '", Sv(prefix), "'"));
    }
  }
  return absl::OkStatus();
}

SharedMemoryRegistry::SharedMemoryRegistry(Options options)
    : state_(std::make_shared<State>(options)) {}

SharedMemoryRegistry::~SharedMemoryRegistry() {
  // Leases outlive the registry safely: they own their region and the state.
  UnregisterAll();
}

absl::Status SharedMemoryRegistry::Register(std::string_view name, std::string_view key,
                                            uint64_t offset, uint64_t byte_size) {
  if (name.empty()) {
    return absl::InvalidArgumentError(
        "'region name' is necessary to register system shared memory region");
  }
  if (absl::Status status = ValidateSharedMemoryKey(name, key); !status.ok()) return status;
  if (byte_size == 0) return InvalidArgs(name, "byte_size must be at least 1");
  if (byte_size > std::numeric_limits<uint64_t>::max() - offset) {
    return InvalidArgs(name, "offset + byte_size overflows");
  }
  base::MutexLock lock(&state_->mu);
  if (state_->regions.contains(name)) {
    return absl::AlreadyExistsError(
        absl::StrCat("shared memory region '", Sv(name), "' already in manager"));
  }
  if (state_->regions.size() >= state_->options.max_regions) {
    return absl::ResourceExhaustedError(absl::StrCat("failed to register shared memory region '",
                                                     Sv(name), "': ", state_->options.max_regions,
                                                     " regions are registered already"));
  }
  auto region = std::make_shared<Region>();
  region->name = std::string(name);
  region->key = std::string(key);
  region->offset = offset;
  region->byte_size = byte_size;
  // Read-write when the client allows it (outputs need it); a read-only
  // object still serves inputs. shm_open adds O_NOFOLLOW | O_CLOEXEC.
  region->fd = ::shm_open(region->key.c_str(), O_RDWR, 0);
  region->fd_writable = region->fd >= 0;
  if (region->fd < 0 && errno == EACCES) region->fd = ::shm_open(region->key.c_str(), O_RDONLY, 0);
  if (region->fd < 0) {
    return absl::InternalError(absl::StrCat("Unable to open shared memory region: '", Sv(key),
                                            "' (", ErrnoText(errno), ")"));
  }
  struct stat st;
  if (::fstat(region->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
    return InvalidArgs(name, absl::StrCat("'", Sv(key), "' is not a shared-memory object"));
  }
  const auto object_size = static_cast<uint64_t>(st.st_size);
  if (offset + byte_size > object_size) {
    return InvalidArgs(name,
                       absl::StrCat("offset ", offset, " + byte_size ", byte_size, " exceed the ",
                                    object_size, " bytes of '", Sv(key), "'"));
  }
  absl::StatusOr<Mapping> mapping = Map(region->fd, offset, byte_size, PROT_READ);
  if (!mapping.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("failed to register shared memory region '",
                                                   Sv(name), "': ", mapping.status().message()));
  }
  region->read = *mapping;
  state_->regions.emplace(region->name, std::move(region));
  return absl::OkStatus();
}

void SharedMemoryRegistry::Unregister(std::string_view name) {
  base::MutexLock lock(&state_->mu);
  const auto it = state_->regions.find(name);
  if (it == state_->regions.end()) return;
  const std::shared_ptr<Region> region = it->second;
  state_->RemoveLocked(region);
}

void SharedMemoryRegistry::UnregisterAll() {
  base::MutexLock lock(&state_->mu);
  std::vector<std::shared_ptr<Region>> all;
  for (const auto& [name, region] : state_->regions) all.push_back(region);
  for (const auto& region : all) state_->RemoveLocked(region);
}

absl::StatusOr<std::vector<SharedMemoryRegionStatus>> SharedMemoryRegistry::Status(
    std::string_view name) const {
  base::MutexLock lock(&state_->mu);
  std::vector<SharedMemoryRegionStatus> out;
  const auto describe = [](const Region& region) {
    return SharedMemoryRegionStatus{region.name, region.key, region.offset, region.byte_size};
  };
  if (name.empty()) {
    for (const auto& [region_name, region] : state_->regions) out.push_back(describe(*region));
    return out;
  }
  const auto it = state_->regions.find(name);
  if (it == state_->regions.end()) {
    return absl::NotFoundError(
        absl::StrCat("Unable to find system shared memory region: '", Sv(name), "'"));
  }
  out.push_back(describe(*it->second));
  return out;
}

size_t SharedMemoryRegistry::RegionCount() const {
  base::MutexLock lock(&state_->mu);
  return state_->regions.size();
}

size_t SharedMemoryRegistry::LeaseCount() const {
  base::MutexLock lock(&state_->mu);
  return state_->leases;
}

namespace {

// Triton's checks of a window against the registered region, in its order.
absl::Status CheckWindow(const SharedMemoryRef& ref, uint64_t region_size) {
  if (ref.offset >= region_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid offset for shared memory region: '", ref.region, "'"));
  }
  if (ref.byte_size > std::numeric_limits<uint64_t>::max() - ref.offset) {
    return absl::InvalidArgumentError(
        absl::StrCat("Integer overflow detected: byte_size (", ref.byte_size, ") + offset (",
                     ref.offset, ") exceeds maximum value (", std::numeric_limits<uint64_t>::max(),
                     ") for region '", ref.region, "'"));
  }
  if (ref.offset + ref.byte_size > region_size) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid offset + byte size for shared memory region: '", ref.region, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

// Takes a lease on the region `ref` names after checking the window; the
// lease's owner ends it. Also re-checks the object's size: a client may have
// shrunk it since it was registered, and touching a page past its end would
// raise SIGBUS.
static absl::StatusOr<
    std::pair<std::shared_ptr<SharedMemoryRegistry::Region>, std::shared_ptr<const void>>>
Lease(const std::shared_ptr<SharedMemoryRegistry::State>& state, const SharedMemoryRef& ref) {
  std::shared_ptr<SharedMemoryRegistry::Region> region;
  {
    base::MutexLock lock(&state->mu);
    const auto it = state->regions.find(ref.region);
    if (it == state->regions.end()) {
      return absl::NotFoundError(
          absl::StrCat("Unable to find shared memory region: '", ref.region, "'"));
    }
    region = it->second;
    if (absl::Status status = CheckWindow(ref, region->byte_size); !status.ok()) return status;
    ++region->leases;
    ++state->leases;
  }
  std::shared_ptr<const void> lease(region.get(),
                                    [state, region](const void*) { state->EndLease(region); });
  bool faulted = region->read.faulted();
  {
    std::lock_guard<std::mutex> lock(region->write_mu);
    faulted = faulted || region->write.faulted();
  }
  if (faulted) {
    return absl::InvalidArgumentError(
        absl::StrCat("shared memory region '", ref.region, "': its object '", region->key,
                     "' shrank while a request was using it; unregister it and register it again"));
  }
  const int64_t size = ObjectSize(region->fd);
  const uint64_t needed = region->offset + region->byte_size;
  if (size < 0 || static_cast<uint64_t>(size) < needed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shared memory region '", ref.region, "': its object '", region->key, "' is now ",
        size < 0 ? std::string("unreadable") : absl::StrCat(size, " bytes"),
        ", less than the registered offset + byte size (", needed,
        "); unregister it and register it again"));
  }
  return std::make_pair(std::move(region), std::move(lease));
}

absl::StatusOr<core::Buffer> SharedMemoryRegistry::Read(const SharedMemoryRef& ref) const {
  auto leased = Lease(state_, ref);
  if (!leased.ok()) return leased.status();
  const Region& region = *leased->first;
  return core::Buffer{region.read.data() + ref.offset, static_cast<size_t>(ref.byte_size),
                      std::move(leased->second)};
}

absl::StatusOr<WritableSharedMemory> SharedMemoryRegistry::Write(const SharedMemoryRef& ref) const {
  auto leased = Lease(state_, ref);
  if (!leased.ok()) return leased.status();
  Region& region = *leased->first;
  if (!region.fd_writable) {
    return absl::InvalidArgumentError(
        absl::StrCat("shared memory region '", ref.region, "' cannot hold outputs: its object '",
                     region.key, "' could be opened only for reading"));
  }
  char* base = nullptr;
  {
    std::lock_guard<std::mutex> lock(region.write_mu);
    if (region.write.base == nullptr) {
      absl::StatusOr<Mapping> mapping =
          Map(region.fd, region.offset, region.byte_size, PROT_READ | PROT_WRITE);
      if (!mapping.ok()) {
        return absl::InternalError(absl::StrCat("cannot map shared memory region '", ref.region,
                                                "' for writing: ", mapping.status().message()));
      }
      region.write = *mapping;
    }
    base = region.write.data();
  }
  return WritableSharedMemory{base + ref.offset, static_cast<size_t>(ref.byte_size),
                              std::move(leased->second), region.write.guard};
}

}  // namespace inferd
