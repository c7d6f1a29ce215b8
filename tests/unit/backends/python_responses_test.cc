// SPDX-License-Identifier: Apache-2.0
// The Python backend's response router (src/backends/python/py_responses.h)
// against a fake server table and a hand-written worker end of the response
// socket: responses reach their request in order, the final one completes
// it, pool blocks go back to the worker when the outputs are released,
// requests end exactly once whoever gets there first, IS_CANCELLED is
// answered, and a closed socket fails what is still open.
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "py_protocol.h"
#include "py_responses.h"

struct INFERD_Error {
  INFERD_ErrorCode code;
  std::string message;
};

struct FakeOutput {
  std::string name;
  std::string data;
  INFERD_ReleaseFn release;
  void* context;
};

// One response as the client would see it.
struct Sent {
  bool final = false;
  bool error = false;
  std::string text;  // the error, or the outputs' names and bytes
};

struct INFERD_Request {
  std::mutex mu;
  std::condition_variable changed;
  std::vector<FakeOutput> pending;  // added since the last send
  std::vector<Sent> sent;
  int completions = 0;
  bool cancelled = false;
  uint64_t compute_start = 0;
  uint64_t compute_end = 0;

  // Releases the outputs as a server does once they are sent.
  Sent Take(bool final, INFERD_Error* error) {
    Sent out;
    out.final = final;
    if (error != nullptr) {
      out.error = true;
      out.text = error->message;
      delete error;
    } else {
      for (const FakeOutput& output : pending) out.text += output.name + "=" + output.data + ";";
    }
    for (const FakeOutput& output : pending) output.release(output.context);
    pending.clear();
    return out;
  }
  bool WaitCompleted() {
    std::unique_lock<std::mutex> lock(mu);
    return changed.wait_for(lock, std::chrono::seconds(10), [&] { return completions > 0; });
  }
};

namespace inferd::python {
namespace {

INFERD_Error* ErrorNew(INFERD_ErrorCode code, const char* message) {
  return new INFERD_Error{code, message == nullptr ? "" : message};
}
INFERD_ErrorCode ErrorCode(const INFERD_Error* error) { return error->code; }
const char* ErrorMessage(const INFERD_Error* error) { return error->message.c_str(); }
void ErrorDelete(INFERD_Error* error) { delete error; }

INFERD_Error* ResponseAddOutput(INFERD_Request* request, const char* name, INFERD_DataType,
                                const int64_t*, size_t, const void* data, size_t byte_size,
                                INFERD_ReleaseFn release, void* context) {
  std::lock_guard<std::mutex> lock(request->mu);
  request->pending.push_back(
      FakeOutput{name, std::string(static_cast<const char*>(data), byte_size), release, context});
  return nullptr;
}
INFERD_Error* RequestSendResponse(INFERD_Request* request, INFERD_Error* error, uint32_t flags) {
  std::lock_guard<std::mutex> lock(request->mu);
  request->sent.push_back(request->Take((flags & INFERD_RESPONSE_FLAG_FINAL) != 0, error));
  request->changed.notify_all();
  return nullptr;
}
void RequestComplete(INFERD_Request* request, INFERD_Error* error) {
  std::lock_guard<std::mutex> lock(request->mu);
  request->sent.push_back(request->Take(true, error));
  ++request->completions;
  request->changed.notify_all();
}
void ReportComputeTimes(INFERD_Request* request, uint64_t start, uint64_t end) {
  request->compute_start = start;
  request->compute_end = end;
}
uint64_t Now() { return 1000; }
int32_t IsCancelled(const INFERD_Request* request) { return request->cancelled ? 1 : 0; }

INFERD_ServerApi MakeApi() {
  INFERD_ServerApi api{};
  api.struct_size = sizeof(INFERD_ServerApi);
  api.ErrorNew = &ErrorNew;
  api.ErrorCode = &ErrorCode;
  api.ErrorMessage = &ErrorMessage;
  api.ErrorDelete = &ErrorDelete;
  api.ResponseAddOutput = &ResponseAddOutput;
  api.RequestSendResponse = &RequestSendResponse;
  api.RequestComplete = &RequestComplete;
  api.RequestReportComputeTimes = &ReportComputeTimes;
  api.NowNanoseconds = &Now;
  api.RequestIsCancelled = &IsCancelled;
  return api;
}

const INFERD_ServerApi kApi = MakeApi();

// The worker's end: writes framed messages, reads CANCELLED answers.
class WorkerEnd {
 public:
  explicit WorkerEnd(int fd) : fd_(fd) {}
  ~WorkerEnd() { Close(); }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void Send(MessageType type, const std::vector<uint8_t>& payload) {
    uint8_t header[kHeaderSize];
    EncodeHeader(Header{static_cast<uint32_t>(payload.size()), type}, header);
    ASSERT_EQ(::write(fd_, header, kHeaderSize), static_cast<ssize_t>(kHeaderSize));
    if (!payload.empty()) {
      ASSERT_EQ(::write(fd_, payload.data(), payload.size()), static_cast<ssize_t>(payload.size()));
    }
  }
  std::vector<uint8_t> Read(size_t size) {
    std::vector<uint8_t> data(size);
    size_t have = 0;
    while (have < size) {
      const ssize_t got = ::read(fd_, data.data() + have, size - have);
      if (got <= 0) break;
      have += static_cast<size_t>(got);
    }
    data.resize(have);
    return data;
  }

 private:
  int fd_;
};

std::vector<uint8_t> Response(uint64_t id, bool final, const std::string& name = "",
                              const std::string& data = "", uint64_t pool_block = kNoPoolBlock,
                              uint64_t pool_offset = 0) {
  static const std::vector<int64_t> dims{1};
  ResponseMessage message;
  message.request_id = id;
  message.final = final;
  message.pool_block = pool_block;
  if (name.empty()) {
    message.has_response = false;
  } else {
    WireTensor tensor;
    tensor.name = name;
    tensor.datatype = INFERD_TYPE_UINT8;
    tensor.dims = dims;
    tensor.byte_size = data.size();
    if (pool_block != kNoPoolBlock) {
      tensor.location = Location::kRegion;
      tensor.offset = pool_offset;
    } else {
      tensor.location = Location::kInline;
      tensor.data = reinterpret_cast<const uint8_t*>(data.data());
    }
    message.response.outputs.push_back(tensor);
  }
  return EncodeResponse(message);
}

std::vector<uint8_t> ErrorResponse(uint64_t id, bool final, const std::string& text) {
  ResponseMessage message;
  message.request_id = id;
  message.final = final;
  message.pool_block = kNoPoolBlock;
  message.response.has_error = true;
  message.response.error_code = INFERD_ERROR_INVALID_ARG;
  message.response.error_message = text;
  return EncodeResponse(message);
}

struct Fixture {
  std::unique_ptr<ResponseRouter> router;
  std::unique_ptr<WorkerEnd> worker;

  explicit Fixture(bool decoupled, uint64_t pool_bytes = 4096) {
    auto created = ResponseRouter::Create(kApi, decoupled, "python model 'm' instance 0",
                                          ShmMode::kAuto, pool_bytes, "test");
    EXPECT_TRUE(created.ok());
    router = std::move(*created);
    worker = std::make_unique<WorkerEnd>(::dup(router->worker_fd()));
    router->CloseWorkerEnd();
    router->Start();
  }
};

TEST(ResponseRouterTest, DecoupledResponsesArriveInOrderAndTheFinalCompletes) {
  Fixture f(/*decoupled=*/true);
  INFERD_Request request;
  std::shared_ptr<OpenRequest> open = f.router->Register(7, &request, 10);
  f.worker->Send(MessageType::kResponse, Response(7, false, "OUT", "a"));
  f.worker->Send(MessageType::kResponse, ErrorResponse(7, false, "not this one"));
  f.worker->Send(MessageType::kResponse, Response(7, false, "OUT", "b"));
  f.worker->Send(MessageType::kResponse, Response(7, true));  // the final flag alone
  ASSERT_TRUE(request.WaitCompleted());
  std::lock_guard<std::mutex> lock(request.mu);
  ASSERT_EQ(request.sent.size(), 4u);
  EXPECT_EQ(request.sent[0].text, "OUT=a;");
  EXPECT_FALSE(request.sent[0].final);
  EXPECT_TRUE(request.sent[1].error);
  EXPECT_EQ(request.sent[1].text, "not this one");
  EXPECT_FALSE(request.sent[1].final);
  EXPECT_EQ(request.sent[2].text, "OUT=b;");
  EXPECT_TRUE(request.sent[3].final);
  EXPECT_EQ(request.sent[3].text, "");
  EXPECT_EQ(request.completions, 1);
  // Completed before its EXECUTE's RESULT: the compute phase ends now.
  EXPECT_EQ(request.compute_start, 10u);
  EXPECT_EQ(request.compute_end, 1000u);
}

TEST(ResponseRouterTest, PoolBlocksGoBackToTheWorkerWhenTheOutputsAreReleased) {
  Fixture f(/*decoupled=*/true);
  const std::shared_ptr<ShmRegion>& pool = f.router->pool();
  ASSERT_NE(pool, nullptr);
  // The worker fills a block: the owner byte, then the tensor.
  pool->base()[128] = 1;
  std::memcpy(pool->base() + 192, "xyz", 3);
  INFERD_Request request;
  std::shared_ptr<OpenRequest> open = f.router->Register(1, &request, 0);
  f.worker->Send(MessageType::kResponse, Response(1, true, "OUT", "xyz", 128, 192));
  ASSERT_TRUE(request.WaitCompleted());
  {
    std::lock_guard<std::mutex> lock(request.mu);
    EXPECT_EQ(request.sent.at(0).text, "OUT=xyz;");
  }
  EXPECT_EQ(pool->base()[128], 0);  // released with the outputs
  // A response for a request that already ended hands its block back too.
  pool->base()[256] = 1;
  f.worker->Send(MessageType::kResponse, Response(1, false, "OUT", "q", 256, 320));
  INFERD_Request probe;  // a request after it: once it is answered, so was the drop
  std::shared_ptr<OpenRequest> probe_open = f.router->Register(2, &probe, 0);
  f.worker->Send(MessageType::kResponse, Response(2, true));
  ASSERT_TRUE(probe.WaitCompleted());
  EXPECT_EQ(pool->base()[256], 0);
  // A tensor outside the pool fails that response's request.
  INFERD_Request bad;
  std::shared_ptr<OpenRequest> bad_open = f.router->Register(3, &bad, 0);
  pool->base()[512] = 1;
  f.worker->Send(MessageType::kResponse, Response(3, true, "OUT", "abcd", 512, 4094));
  ASSERT_TRUE(bad.WaitCompleted());
  std::lock_guard<std::mutex> lock(bad.mu);
  EXPECT_TRUE(bad.sent.at(0).error);
  EXPECT_NE(bad.sent.at(0).text.find("outside its response pool block"), std::string::npos);
}

TEST(ResponseRouterTest, ARequestEndsOnceWhoeverGetsThereFirst) {
  Fixture f(/*decoupled=*/true);
  INFERD_Request request;
  std::shared_ptr<OpenRequest> open = f.router->Register(5, &request, 0);
  f.worker->Send(MessageType::kResponse, Response(5, true, "OUT", "z"));
  ASSERT_TRUE(request.WaitCompleted());
  // RESULT's answer, or a failed batch, after the sender's final: no-ops.
  f.router->CompleteIfOpen(*open, kApi.ErrorNew(INFERD_ERROR_INTERNAL, "late"));
  f.router->CompleteFromResult(*open, 99, [](INFERD_Request*) -> INFERD_Error* {
    ADD_FAILURE() << "filled a completed request";
    return nullptr;
  });
  std::lock_guard<std::mutex> lock(request.mu);
  EXPECT_EQ(request.completions, 1);
}

TEST(ResponseRouterTest, AnOrdinaryModelsResponseMustBeFinal) {
  Fixture f(/*decoupled=*/false, 0);
  EXPECT_EQ(f.router->pool(), nullptr);
  INFERD_Request request;
  std::shared_ptr<OpenRequest> open = f.router->Register(9, &request, 20);
  f.router->Leave(*open, 50);
  f.worker->Send(MessageType::kResponse, Response(9, false, "OUT", "a"));
  ASSERT_TRUE(request.WaitCompleted());
  std::lock_guard<std::mutex> lock(request.mu);
  ASSERT_EQ(request.sent.size(), 1u);
  EXPECT_TRUE(request.sent[0].error);
  EXPECT_NE(request.sent[0].text.find("without the final flag"), std::string::npos);
  // Reported when RESULT left it to the sender.
  EXPECT_EQ(request.compute_start, 20u);
  EXPECT_EQ(request.compute_end, 50u);
}

TEST(ResponseRouterTest, IsCancelledIsAnsweredOnTheSocket) {
  Fixture f(/*decoupled=*/true);
  INFERD_Request request;
  request.cancelled = true;
  std::shared_ptr<OpenRequest> open = f.router->Register(4, &request, 0);
  f.worker->Send(MessageType::kIsCancelled, std::vector<uint8_t>{4, 0, 0, 0, 0, 0, 0, 0});
  std::vector<uint8_t> header = f.worker->Read(kHeaderSize);
  ASSERT_EQ(header.size(), kHeaderSize);
  const Header decoded = DecodeHeader(header.data());
  EXPECT_EQ(decoded.type, MessageType::kCancelled);
  EXPECT_EQ(f.worker->Read(decoded.length), EncodeCancelled(4, true));
  // An unknown (ended) request is not cancelled.
  f.worker->Send(MessageType::kIsCancelled, std::vector<uint8_t>{8, 0, 0, 0, 0, 0, 0, 0});
  (void)f.worker->Read(kHeaderSize);
  EXPECT_EQ(f.worker->Read(9), EncodeCancelled(8, false));
  f.router->CompleteIfOpen(*open, nullptr);
}

TEST(ResponseRouterTest, AClosedSocketFailsOpenRequestsButNotThoseStillExecuting) {
  Fixture f(/*decoupled=*/true);
  INFERD_Request streaming;
  INFERD_Request executing;
  std::shared_ptr<OpenRequest> left = f.router->Register(1, &streaming, 0);
  std::shared_ptr<OpenRequest> in_flight = f.router->Register(2, &executing, 0);
  f.router->SetWorkerDescription("the worker (pid 42)");
  f.router->Leave(*left, 5);
  f.worker->Close();  // the worker died
  ASSERT_TRUE(streaming.WaitCompleted());
  {
    std::lock_guard<std::mutex> lock(streaming.mu);
    EXPECT_EQ(streaming.sent.at(0).text,
              "python model 'm' instance 0: the worker (pid 42) exited before it sent the final "
              "response of this request");
  }
  {
    std::lock_guard<std::mutex> lock(executing.mu);
    EXPECT_EQ(executing.completions, 0);  // its batch answers for it
  }
  // Left to its senders after the worker died: failed at once.
  f.router->Leave(*in_flight, 6);
  std::lock_guard<std::mutex> lock(executing.mu);
  EXPECT_EQ(executing.completions, 1);
}

TEST(ResponseRouterTest, DeletingTheRouterFailsWhatIsStillOpen) {
  INFERD_Request request;
  {
    Fixture f(/*decoupled=*/true);
    std::shared_ptr<OpenRequest> open = f.router->Register(1, &request, 0);
    f.router->Leave(*open, 1);
  }
  std::lock_guard<std::mutex> lock(request.mu);
  EXPECT_EQ(request.completions, 1);
  EXPECT_TRUE(request.sent.at(0).error);
}

}  // namespace
}  // namespace inferd::python
