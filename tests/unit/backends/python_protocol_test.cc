// SPDX-License-Identifier: Apache-2.0
// The Python backend's wire codec (python/PROTOCOL.md), its shared memory
// region allocator and the server's end of the worker socket; the worker side is tested in
// tests/python and both together in tests/integration/test_python_backend.py.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "py_protocol.h"
#include "shm_region.h"
#include "worker_channel.h"

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
  encoder.BeginRequest(41, 2);
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
  encoder.SetContext(R"({"k":1})", WireCorrelationId{7, {}});
  encoder.BeginRequest(42, 0);
  const std::vector<std::string_view> one{"OUTPUT1"};
  encoder.SetRequestedOutputs(one);
  encoder.SetContext("{}", WireCorrelationId{0, "session-9"});

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
  EXPECT_EQ(first.request_id, 41u);
  EXPECT_EQ(first.parameters_json, R"({"k":1})");
  EXPECT_EQ(first.correlation_id.numeric, 7u);
  EXPECT_TRUE(first.correlation_id.text.empty());
  EXPECT_TRUE(decoded->requests[1].inputs.empty());
  EXPECT_EQ(decoded->requests[1].requested_outputs, one);
  EXPECT_EQ(decoded->requests[1].request_id, 42u);
  EXPECT_EQ(decoded->requests[1].correlation_id.text, "session-9");
  for (size_t cut = 0; cut < encoder.payload().size(); ++cut) {
    EXPECT_FALSE(DecodeExecute(std::span<const uint8_t>(encoder.payload().data(), cut)).ok())
        << cut;
  }
}

TEST(PythonProtocolTest, ResultMarksRequestsLeftToTheirSenders) {
  ResultEncoder encoder(3, 0);
  encoder.AddPending();
  encoder.AddError(INFERD_ERROR_INVALID_ARG, "bad");
  encoder.AddPending();
  StatusOr<ResultMessage> decoded = DecodeResult(encoder.payload());
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  ASSERT_EQ(decoded->responses.size(), 3u);
  EXPECT_TRUE(decoded->responses[0].pending);
  EXPECT_FALSE(decoded->responses[1].pending);
  EXPECT_TRUE(decoded->responses[1].has_error);
  EXPECT_TRUE(decoded->responses[2].pending);
}

TEST(PythonProtocolTest, ResponseRoundTripsEveryKindAndRejectsBadOnes) {
  const std::vector<int64_t> dims{3};
  const std::string data = "abc";
  ResponseMessage outputs;
  outputs.request_id = 9;
  outputs.pool_block = 4096;
  WireTensor in_pool;
  in_pool.name = "OUT";
  in_pool.datatype = INFERD_TYPE_UINT8;
  in_pool.dims = dims;
  in_pool.location = Location::kRegion;
  in_pool.byte_size = 3;
  in_pool.offset = 4096 + 64;
  WireTensor inline_tensor = in_pool;
  inline_tensor.name = "RAW";
  inline_tensor.location = Location::kInline;
  inline_tensor.data = reinterpret_cast<const uint8_t*>(data.data());
  outputs.response.outputs = {in_pool, inline_tensor};
  std::vector<uint8_t> encoded = EncodeResponse(outputs);
  StatusOr<ResponseMessage> decoded = DecodeResponse(encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->request_id, 9u);
  EXPECT_FALSE(decoded->final);
  EXPECT_TRUE(decoded->has_response);
  EXPECT_EQ(decoded->pool_block, 4096u);
  ASSERT_EQ(decoded->response.outputs.size(), 2u);
  EXPECT_EQ(decoded->response.outputs[0].offset, 4096u + 64);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(decoded->response.outputs[1].data), 3), data);
  EXPECT_EQ(std::vector<int64_t>(decoded->response.outputs[1].dims.begin(),
                                 decoded->response.outputs[1].dims.end()),
            dims);
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    EXPECT_FALSE(DecodeResponse(std::span<const uint8_t>(encoded.data(), cut)).ok()) << cut;
  }

  ResponseMessage error;
  error.request_id = 10;
  error.final = true;
  error.pool_block = kNoPoolBlock;
  error.response.has_error = true;
  error.response.error_code = INFERD_ERROR_INVALID_ARG;
  error.response.error_message = "no";
  // Decoded messages point into their bytes: keep the bytes alive.
  const std::vector<uint8_t> error_bytes = EncodeResponse(error);
  decoded = DecodeResponse(error_bytes);
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(decoded->final);
  EXPECT_TRUE(decoded->response.has_error);
  EXPECT_EQ(decoded->response.error_message, "no");

  ResponseMessage none;
  none.request_id = 11;
  none.final = true;
  none.has_response = false;
  none.pool_block = kNoPoolBlock;
  const std::vector<uint8_t> none_bytes = EncodeResponse(none);
  decoded = DecodeResponse(none_bytes);
  ASSERT_TRUE(decoded.ok());
  EXPECT_FALSE(decoded->has_response);
  // The final flag alone is the only response without a response.
  none.final = false;
  EXPECT_FALSE(DecodeResponse(EncodeResponse(none)).ok());
  std::vector<uint8_t> bad_kind = EncodeResponse(error);
  bad_kind[9] = 7;
  EXPECT_FALSE(DecodeResponse(bad_kind).ok());

  EXPECT_EQ(*DecodeIsCancelled(std::vector<uint8_t>{5, 0, 0, 0, 0, 0, 0, 0}), 5u);
  EXPECT_FALSE(DecodeIsCancelled(std::vector<uint8_t>{5, 0}).ok());
  EXPECT_EQ(EncodeCancelled(5, true), (std::vector<uint8_t>{5, 0, 0, 0, 0, 0, 0, 0, 1}));
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

using Clock = std::chrono::steady_clock;

WireTensor Inline(std::string_view name, const std::vector<int64_t>& dims,
                  const std::vector<uint8_t>& data) {
  WireTensor tensor;
  tensor.name = name;
  tensor.datatype = INFERD_TYPE_UINT8;
  tensor.dims = dims;
  tensor.location = Location::kInline;
  tensor.byte_size = data.size();
  tensor.data = data.data();
  return tensor;
}

// ---- WorkerChannel: several messages in one read, a wake in between ---------

TEST(WorkerChannelTest, MessagesReadAheadStayBufferedAndWakesInterrupt) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  WorkerChannel channel(fds[0]);
  int wake[2];
  ASSERT_EQ(::pipe(wake), 0);

  // Three messages in one write: a BLS_REQUEST, a large one, a RESULT.
  std::vector<uint8_t> frames;
  auto append = [&](MessageType type, const std::vector<uint8_t>& payload) {
    uint8_t header[kHeaderSize];
    EncodeHeader(Header{static_cast<uint32_t>(payload.size()), type}, header);
    frames.insert(frames.end(), header, header + kHeaderSize);
    frames.insert(frames.end(), payload.begin(), payload.end());
  };
  std::vector<uint8_t> large(100000);
  for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<uint8_t>(i * 7);
  append(MessageType::kBlsRequest, {1, 2, 3});
  append(MessageType::kBlsRequest, large);
  append(MessageType::kResult, {});
  std::thread writer([&] {
    // The last message split in two, with a wake-up in between.
    ASSERT_EQ(::write(fds[1], frames.data(), frames.size() - 4),
              static_cast<ssize_t>(frames.size() - 4));
  });
  auto next = [&](WorkerChannel::Deadline deadline = std::nullopt) {
    StatusOr<WorkerChannel::Received> received = channel.ReceiveOrWake(deadline, wake[0]);
    EXPECT_TRUE(received.ok()) << received.status().message();
    return received.ok() ? std::move(*received) : WorkerChannel::Received{};
  };
  WorkerChannel::Received first = next();
  EXPECT_EQ(first.message.type, MessageType::kBlsRequest);
  EXPECT_EQ(first.message.payload, (std::vector<uint8_t>{1, 2, 3}));
  WorkerChannel::Received second = next();
  EXPECT_EQ(second.message.payload, large);
  writer.join();
  // Half a header is there: a deadline returns without losing it.
  EXPECT_EQ(next(Clock::now() + std::chrono::milliseconds(10)).event,
            WorkerChannel::Event::kTimedOut);
  ASSERT_EQ(::write(wake[1], "x", 1), 1);
  EXPECT_EQ(next().event, WorkerChannel::Event::kWoken);
  char drained;
  ASSERT_EQ(::read(wake[0], &drained, 1), 1);
  ASSERT_EQ(::write(fds[1], frames.data() + frames.size() - 4, 4), 4);
  WorkerChannel::Received third = next();
  EXPECT_EQ(third.event, WorkerChannel::Event::kMessage);
  EXPECT_EQ(third.message.type, MessageType::kResult);
  EXPECT_TRUE(third.message.payload.empty());
  ::close(fds[1]);
  bool timed_out = false;
  EXPECT_FALSE(channel.Receive(std::nullopt, &timed_out).ok());
  ::close(wake[0]);
  ::close(wake[1]);
}

// ---- Codec ----------------------------------------------------------------------

TEST(BlsCodecTest, RequestRoundTripAndResponseParts) {
  const std::vector<int64_t> dims{2, 1};
  const std::vector<uint8_t> data{5, 6};
  BlsRequestMessage request;
  request.id = 77;
  request.model_name = "target";
  request.model_version = -1;
  request.timeout_us = 123;
  request.parameters = {WireParameter{"sequence_id", WireParameter::Kind::kString, false, 0, "s1"}};
  request.requested_outputs = {"Y"};
  request.inputs = {Inline("X", dims, data)};
  const std::vector<uint8_t> encoded = EncodeBlsRequest(request);
  StatusOr<BlsRequestMessage> decoded = DecodeBlsRequest(encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded->id, 77u);
  EXPECT_EQ(decoded->model_name, "target");
  EXPECT_EQ(decoded->model_version, -1);
  EXPECT_EQ(decoded->timeout_us, 123u);
  ASSERT_EQ(decoded->parameters.size(), 1u);
  EXPECT_EQ(decoded->parameters[0].string_value, "s1");
  ASSERT_EQ(decoded->inputs.size(), 1u);
  EXPECT_EQ(std::vector<int64_t>(decoded->inputs[0].dims.begin(), decoded->inputs[0].dims.end()),
            dims);
  for (size_t cut = 0; cut < encoded.size(); ++cut) {
    EXPECT_FALSE(DecodeBlsRequest(std::span<const uint8_t>(encoded.data(), cut)).ok()) << cut;
  }

  // Inline data is referenced by the parts, not copied into the encoding.
  BlsResponseEncoder encoder(77, kFlagFinal);
  encoder.BeginOutputs(2);
  encoder.AddOutput(Inline("A", dims, data));
  WireTensor in_region = Inline("B", dims, data);
  in_region.location = Location::kRegion;
  in_region.offset = 4096;
  encoder.AddOutput(in_region);
  const std::vector<iovec> parts = encoder.parts();
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].iov_base, data.data());
  // Decoded views point into the buffer, which must outlive them.
  const std::vector<uint8_t> flat = encoder.Flatten();
  StatusOr<BlsResponseMessage> response = DecodeBlsResponse(flat);
  ASSERT_TRUE(response.ok()) << response.status().message();
  ASSERT_EQ(response->response.outputs.size(), 2u);
  EXPECT_EQ(std::vector<uint8_t>(response->response.outputs[0].data,
                                 response->response.outputs[0].data + 2),
            data);
  EXPECT_EQ(response->response.outputs[1].offset, 4096u);

  BlsResponseEncoder error(3, kFlagFinal);
  error.SetError(INFERD_ERROR_DEADLINE_EXCEEDED, "late");
  const std::vector<uint8_t> error_flat = error.Flatten();
  response = DecodeBlsResponse(error_flat);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->response.error_code, INFERD_ERROR_DEADLINE_EXCEEDED);
  EXPECT_EQ(response->flags, kFlagFinal);
  BlsResponseEncoder none(4, kFlagFinal);
  none.SetNone();
  response = DecodeBlsResponse(none.Flatten());
  ASSERT_TRUE(response.ok());
  EXPECT_FALSE(response->has_response);
  std::vector<uint8_t> unknown = error.Flatten();
  unknown[10] = 200;  // a code from a newer peer
  EXPECT_EQ(DecodeBlsResponse(unknown)->response.error_code, INFERD_ERROR_UNKNOWN);
}

TEST(RegionBlockTest, ShrinkFreesTheTailAtOnceAndTheRestWithTheLastOwner) {
  StatusOr<std::shared_ptr<ShmRegion>> region = ShmRegion::Create(ShmMode::kAuto, 4096, "t");
  ASSERT_TRUE(region.ok());
  std::optional<ShmRegion::Range> range = (*region)->ReserveLargest();
  auto block = std::make_shared<RegionBlock>(*region, range->offset, range->size);
  EXPECT_EQ((*region)->FreeBytes(), 0u);
  block->Shrink(100);
  EXPECT_EQ(block->size(), 128u);
  EXPECT_EQ((*region)->FreeBytes(), 4096u - 128u);
  std::shared_ptr<RegionBlock> other_owner = block;
  block.reset();
  EXPECT_EQ((*region)->FreeBytes(), 4096u - 128u);
  other_owner.reset();
  EXPECT_EQ((*region)->FreeBytes(), 4096u);
}

}  // namespace
}  // namespace inferd::python
