// SPDX-License-Identifier: Apache-2.0
// The Python backend's wire codec (python/PROTOCOL.md) and its shared memory
// region allocator; the worker side is tested in tests/python and both
// together in tests/integration/test_python_backend.py.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "py_protocol.h"
#include "shm_region.h"

namespace inferd::python {
namespace {

TEST(PythonProtocolTest, HeaderRoundTrip) {
  uint8_t bytes[kHeaderSize];
  EncodeHeader(Header{123456, MessageType::kExecute}, bytes);
  EXPECT_EQ(bytes[4], 3);
  EXPECT_EQ(bytes[5] | bytes[6] | bytes[7], 0);
  const Header header = DecodeHeader(bytes);
  EXPECT_EQ(header.length, 123456u);
  EXPECT_EQ(header.type, MessageType::kExecute);
}

TEST(PythonProtocolTest, ExecuteRoundTripWithRegionAndInlineInputs) {
  const std::vector<int64_t> dims_a{2, 3};
  const std::vector<int64_t> dims_b{4};
  const std::string inline_bytes = "abcdefghijklmnop";
  ExecuteEncoder encoder(2, 4096, 8192);
  encoder.BeginRequest(2);
  WireTensor a;
  a.name = "INPUT0";
  a.datatype = INFERD_TYPE_FP32;
  a.dims = dims_a;
  a.location = Location::kRegion;
  a.byte_size = 24;
  a.offset = 128;
  encoder.AddInput(a);
  WireTensor b;
  b.name = "INPUT1";
  b.datatype = INFERD_TYPE_INT32;
  b.dims = dims_b;
  b.location = Location::kInline;
  b.byte_size = inline_bytes.size();
  b.data = reinterpret_cast<const uint8_t*>(inline_bytes.data());
  encoder.AddInput(b);
  const std::vector<std::string_view> names{"OUTPUT0", "OUTPUT1"};
  encoder.SetRequestedOutputs(names);
  encoder.BeginRequest(0);
  const std::vector<std::string_view> one{"OUTPUT1"};
  encoder.SetRequestedOutputs(one);

  StatusOr<ExecuteMessage> decoded = DecodeExecute(encoder.payload());
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->output_offset, 4096u);
  EXPECT_EQ(decoded->output_size, 8192u);
  ASSERT_EQ(decoded->requests.size(), 2u);
  const ExecuteRequest& first = decoded->requests[0];
  ASSERT_EQ(first.inputs.size(), 2u);
  EXPECT_EQ(first.inputs[0].name, "INPUT0");
  EXPECT_EQ(first.inputs[0].datatype, INFERD_TYPE_FP32);
  EXPECT_EQ(std::vector<int64_t>(first.inputs[0].dims.begin(), first.inputs[0].dims.end()), dims_a);
  EXPECT_EQ(first.inputs[0].location, Location::kRegion);
  EXPECT_EQ(first.inputs[0].offset, 128u);
  EXPECT_EQ(first.inputs[1].location, Location::kInline);
  EXPECT_EQ(
      std::string(reinterpret_cast<const char*>(first.inputs[1].data), first.inputs[1].byte_size),
      inline_bytes);
  EXPECT_EQ(first.requested_outputs, names);
  EXPECT_TRUE(decoded->requests[1].inputs.empty());
  EXPECT_EQ(decoded->requests[1].requested_outputs, one);
}

ResultEncoder SampleResult(const std::vector<int64_t>& dims, const std::string& data) {
  ResultEncoder encoder(3, 64);
  encoder.BeginOutputs(2);
  WireTensor region;
  region.name = "OUTPUT0";
  region.datatype = INFERD_TYPE_FP64;
  region.dims = dims;
  region.location = Location::kRegion;
  region.byte_size = 48;
  region.offset = 4096;
  encoder.AddOutput(region);
  WireTensor inline_output;
  inline_output.name = "OUTPUT1";
  inline_output.datatype = INFERD_TYPE_BYTES;
  inline_output.dims = dims;
  inline_output.location = Location::kInline;
  inline_output.byte_size = data.size();
  inline_output.data = reinterpret_cast<const uint8_t*>(data.data());
  encoder.AddOutput(inline_output);
  encoder.AddError(INFERD_ERROR_INVALID_ARG, "bad row 3");
  encoder.BeginOutputs(0);
  return encoder;
}

TEST(PythonProtocolTest, ResultRoundTrip) {
  const std::vector<int64_t> dims{2, 3};
  const std::string data("\x02\x00\x00\x00hi", 6);
  ResultEncoder encoder = SampleResult(dims, data);
  StatusOr<ResultMessage> decoded = DecodeResult(encoder.payload());
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->output_bytes_used, 64u);
  ASSERT_EQ(decoded->responses.size(), 3u);
  const WireResponse& ok = decoded->responses[0];
  EXPECT_FALSE(ok.has_error);
  ASSERT_EQ(ok.outputs.size(), 2u);
  EXPECT_EQ(ok.outputs[0].name, "OUTPUT0");
  EXPECT_EQ(ok.outputs[0].offset, 4096u);
  EXPECT_EQ(std::vector<int64_t>(ok.outputs[0].dims.begin(), ok.outputs[0].dims.end()), dims);
  EXPECT_EQ(std::vector<int64_t>(ok.outputs[1].dims.begin(), ok.outputs[1].dims.end()), dims);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(ok.outputs[1].data), ok.outputs[1].byte_size),
            data);
  EXPECT_TRUE(decoded->responses[1].has_error);
  EXPECT_EQ(decoded->responses[1].error_code, INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(decoded->responses[1].error_message, "bad row 3");
  EXPECT_FALSE(decoded->responses[2].has_error);
  EXPECT_TRUE(decoded->responses[2].outputs.empty());
}

// Every truncation of a valid RESULT is an error, never a crash or an
// out-of-bounds read (ASan checks the latter).
TEST(PythonProtocolTest, TruncatedResultsAreErrors) {
  const std::vector<int64_t> dims{2, 3};
  ResultEncoder encoder = SampleResult(dims, std::string("\x02\x00\x00\x00hi", 6));
  const std::vector<uint8_t>& full = encoder.payload();
  for (size_t size = 0; size < full.size(); ++size) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(size));
    EXPECT_FALSE(DecodeResult(cut).ok())
        << "accepted " << size << " of " << full.size() << " bytes";
  }
  std::vector<uint8_t> longer = full;
  longer.push_back(0);
  EXPECT_FALSE(DecodeResult(longer).ok());
}

TEST(PythonProtocolTest, HugeCountsAreRejectedBeforeAllocating) {
  ResultEncoder encoder(0xFFFFFFFFu, 0);
  StatusOr<ResultMessage> decoded = DecodeResult(encoder.payload());
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("count"), std::string::npos);
}

TEST(PythonProtocolTest, BadLocationIsAnError) {
  const std::vector<int64_t> dims{1};
  ResultEncoder encoder(1, 0);
  encoder.BeginOutputs(1);
  WireTensor tensor;
  tensor.name = "x";
  tensor.datatype = INFERD_TYPE_INT8;
  tensor.dims = dims;
  tensor.location = static_cast<Location>(7);
  tensor.byte_size = 1;
  const uint8_t byte = 0;
  tensor.data = &byte;  // the encoder writes it inline (any location but kRegion)
  encoder.AddOutput(tensor);
  StatusOr<ResultMessage> decoded = DecodeResult(encoder.payload());
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("location 7"), std::string::npos);
}

TEST(PythonProtocolTest, ErrorMessage) {
  std::vector<uint8_t> payload{static_cast<uint8_t>(INFERD_ERROR_UNAVAILABLE)};
  const std::string text = "initialize() raised ValueError: no (model.py, line 3)";
  payload.insert(payload.end(), text.begin(), text.end());
  ErrorMessage error = DecodeError(payload);
  EXPECT_EQ(error.code, INFERD_ERROR_UNAVAILABLE);
  EXPECT_EQ(error.message, text);
  EXPECT_EQ(DecodeError(std::vector<uint8_t>{200, 'x'}).code, INFERD_ERROR_UNKNOWN);
  EXPECT_FALSE(DecodeError({}).message.empty());
}

TEST(ShmRegionTest, ModesParse) {
  EXPECT_EQ(ParseShmMode("auto"), ShmMode::kAuto);
  EXPECT_EQ(ParseShmMode(""), ShmMode::kAuto);
  EXPECT_EQ(ParseShmMode("dev-shm"), ShmMode::kDevShm);
  EXPECT_EQ(ParseShmMode("none"), ShmMode::kNone);
  EXPECT_FALSE(ParseShmMode("posix").has_value());
}

TEST(ShmRegionTest, AllocatesAlignedFirstFitAndCoalesces) {
  StatusOr<std::shared_ptr<ShmRegion>> created = ShmRegion::Create(ShmMode::kAuto, 4096, "test");
  ASSERT_TRUE(created.ok()) << created.status().message();
  ShmRegion& region = **created;
  EXPECT_EQ(region.size(), 4096u);
  EXPECT_STREQ(region.kind(), "memfd");
  const auto a = region.Allocate(10);
  const auto b = region.Allocate(100);
  const auto c = region.Allocate(64);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(*a, 0u);
  EXPECT_EQ(*b, 64u);
  EXPECT_EQ(*c, 192u);
  std::memset(region.base() + *b, 0xAB, 100);  // the mapping is writable
  region.Free(*a, 10);
  EXPECT_EQ(region.Allocate(64), 0u);  // first fit reuses the hole
  region.Free(0, 64);
  region.Free(*b, 100);
  region.Free(*c, 64);
  EXPECT_EQ(region.FreeBytes(), 4096u);
  // Everything coalesced back into one range.
  const auto largest = region.ReserveLargest();
  ASSERT_TRUE(largest.has_value());
  EXPECT_EQ(largest->offset, 0u);
  EXPECT_EQ(largest->size, 4096u);
  EXPECT_FALSE(region.Allocate(1).has_value());
  EXPECT_FALSE(region.ReserveLargest().has_value());
  region.Free(largest->offset, largest->size);
  EXPECT_FALSE(region.Allocate(4097).has_value());
}

TEST(ShmRegionTest, DevShmRegionWorks) {
  StatusOr<std::shared_ptr<ShmRegion>> created = ShmRegion::Create(ShmMode::kDevShm, 8192, "test");
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_STREQ((*created)->kind(), "/dev/shm");
  std::memset((*created)->base(), 1, 8192);
}

TEST(ShmRegionTest, NoneModeHasNoRegion) {
  EXPECT_FALSE(ShmRegion::Create(ShmMode::kNone, 8192, "test").ok());
}

// Output blocks are released on the threads that send responses.
TEST(ShmRegionTest, ConcurrentFreesKeepTheFreeListConsistent) {
  StatusOr<std::shared_ptr<ShmRegion>> created =
      ShmRegion::Create(ShmMode::kAuto, 64 * 1024, "test");
  ASSERT_TRUE(created.ok());
  std::shared_ptr<ShmRegion> region = *created;
  std::vector<std::shared_ptr<RegionBlock>> blocks;
  for (int i = 0; i < 256; ++i) {
    auto offset = region->Allocate(100);
    ASSERT_TRUE(offset.has_value());
    blocks.push_back(std::make_shared<RegionBlock>(region, *offset, 100));
  }
  EXPECT_EQ(region->FreeBytes(), 64u * 1024 - 256 * 128);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    std::vector<std::shared_ptr<RegionBlock>> mine;
    for (size_t i = static_cast<size_t>(t); i < blocks.size(); i += 4) mine.push_back(blocks[i]);
    threads.emplace_back([mine = std::move(mine)]() mutable { mine.clear(); });
  }
  blocks.clear();
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(region->FreeBytes(), 64u * 1024);
  EXPECT_EQ(region->ReserveLargest()->size, 64u * 1024);
}

}  // namespace
}  // namespace inferd::python
