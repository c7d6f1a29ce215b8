// SPDX-License-Identifier: Apache-2.0
// The shared-memory registry against real POSIX shared-memory objects: key
// rules, windows checked at registration and at use, truncation after
// registration, unregistering while in use, and concurrent use (TSan).
#include "server/shared_memory_registry.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/shared_memory_tensors.h"

namespace inferd {
namespace {

using ::testing::HasSubstr;

// A shared-memory object the test creates and removes, filled with bytes
// i % 251 so that every offset has a known value.
class ShmObject {
 public:
  explicit ShmObject(size_t size)
      : key_(absl::StrCat("/inferd_test_", ::getpid(), "_", counter_++)) {
    fd_ = ::shm_open(key_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    EXPECT_GE(fd_, 0);
    Resize(size);
    std::vector<char> bytes(size);
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(i % 251);
    EXPECT_EQ(::pwrite(fd_, bytes.data(), size, 0), static_cast<ssize_t>(size));
  }
  ~ShmObject() {
    ::close(fd_);
    ::shm_unlink(key_.c_str());
  }
  void Resize(size_t size) { EXPECT_EQ(::ftruncate(fd_, static_cast<off_t>(size)), 0); }
  char ByteAt(size_t offset) const {
    char c = 0;
    EXPECT_EQ(::pread(fd_, &c, 1, static_cast<off_t>(offset)), 1);
    return c;
  }
  const std::string& key() const { return key_; }

 private:
  static inline std::atomic<int> counter_{0};
  std::string key_;
  int fd_ = -1;
};

TEST(SharedMemoryKeyTest, AcceptsObjectNames) {
  for (const char* key : {"/input0_data", "input0_data", "/a", "/x.y-z_1", "/a.b"}) {
    EXPECT_TRUE(ValidateSharedMemoryKey("r", key).ok()) << key;
  }
}

TEST(SharedMemoryKeyTest, RefusesPathsAndOddNames) {
  const std::string too_long = "/" + std::string(256, 'a');
  for (std::string key :
       std::vector<std::string>{"", "/", "//x", "/dev/shm/x", "../x", "a/b", "/..", "..", "/.",
                                "/a..b", "/x\n", std::string("/a\0b", 4), too_long}) {
    const absl::Status status = ValidateSharedMemoryKey("r", key);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << key;
    EXPECT_THAT(status.message(), HasSubstr("failed to register shared memory region 'r'"));
  }
  EXPECT_TRUE(ValidateSharedMemoryKey("r", "/" + std::string(255, 'a')).ok());
}

TEST(SharedMemoryKeyTest, RefusesReservedPrefixesWithTritonsMessage) {
  const absl::Status status =
      ValidateSharedMemoryKey("my_test_shm_name", "triton_python_backend_shm_region__k");
  EXPECT_EQ(status.message(),
            "cannot register shared memory region 'my_test_shm_name' with key "
            "'triton_python_backend_shm_region__k' as the key contains the reserved prefix "
            "'triton_python_backend_shm_region_'");
  EXPECT_TRUE(absl::IsInvalidArgument(ValidateSharedMemoryKey("r", "/inferd-123-4")));
}

TEST(SharedMemoryRegistryTest, ReadsTheWindowWithoutCopying) {
  ShmObject object(10000);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("r", object.key(), 4099, 500).ok());  // not page-aligned
  auto buffer = registry.Read({"r", 10, 20});
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  ASSERT_EQ(buffer->size, 20u);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(buffer->data[i], object.ByteAt(4099 + 10 + i));
  EXPECT_EQ(registry.LeaseCount(), 1u);
  *buffer = {};
  EXPECT_EQ(registry.LeaseCount(), 0u);
}

TEST(SharedMemoryRegistryTest, WritesReachTheClientsObject) {
  ShmObject object(64);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("out", object.key(), 8, 32).ok());
  auto window = registry.Write({"out", 4, 8});
  ASSERT_TRUE(window.ok()) << window.status();
  std::memcpy(window->data, "ABCDEFGH", 8);
  EXPECT_EQ(object.ByteAt(12), 'A');
  EXPECT_EQ(object.ByteAt(19), 'H');
}

TEST(SharedMemoryRegistryTest, RegistrationWindowMustFitTheObject) {
  ShmObject object(64);
  SharedMemoryRegistry registry;
  // Triton's four edge cases, then a zero size and an overflowing one.
  for (auto [offset, size] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 65}, {1, 64}, {64, 1}, {65, 0}, {0, 0}, {1, ~uint64_t{0}}}) {
    const absl::Status status = registry.Register("r", object.key(), offset, size);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << offset << "+" << size;
    EXPECT_THAT(status.message(), HasSubstr("failed to register shared memory region 'r'"));
    EXPECT_THAT(status.message(), HasSubstr("invalid args"));
  }
  EXPECT_TRUE(registry.Register("r", object.key(), 0, 64).ok());
  EXPECT_EQ(registry.RegionCount(), 1u);
}

TEST(SharedMemoryRegistryTest, UnknownObjectAndDuplicateName) {
  ShmObject object(64);
  SharedMemoryRegistry registry;
  const absl::Status missing = registry.Register("r", "/inferd_test_no_such_object", 0, 8);
  EXPECT_TRUE(absl::IsInternal(missing));
  EXPECT_THAT(missing.message(),
              HasSubstr("Unable to open shared memory region: '/inferd_test_no_such_object'"));
  ASSERT_TRUE(registry.Register("r", object.key(), 0, 8).ok());
  const absl::Status twice = registry.Register("r", object.key(), 0, 8);
  EXPECT_TRUE(absl::IsAlreadyExists(twice));
  EXPECT_EQ(twice.message(), "shared memory region 'r' already in manager");
  EXPECT_TRUE(registry.Register("r2", object.key(), 8, 8).ok());  // same key, other name
  EXPECT_TRUE(absl::IsInvalidArgument(registry.Register("", object.key(), 0, 8)));
}

TEST(SharedMemoryRegistryTest, StatusListsRegionsByName) {
  ShmObject object(64);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("b", object.key(), 0, 8).ok());
  ASSERT_TRUE(registry.Register("a", object.key(), 16, 32).ok());
  auto all = registry.Status("");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].name, "a");
  EXPECT_EQ((*all)[0].key, object.key());
  EXPECT_EQ((*all)[0].offset, 16u);
  EXPECT_EQ((*all)[0].byte_size, 32u);
  auto one = registry.Status("b");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
  const auto unknown = registry.Status("c");
  EXPECT_TRUE(absl::IsNotFound(unknown.status()));
  EXPECT_EQ(unknown.status().message(), "Unable to find system shared memory region: 'c'");
  registry.Unregister("c");  // unknown: nothing to do, as Triton
  registry.UnregisterAll();
  EXPECT_TRUE(registry.Status("")->empty());
}

TEST(SharedMemoryRegistryTest, UseChecksTheWindowInTritonsOrder) {
  ShmObject object(64);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("r", object.key(), 0, 64).ok());
  EXPECT_EQ(registry.Read({"x", 0, 4}).status().message(),
            "Unable to find shared memory region: 'x'");
  EXPECT_TRUE(absl::IsNotFound(registry.Read({"x", 0, 4}).status()));
  EXPECT_EQ(registry.Read({"r", 64, 0}).status().message(),
            "Invalid offset for shared memory region: 'r'");
  EXPECT_EQ(registry.Read({"r", ~uint64_t{0} - 31, 64}).status().message(),
            "Invalid offset for shared memory region: 'r'");
  EXPECT_THAT(registry.Write({"r", 32, ~uint64_t{0} - 31}).status().message(),
              HasSubstr("Integer overflow detected: byte_size "));
  EXPECT_EQ(registry.Read({"r", 60, 8}).status().message(),
            "Invalid offset + byte size for shared memory region: 'r'");
  EXPECT_TRUE(registry.Read({"r", 60, 4}).ok());
  EXPECT_EQ(registry.LeaseCount(), 0u);
}

TEST(SharedMemoryRegistryTest, ObjectTruncatedAfterRegistrationIsRefusedAtUse) {
  ShmObject object(3 * 4096);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("r", object.key(), 4096, 2 * 4096).ok());
  object.Resize(4096);  // the client shrinks it: the window's pages are gone
  const auto read = registry.Read({"r", 0, 16});
  EXPECT_TRUE(absl::IsInvalidArgument(read.status()));
  EXPECT_THAT(read.status().message(), HasSubstr("is now 4096 bytes"));
  EXPECT_TRUE(absl::IsInvalidArgument(registry.Write({"r", 0, 16}).status()));
  EXPECT_EQ(registry.LeaseCount(), 0u);
  object.Resize(3 * 4096);  // grown back: usable again
  EXPECT_TRUE(registry.Read({"r", 0, 16}).ok());
}

TEST(SharedMemoryRegistryTest, UnregisterDuringUseWaitsForTheLastLease) {
  auto object = std::make_unique<ShmObject>(64);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("r", object->key(), 0, 64).ok());
  auto held = registry.Read({"r", 8, 8});
  ASSERT_TRUE(held.ok());
  const char expected = object->ByteAt(8);
  registry.Unregister("r");
  // As Triton: listed (and usable) until the requests using it end.
  EXPECT_EQ(registry.RegionCount(), 1u);
  EXPECT_TRUE(registry.Status("r").ok());
  EXPECT_TRUE(absl::IsAlreadyExists(registry.Register("r", object->key(), 0, 64)));
  auto second = registry.Read({"r", 0, 8});
  ASSERT_TRUE(second.ok());
  *second = {};
  EXPECT_EQ(registry.RegionCount(), 1u);  // the first lease still holds it
  object.reset();                         // even the client's object is gone
  EXPECT_EQ(held->data[0], expected);     // the mapping is still ours
  *held = {};
  EXPECT_EQ(registry.RegionCount(), 0u);
  EXPECT_TRUE(absl::IsNotFound(registry.Status("r").status()));
}

TEST(SharedMemoryRegistryTest, LeasesOutliveTheRegistry) {
  ShmObject object(64);
  core::Buffer buffer;
  {
    SharedMemoryRegistry registry;
    ASSERT_TRUE(registry.Register("r", object.key(), 0, 64).ok());
    buffer = *registry.Read({"r", 0, 64});
  }
  EXPECT_EQ(buffer.data[5], object.ByteAt(5));
}

TEST(SharedMemoryRegistryTest, LimitsTheNumberOfRegions) {
  ShmObject object(64);
  SharedMemoryRegistry registry(SharedMemoryRegistry::Options{2});
  ASSERT_TRUE(registry.Register("a", object.key(), 0, 8).ok());
  ASSERT_TRUE(registry.Register("b", object.key(), 0, 8).ok());
  EXPECT_TRUE(absl::IsResourceExhausted(registry.Register("c", object.key(), 0, 8)));
}

// Registering, unregistering and using the same names from several threads:
// every read sees the object's bytes, every lease ends, nothing leaks (TSan
// and ASan watch the rest).
TEST(SharedMemoryRegistryTest, ConcurrentRegisterUnregisterAndUse) {
  ShmObject object(4096);
  SharedMemoryRegistry registry;
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        const std::string name = absl::StrCat("r", (i + t) % 3);
        (void)registry.Register(name, object.key(), 0, 4096);
        if (i % 2 == 0) registry.Unregister(name);
        if (i % 50 == 0) registry.UnregisterAll();
        (void)registry.Status("");
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      while (!stop.load()) {
        for (const char* name : {"r0", "r1", "r2"}) {
          auto buffer = registry.Read({name, 100, 8});
          if (buffer.ok()) {
            EXPECT_EQ(buffer->data[0], static_cast<char>(100 % 251));
            reads.fetch_add(1);
          }
          auto window = registry.Write({name, 200, 4});
          if (window.ok()) std::memcpy(window->data, "\xc8\xc9\xca\xcb", 4);
        }
      }
    });
  }
  threads[0].join();
  threads[1].join();
  stop = true;
  threads[2].join();
  threads[3].join();
  EXPECT_EQ(registry.LeaseCount(), 0u);
  registry.UnregisterAll();
  EXPECT_EQ(registry.RegionCount(), 0u);
}

TEST(SharedMemoryTensorsTest, InputSizeMustMatchTheShape) {
  ShmObject object(64);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("in", object.key(), 0, 64).ok());
  core::Tensor tensor{"INPUT1", core::DataType::kInt32, {1, 16}, {}};
  const absl::Status mismatch = AttachSharedMemoryInput(registry, {"in", 0, 60}, "simple", tensor);
  EXPECT_EQ(mismatch.message(),
            "input byte size mismatch for input 'INPUT1' for model 'simple'. Expected 64, got 60");
  ASSERT_TRUE(AttachSharedMemoryInput(registry, {"in", 0, 64}, "simple", tensor).ok());
  EXPECT_EQ(tensor.data.size, 64u);
}

TEST(SharedMemoryTensorsTest, BytesInputsHoldTheirElements) {
  ShmObject object(64);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("in", object.key(), 0, 64).ok());
  auto window = registry.Write({"in", 0, 11});
  ASSERT_TRUE(window.ok());
  std::memcpy(window->data, "\x03\0\0\0abc\0\0\0\0", 11);  // "abc", ""
  core::Tensor two{"T", core::DataType::kBytes, {2}, {}};
  EXPECT_TRUE(AttachSharedMemoryInput(registry, {"in", 0, 11}, "m", two).ok());
  EXPECT_EQ(two.data.view().substr(4, 3), "abc");
  core::Tensor three{"T", core::DataType::kBytes, {3}, {}};
  const absl::Status status = AttachSharedMemoryInput(registry, {"in", 0, 11}, "m", three);
  EXPECT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_THAT(status.message(), HasSubstr("input 'T'"));
  EXPECT_EQ(three.data.owner, nullptr);
}

TEST(SharedMemoryTensorsTest, OutputLargerThanItsWindowIsTritonsError) {
  ShmObject object(64);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("out", object.key(), 0, 64).ok());
  SharedMemoryOutputs outputs;
  ASSERT_TRUE(ReserveSharedMemoryOutput(registry, "OUTPUT0", {"out", 0, 32}, outputs).ok());
  const std::string bytes(64, 'x');
  const core::Tensor output{"OUTPUT0", core::DataType::kInt32, {1, 16}, core::Buffer::Copy(bytes)};
  const absl::Status status = WriteSharedMemoryOutput(output, outputs.at("OUTPUT0"));
  EXPECT_TRUE(absl::IsInternal(status));
  EXPECT_EQ(status.message(),
            "shared memory size specified with the request for output 'OUTPUT0' (32 bytes) "
            "should be at least 64 bytes to hold the results");
  const core::Tensor fits{
      "OUTPUT0", core::DataType::kInt32, {1, 8}, core::Buffer::Copy(bytes.substr(0, 32))};
  EXPECT_TRUE(WriteSharedMemoryOutput(fits, outputs.at("OUTPUT0")).ok());
  EXPECT_EQ(object.ByteAt(31), 'x');
}

// A client that shrinks its object while a request reads it: the read sees
// zeros instead of the server dying of SIGBUS, and the region is refused
// from then on even after the object grows back (its pages were replaced).
TEST(SharedMemoryGuardTest, ShrinkingUnderAReadGivesZerosNotACrash) {
  ShmObject object(3 * 4096);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("r", object.key(), 0, 3 * 4096).ok());
  auto buffer = registry.Read({"r", 0, 3 * 4096});
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  EXPECT_EQ(buffer->data[4096 + 7], static_cast<char>((4096 + 7) % 251));
  object.Resize(4096);  // while "the request" still holds the buffer
  const volatile char* data = buffer->data;
  EXPECT_EQ(data[4096 + 7], 0);      // would have been SIGBUS
  EXPECT_EQ(data[2 * 4096 + 1], 0);  // and every later page
  EXPECT_EQ(data[7], 7);             // the pages before stay the client's
  buffer = absl::InternalError("released");
  object.Resize(3 * 4096);
  const auto again = registry.Read({"r", 0, 16});
  EXPECT_TRUE(absl::IsInvalidArgument(again.status()));
  EXPECT_THAT(again.status().message(), HasSubstr("shrank while a request was using it"));
  // Registering it again maps it afresh.
  registry.Unregister("r");
  ASSERT_TRUE(registry.Register("r", object.key(), 0, 3 * 4096).ok());
  EXPECT_TRUE(registry.Read({"r", 0, 16}).ok());
}

TEST(SharedMemoryGuardTest, ShrinkingUnderAnOutputWriteFailsThatOutput) {
  ShmObject object(2 * 4096);
  SharedMemoryRegistry registry;
  ASSERT_TRUE(registry.Register("out", object.key(), 0, 2 * 4096).ok());
  SharedMemoryOutputs outputs;
  ASSERT_TRUE(ReserveSharedMemoryOutput(registry, "OUTPUT0", {"out", 0, 2 * 4096}, outputs).ok());
  object.Resize(100);
  const std::string bytes(2 * 4096, 'x');
  const core::Tensor output{
      "OUTPUT0", core::DataType::kUint8, {2 * 4096}, core::Buffer::Copy(bytes)};
  const absl::Status status = WriteSharedMemoryOutput(output, outputs.at("OUTPUT0"));
  EXPECT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_THAT(status.message(), HasSubstr("its object shrank while the request was using it"));
}

// Only guarded mappings are recovered: any other SIGBUS still ends the
// process, so real bugs are not hidden.
TEST(SharedMemoryGuardDeathTest, OtherSigbusStillCrashes) {
  ShmObject object(64);
  SharedMemoryRegistry registry;  // installs the handler
  ASSERT_TRUE(registry.Register("r", object.key(), 0, 64).ok());
  EXPECT_DEATH(
      {
        const int fd = ::shm_open(object.key().c_str(), O_RDWR, 0);
        void* own = ::mmap(nullptr, 2 * 4096, PROT_READ, MAP_SHARED, fd, 0);  // past the end
        std::fprintf(stderr, "%d\n", static_cast<const volatile char*>(own)[4096 + 1]);
      },
      "");
}

}  // namespace
}  // namespace inferd
