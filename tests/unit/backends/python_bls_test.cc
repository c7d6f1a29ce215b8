// SPDX-License-Identifier: Apache-2.0
// The Python backend's BLS exchange (py_bls.h) and the worker channel it
// reads through, against a fake INFERD_ServerApi and the worker's end of a
// socket pair: zero-copy inputs, outputs copied once into the region,
// completions from other threads, timeouts, late completions, and the
// release of every input and response exactly once.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "py_bls.h"
#include "py_protocol.h"
#include "shm_region.h"
#include "worker_channel.h"

// The fake server's objects (opaque in backend.h).
struct INFERD_Error {
  INFERD_ErrorCode code;
  std::string message;
};
struct INFERD_Server {};
struct INFERD_Request {};
struct FakeInput {
  std::string name;
  std::vector<int64_t> shape;
  const void* data;
  size_t size;
  INFERD_ReleaseFn release;
  void* context;
};
struct INFERD_InferRequest {
  std::string model;
  int64_t version = 0;
  std::vector<FakeInput> inputs;
  std::vector<std::string> outputs;
  std::map<std::string, std::string> parameters;
  uint64_t timeout_us = 0;
  const INFERD_Request* parent = nullptr;
  INFERD_InferCompleteFn complete_fn = nullptr;
  void* complete_context = nullptr;
  bool completed = false;
  // As the server does, exactly once.
  void Complete(INFERD_InferResponse* response, INFERD_Error* error) {
    completed = true;
    complete_fn(complete_context, response, error);
  }
};
struct FakeOutput {
  std::string name;
  INFERD_DataType datatype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};
struct INFERD_InferResponse {
  std::vector<FakeOutput> outputs;
};

namespace inferd::python {
namespace {

using Clock = std::chrono::steady_clock;

struct Fake {
  std::mutex mu;
  std::vector<INFERD_InferRequest*> sent;
  std::atomic<int> responses_deleted{0};
  std::atomic<int> errors_deleted{0};
  std::atomic<int> inputs_released{0};
};
Fake* fake = nullptr;

INFERD_Error* ErrorNew(INFERD_ErrorCode code, const char* message) {
  return new INFERD_Error{code, message != nullptr ? message : ""};
}
INFERD_ErrorCode ErrorCode(const INFERD_Error* error) { return error->code; }
const char* ErrorMessage(const INFERD_Error* error) { return error->message.c_str(); }
void ErrorDelete(INFERD_Error* error) {
  ++fake->errors_deleted;
  delete error;
}
INFERD_InferRequest* InferRequestNew(INFERD_Server*, const char* model, int64_t version) {
  auto* request = new INFERD_InferRequest;
  request->model = model;
  request->version = version;
  return request;
}
INFERD_Error* InferRequestAddInput(INFERD_InferRequest* request, const char* name, INFERD_DataType,
                                   const int64_t* shape, size_t shape_count, const void* data,
                                   size_t size, INFERD_ReleaseFn release, void* context) {
  if (std::string(name) == "BAD") {
    release(context);
    ++fake->inputs_released;
    return ErrorNew(INFERD_ERROR_INVALID_ARG, "input 'BAD' is bad");
  }
  request->inputs.push_back(FakeInput{name, std::vector<int64_t>(shape, shape + shape_count), data,
                                      size, release, context});
  return nullptr;
}
void ReleaseInputs(INFERD_InferRequest* request) {
  for (FakeInput& input : request->inputs) {
    input.release(input.context);
    ++fake->inputs_released;
  }
  request->inputs.clear();
}
void InferRequestAddRequestedOutput(INFERD_InferRequest* request, const char* name) {
  request->outputs.emplace_back(name);
}
void InferRequestSetParent(INFERD_InferRequest* request, const INFERD_Request* parent) {
  request->parent = parent;
}
void InferRequestSetTimeout(INFERD_InferRequest* request, uint64_t timeout_us) {
  request->timeout_us = timeout_us;
}
void SetInt(INFERD_InferRequest* request, const char* key, int64_t value) {
  request->parameters[key] = std::to_string(value);
}
void SetString(INFERD_InferRequest* request, const char* key, const char* value) {
  request->parameters[key] = std::string("'") + value + "'";
}
void SetBool(INFERD_InferRequest* request, const char* key, int value) {
  request->parameters[key] = value != 0 ? "true" : "false";
}
void InferRequestDelete(INFERD_InferRequest* request) {
  ReleaseInputs(request);
  delete request;
}
void ServerInferAsync(INFERD_InferRequest* request, INFERD_InferCompleteFn complete,
                      void* context) {
  request->complete_fn = complete;
  request->complete_context = context;
  if (request->model == "missing") {  // answered on the caller's thread, as the server may
    InferRequestDelete(request);
    complete(context, nullptr, ErrorNew(INFERD_ERROR_NOT_FOUND, "unknown model 'missing'"));
    return;
  }
  std::lock_guard<std::mutex> lock(fake->mu);
  fake->sent.push_back(request);
}
size_t InferResponseOutputCount(const INFERD_InferResponse* response) {
  return response->outputs.size();
}
void InferResponseOutput(const INFERD_InferResponse* response, size_t index, const char** name,
                         INFERD_DataType* datatype, const int64_t** shape, size_t* shape_count,
                         const void** data, size_t* byte_size) {
  const FakeOutput& output = response->outputs.at(index);
  *name = output.name.c_str();
  *datatype = output.datatype;
  *shape = output.shape.data();
  *shape_count = output.shape.size();
  *data = output.data.data();
  *byte_size = output.data.size();
}
void InferResponseDelete(INFERD_InferResponse* response) {
  ++fake->responses_deleted;
  delete response;
}

INFERD_ServerApi MakeApi() {
  INFERD_ServerApi api{};
  api.struct_size = sizeof(INFERD_ServerApi);
  api.ErrorNew = &ErrorNew;
  api.ErrorCode = &ErrorCode;
  api.ErrorMessage = &ErrorMessage;
  api.ErrorDelete = &ErrorDelete;
  api.InferRequestNew = &InferRequestNew;
  api.InferRequestAddInput = &InferRequestAddInput;
  api.InferRequestAddRequestedOutput = &InferRequestAddRequestedOutput;
  api.InferRequestSetParent = &InferRequestSetParent;
  api.InferRequestSetTimeout = &InferRequestSetTimeout;
  api.InferRequestSetIntParameter = &SetInt;
  api.InferRequestSetStringParameter = &SetString;
  api.InferRequestSetBoolParameter = &SetBool;
  api.InferRequestDelete = &InferRequestDelete;
  api.ServerInferAsync = &ServerInferAsync;
  api.InferResponseOutputCount = &InferResponseOutputCount;
  api.InferResponseOutput = &InferResponseOutput;
  api.InferResponseDelete = &InferResponseDelete;
  return api;
}

// Reads frames on the worker's end of the socket pair.
std::vector<uint8_t> ReadExactly(int fd, size_t size) {
  std::vector<uint8_t> data(size);
  size_t have = 0;
  while (have < size) {
    pollfd readable{fd, POLLIN, 0};
    if (::poll(&readable, 1, 5000) != 1) break;
    const ssize_t got = ::read(fd, data.data() + have, size - have);
    if (got <= 0) break;
    have += static_cast<size_t>(got);
  }
  data.resize(have);
  return data;
}

std::vector<uint8_t> ReadFrame(int fd, MessageType expected) {
  const std::vector<uint8_t> header = ReadExactly(fd, kHeaderSize);
  EXPECT_EQ(header.size(), kHeaderSize);
  if (header.size() != kHeaderSize) return {};
  const Header decoded = DecodeHeader(header.data());
  EXPECT_EQ(decoded.type, expected);
  return ReadExactly(fd, decoded.length);
}

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

class BlsExchangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake = &fake_;
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    channel_ = std::make_unique<WorkerChannel>(fds[0]);
    worker_fd_ = fds[1];
    StatusOr<std::shared_ptr<ShmRegion>> region = ShmRegion::Create(ShmMode::kAuto, 1 << 16, "t");
    ASSERT_TRUE(region.ok()) << region.status().message();
    region_ = *region;
    StatusOr<std::shared_ptr<BlsMailbox>> mailbox = BlsMailbox::Create(api_);
    ASSERT_TRUE(mailbox.ok());
    mailbox_ = *mailbox;
  }
  void TearDown() override {
    for (INFERD_InferRequest* request : fake_.sent) {
      if (!request->completed) request->Complete(nullptr, ErrorNew(INFERD_ERROR_CANCELLED, "end"));
      InferRequestDelete(request);
    }
    ::close(worker_fd_);
    fake = nullptr;
  }

  BlsContext Context(std::shared_ptr<RegionBlock> range) {
    BlsContext context;
    context.api = &api_;
    context.server = &server_;
    context.mailbox = mailbox_;
    context.channel = channel_.get();
    context.region = region_;
    context.output_range = std::move(range);
    context.parent = &parent_;
    return context;
  }

  // Waits for the mailbox's wake descriptor, as the instance thread does.
  bool Woken(int timeout_ms = 5000) {
    pollfd readable{mailbox_->wake_fd(), POLLIN, 0};
    return ::poll(&readable, 1, timeout_ms) == 1;
  }

  INFERD_InferRequest* Sent(size_t index) {
    std::lock_guard<std::mutex> lock(fake_.mu);
    return index < fake_.sent.size() ? fake_.sent[index] : nullptr;
  }

  // Completes a sent request from another thread, as the server does.
  void CompleteOnAnotherThread(INFERD_InferRequest* request, INFERD_InferResponse* response,
                               INFERD_Error* error) {
    std::thread([=] {
      ReleaseInputs(request);
      request->Complete(response, error);
    }).join();
  }

  Fake fake_;
  INFERD_ServerApi api_ = MakeApi();
  INFERD_Server server_;
  INFERD_Request parent_;
  std::unique_ptr<WorkerChannel> channel_;
  int worker_fd_ = -1;
  std::shared_ptr<ShmRegion> region_;
  std::shared_ptr<BlsMailbox> mailbox_;
};

TEST_F(BlsExchangeTest, InputsAreLentOutputsCopiedOnceIntoTheRegion) {
  const uint64_t free_before = region_->FreeBytes();
  std::optional<ShmRegion::Range> range = region_->ReserveLargest(2);
  ASSERT_TRUE(range);
  EXPECT_EQ(range->size, (1u << 16) / 2);
  auto range_block = std::make_shared<RegionBlock>(region_, range->offset, range->size);
  std::memcpy(region_->base() + range->offset, "abcdefgh", 8);

  const std::vector<int64_t> dims{8};
  const std::vector<uint8_t> text{'x', 'y'};
  const std::vector<int64_t> text_dims{2};
  BlsRequestMessage message;
  message.id = 41;
  message.model_name = "simple";
  message.model_version = 2;
  message.parameters = {WireParameter{"priority", WireParameter::Kind::kInt, false, 3, {}},
                        WireParameter{"tag", WireParameter::Kind::kString, false, 0, "v"},
                        WireParameter{"on", WireParameter::Kind::kBool, true, 0, {}}};
  message.requested_outputs = {"OUT"};
  WireTensor in_region;
  in_region.name = "A";
  in_region.datatype = INFERD_TYPE_UINT8;
  in_region.dims = dims;
  in_region.location = Location::kRegion;
  in_region.byte_size = 8;
  in_region.offset = range->offset;
  message.inputs = {in_region, Inline("B", text_dims, text)};
  {
    BlsExchange bls(Context(range_block));
    ASSERT_TRUE(bls.OnRequest(EncodeBlsRequest(message)).ok());
    EXPECT_EQ(bls.input_high_mark(), 8u);
    EXPECT_EQ(bls.inline_bytes(), 2u);
    INFERD_InferRequest* sent = Sent(0);
    ASSERT_NE(sent, nullptr);
    EXPECT_EQ(sent->model, "simple");
    EXPECT_EQ(sent->version, 2);
    EXPECT_EQ(sent->parent, &parent_);
    EXPECT_EQ(sent->timeout_us, 0u);
    EXPECT_EQ(sent->outputs, std::vector<std::string>{"OUT"});
    EXPECT_EQ(sent->parameters, (std::map<std::string, std::string>{
                                    {"on", "true"}, {"priority", "3"}, {"tag", "'v'"}}));
    ASSERT_EQ(sent->inputs.size(), 2u);
    // No copy: the target reads the worker's bytes where they are.
    EXPECT_EQ(sent->inputs[0].data, region_->base() + range->offset);
    EXPECT_EQ(sent->inputs[0].shape, dims);
    EXPECT_EQ(std::string(static_cast<const char*>(sent->inputs[1].data), 2), "xy");

    auto* response = new INFERD_InferResponse{{FakeOutput{"OUT", INFERD_TYPE_UINT8, {3}, {7, 8, 9}},
                                               FakeOutput{"E", INFERD_TYPE_UINT8, {0}, {}}}};
    CompleteOnAnotherThread(sent, response, nullptr);
    ASSERT_TRUE(Woken());
    ASSERT_TRUE(bls.Deliver().ok());
    EXPECT_EQ(bls.outstanding(), 0u);
    EXPECT_EQ(fake_.responses_deleted, 1);

    std::vector<uint8_t> answer = ReadFrame(worker_fd_, MessageType::kBlsResponse);
    StatusOr<BlsResponseMessage> decoded = DecodeBlsResponse(answer);
    ASSERT_TRUE(decoded.ok()) << decoded.status().message();
    EXPECT_EQ(decoded->id, 41u);
    ASSERT_FALSE(decoded->response.has_error);
    ASSERT_EQ(decoded->response.outputs.size(), 2u);
    const WireTensor& out = decoded->response.outputs[0];
    EXPECT_EQ(out.name, "OUT");
    ASSERT_EQ(out.location, Location::kRegion);
    EXPECT_GE(out.offset, range->offset + range->size);  // from the allocator, not the range
    EXPECT_EQ(std::memcmp(region_->base() + out.offset, "\x07\x08\x09", 3), 0);
    EXPECT_EQ(decoded->response.outputs[1].location, Location::kInline);  // empty
    range_block.reset();
  }
  // The exchange freed the output block; the inputs were released once.
  EXPECT_EQ(fake_.inputs_released, 2);
  EXPECT_EQ(region_->FreeBytes(), free_before);
}

TEST_F(BlsExchangeTest, TimeoutAnswersAtOnceAndTheLateResponseIsDropped) {
  std::optional<ShmRegion::Range> range = region_->ReserveLargest();
  auto range_block = std::make_shared<RegionBlock>(region_, range->offset, range->size);
  const std::vector<int64_t> dims{4};
  WireTensor input;
  input.name = "A";
  input.datatype = INFERD_TYPE_UINT8;
  input.dims = dims;
  input.location = Location::kRegion;
  input.byte_size = 4;
  input.offset = range->offset;
  BlsRequestMessage message;
  message.id = 1;
  message.model_name = "slow";
  message.timeout_us = 20000;
  message.inputs = {input};
  INFERD_InferRequest* sent = nullptr;
  {
    BlsExchange bls(Context(range_block));
    const auto before = Clock::now();
    ASSERT_TRUE(bls.OnRequest(EncodeBlsRequest(message)).ok());
    sent = Sent(0);
    ASSERT_NE(sent, nullptr);
    EXPECT_EQ(sent->timeout_us, 20000u);
    ASSERT_TRUE(bls.NextExpiry());
    EXPECT_GE(*bls.NextExpiry(), before + std::chrono::milliseconds(20));
    ASSERT_TRUE(bls.ExpireDue().ok());
    EXPECT_EQ(bls.outstanding(), 1u);  // not yet
    std::this_thread::sleep_until(*bls.NextExpiry());
    ASSERT_TRUE(bls.ExpireDue().ok());
    EXPECT_EQ(bls.outstanding(), 0u);
    const std::vector<uint8_t> frame = ReadFrame(worker_fd_, MessageType::kBlsResponse);
    StatusOr<BlsResponseMessage> decoded = DecodeBlsResponse(frame);
    ASSERT_TRUE(decoded.ok());
    EXPECT_TRUE(decoded->response.has_error);
    EXPECT_EQ(decoded->response.error_code, INFERD_ERROR_DEADLINE_EXCEEDED);
    EXPECT_EQ(decoded->response.error_message,
              "BLS request to model 'slow' timed out: no response within its timeout of 0.02 s");
    // The target answers late, still in the exchange: freed, not answered.
    std::thread([&] { sent->Complete(new INFERD_InferResponse{}, nullptr); }).join();
    ASSERT_TRUE(Woken());
    ASSERT_TRUE(bls.Deliver().ok());
    EXPECT_EQ(fake_.responses_deleted, 1);
    range_block.reset();
  }
  // The target still holds the input: its range is not free until released.
  const uint64_t held = region_->FreeBytes();
  EXPECT_EQ(held, 0u);
  ReleaseInputs(sent);
  EXPECT_EQ(fake_.inputs_released, 1);
  EXPECT_EQ(region_->FreeBytes(), uint64_t{1} << 16);
  pollfd readable{worker_fd_, POLLIN, 0};
  EXPECT_EQ(::poll(&readable, 1, 50), 0);  // nothing more reached the worker
}

TEST_F(BlsExchangeTest, CompletionsAfterTheExchangeAreFreedByTheirThread) {
  BlsRequestMessage message;
  message.model_name = "m";
  {
    BlsExchange bls(Context(nullptr));
    for (uint64_t id : {1, 2}) {
      message.id = id;
      ASSERT_TRUE(bls.OnRequest(EncodeBlsRequest(message)).ok());
    }
    CompleteOnAnotherThread(Sent(0), new INFERD_InferResponse{}, nullptr);  // queued
  }  // ends with one queued and one still running
  EXPECT_EQ(fake_.responses_deleted, 1);
  CompleteOnAnotherThread(Sent(1), nullptr, ErrorNew(INFERD_ERROR_CANCELLED, "late"));
  EXPECT_EQ(fake_.errors_deleted, 1);
  // A new exchange does not see them.
  BlsExchange next(Context(nullptr));
  EXPECT_FALSE(Woken(0));
  EXPECT_TRUE(next.Deliver().ok());
  pollfd readable{worker_fd_, POLLIN, 0};
  EXPECT_EQ(::poll(&readable, 1, 20), 0);
}

TEST_F(BlsExchangeTest, ErrorsBecomeErrorResponses) {
  BlsExchange bls(Context(nullptr));
  BlsRequestMessage message;
  message.id = 5;
  message.model_name = "missing";  // completes inside ServerInferAsync
  ASSERT_TRUE(bls.OnRequest(EncodeBlsRequest(message)).ok());
  ASSERT_TRUE(Woken());
  ASSERT_TRUE(bls.Deliver().ok());
  std::vector<uint8_t> frame = ReadFrame(worker_fd_, MessageType::kBlsResponse);
  StatusOr<BlsResponseMessage> decoded = DecodeBlsResponse(frame);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->id, 5u);
  EXPECT_EQ(decoded->response.error_code, INFERD_ERROR_NOT_FOUND);
  EXPECT_EQ(decoded->response.error_message, "unknown model 'missing'");
  EXPECT_EQ(fake_.errors_deleted, 1);

  const std::vector<uint8_t> data{1};
  const std::vector<int64_t> dims{1};
  message.id = 6;
  message.model_name = "m";
  message.inputs = {Inline("BAD", dims, data)};
  ASSERT_TRUE(bls.OnRequest(EncodeBlsRequest(message)).ok());
  frame = ReadFrame(worker_fd_, MessageType::kBlsResponse);
  decoded = DecodeBlsResponse(frame);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->response.error_code, INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(decoded->response.error_message, "input 'BAD' is bad");
  EXPECT_EQ(bls.outstanding(), 0u);
}

TEST_F(BlsExchangeTest, UnavailableWhenTheExchangeHasNoServer) {
  BlsContext context = Context(nullptr);
  context.server = nullptr;
  context.unavailable = "BLS requests are not served in finalize()";
  BlsExchange bls(std::move(context));
  BlsRequestMessage message;
  message.id = 9;
  message.model_name = "m";
  ASSERT_TRUE(bls.OnRequest(EncodeBlsRequest(message)).ok());
  std::vector<uint8_t> frame = ReadFrame(worker_fd_, MessageType::kBlsResponse);
  StatusOr<BlsResponseMessage> decoded = DecodeBlsResponse(frame);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->response.error_code, INFERD_ERROR_UNAVAILABLE);
  EXPECT_EQ(decoded->response.error_message, "BLS requests are not served in finalize()");
  EXPECT_EQ(Sent(0), nullptr);
}

TEST_F(BlsExchangeTest, MalformedRequestsBreakTheProtocol) {
  std::optional<ShmRegion::Range> range = region_->ReserveLargest(2);
  auto range_block = std::make_shared<RegionBlock>(region_, range->offset, range->size);
  BlsExchange bls(Context(range_block));
  const std::vector<int64_t> dims{4};
  WireTensor outside;
  outside.name = "A";
  outside.datatype = INFERD_TYPE_UINT8;
  outside.dims = dims;
  outside.location = Location::kRegion;
  outside.byte_size = 4;
  outside.offset = range->offset + range->size - 2;  // runs past the range
  BlsRequestMessage message;
  message.id = 1;
  message.model_name = "m";
  message.inputs = {outside};
  Status status = bls.OnRequest(EncodeBlsRequest(message));
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("outside the EXECUTE's output range"), std::string::npos);

  message.inputs.clear();
  ASSERT_TRUE(bls.OnRequest(EncodeBlsRequest(message)).ok());
  status = bls.OnRequest(EncodeBlsRequest(message));
  EXPECT_NE(status.message().find("already outstanding"), std::string::npos);
  std::vector<uint8_t> cut = EncodeBlsRequest(message);
  cut.pop_back();
  EXPECT_FALSE(bls.OnRequest(cut).ok());
}

}  // namespace
}  // namespace inferd::python
