// SPDX-License-Identifier: Apache-2.0
// ABI 1.3's calls to other models as the server implements them
// (src/backends/abi/server_api.cc), driven through the INFERD_ServerApi table
// a backend gets, with a fake core::InferenceSubmitter standing in for the
// server: what reaches the submitter (no copies, parent, deadline,
// parameters), that input memory is released exactly once on every path,
// and that the completion function gets the response or the error once.
#include "backends/abi/server_api.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backends/abi/backend_request.h"
#include "base/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::backends {
namespace {

using ::testing::HasSubstr;

// Keeps what it was given, so a test decides when (and how) the "server"
// answers and when it lets go of the request.
class FakeSubmitter final : public core::InferenceSubmitter {
 public:
  void SubmitInternal(std::unique_ptr<core::InferRequest> request,
                      core::InferCallback on_complete) override {
    ++submitted;
    this->request = std::move(request);
    callback = std::move(on_complete);
  }
  // Answers, then drops the request, as the server does.
  void Answer(absl::StatusOr<core::InferResponse> result) {
    auto done = std::move(callback);
    done(std::move(result));
    request.reset();
  }

  int submitted = 0;
  std::unique_ptr<core::InferRequest> request;
  core::InferCallback callback;
};

// Counts release calls of one piece of input memory.
struct Releases {
  int count = 0;
  static void Release(void* context) { ++static_cast<Releases*>(context)->count; }
};

// What one completion function call got; owns the response or error.
struct Completion {
  const INFERD_ServerApi* api = nullptr;
  int calls = 0;
  INFERD_InferResponse* response = nullptr;
  INFERD_Error* error = nullptr;
  ~Completion() {
    if (response != nullptr) api->InferResponseDelete(response);
    api->ErrorDelete(error);
  }
  static void Complete(void* context, INFERD_InferResponse* response, INFERD_Error* error) {
    auto* self = static_cast<Completion*>(context);
    ++self->calls;
    self->response = response;
    self->error = error;
  }
};

class ServerApiCallsTest : public ::testing::Test {
 protected:
  const INFERD_ServerApi* api = ServerApi();
  FakeSubmitter submitter;
  INFERD_Server server{&submitter};
  const std::vector<float> data = {1, 2, 3, 4, 5, 6};
  const std::vector<int64_t> shape = {2, 3};

  INFERD_InferRequest* NewRequest(const char* model = "target", int64_t version = -1) {
    return api->InferRequestNew(&server, model, version);
  }
  INFERD_Error* AddInput(INFERD_InferRequest* request, Releases* releases) {
    return api->InferRequestAddInput(request, "x", INFERD_TYPE_FP32, shape.data(), shape.size(),
                                     data.data(), data.size() * sizeof(float), &Releases::Release,
                                     releases);
  }
  // A request this "backend" is executing, with a cancellation token and a
  // deadline when asked for.
  std::unique_ptr<INFERD_Request> Parent(int64_t deadline_nanos) {
    auto request = std::make_unique<core::InferRequest>();
    request->model_name = "caller";
    request->cancellation = std::make_shared<core::CancellationToken>();
    request->deadline_nanos = deadline_nanos;
    auto io = std::make_shared<ModelIO>();
    io->model_name = "caller";
    return std::make_unique<INFERD_Request>(
        std::move(request), [](absl::StatusOr<core::InferResponse>) {}, io,
        std::vector<std::string>{}, 1, nullptr);
  }
};

// Minor 5 added to INFERD_ModelSpec only; the table's newest members are 4's.
TEST_F(ServerApiCallsTest, TableHasEveryMemberOfTheHeadersVersion) {
  EXPECT_EQ(api->version_minor, static_cast<uint32_t>(INFERD_BACKEND_API_VERSION_MINOR));
  EXPECT_GE(api->struct_size,
            offsetof(INFERD_ServerApi, RequestIsCancelled) + sizeof(api->RequestIsCancelled));
  EXPECT_NE(api->ErrorCode, nullptr);
  EXPECT_NE(api->ServerInferAsync, nullptr);
  EXPECT_NE(api->InferResponseDelete, nullptr);
  EXPECT_NE(api->RequestSendResponse, nullptr);
  EXPECT_NE(api->RequestCorrelationId, nullptr);
  EXPECT_NE(api->RequestParametersJson, nullptr);
  EXPECT_NE(api->ServerInferAsyncDecoupled, nullptr);
  EXPECT_NE(api->RequestIsCancelled, nullptr);
}

TEST_F(ServerApiCallsTest, RequestReachesTheSubmitterWithoutCopyingInputs) {
  Releases releases;
  INFERD_InferRequest* request = NewRequest("target", 3);
  ASSERT_EQ(AddInput(request, &releases), nullptr);
  api->InferRequestAddRequestedOutput(request, "y");
  Completion completion{api};
  api->ServerInferAsync(request, &Completion::Complete, &completion);

  ASSERT_EQ(submitter.submitted, 1);
  const core::InferRequest& got = *submitter.request;
  EXPECT_EQ(got.model_name, "target");
  EXPECT_EQ(got.model_version, "3");
  ASSERT_EQ(got.inputs.size(), 1u);
  EXPECT_EQ(got.inputs[0].name, "x");
  EXPECT_EQ(got.inputs[0].datatype, core::DataType::kFp32);
  EXPECT_EQ(got.inputs[0].shape, core::Shape({2, 3}));
  // The backend's own memory, not a copy.
  EXPECT_EQ(static_cast<const void*>(got.inputs[0].data.data), data.data());
  EXPECT_EQ(got.inputs[0].data.size, data.size() * sizeof(float));
  EXPECT_EQ(got.requested_outputs, std::vector<std::string>({"y"}));
  EXPECT_EQ(got.cancellation, nullptr);  // no parent
  EXPECT_EQ(got.deadline_nanos, 0);
  EXPECT_EQ(completion.calls, 0);  // the server has not answered yet
  EXPECT_EQ(releases.count, 0);    // and still reads the input
  submitter.Answer(core::InferResponse{});
  EXPECT_EQ(completion.calls, 1);
  EXPECT_EQ(releases.count, 1);
}

TEST_F(ServerApiCallsTest, NewestVersionWhenNotFixed) {
  for (int64_t version : {-1, 0}) {
    Completion completion{api};
    api->ServerInferAsync(NewRequest("target", version), &Completion::Complete, &completion);
    EXPECT_EQ(submitter.request->model_version, "") << version;
    submitter.Answer(core::InferResponse{});
  }
}

TEST_F(ServerApiCallsTest, ReleaseRunsOnceOnSuccess) {
  Releases releases;
  INFERD_InferRequest* request = NewRequest();
  ASSERT_EQ(AddInput(request, &releases), nullptr);
  Completion completion{api};
  api->ServerInferAsync(request, &Completion::Complete, &completion);
  // A target may keep a copy of the tensor past the answer (it shares the
  // owner): the release waits for the last one.
  core::Tensor kept = submitter.request->inputs[0];
  submitter.Answer(core::InferResponse{});
  EXPECT_EQ(releases.count, 0);
  kept = core::Tensor{};
  EXPECT_EQ(releases.count, 1);
}

TEST_F(ServerApiCallsTest, ReleaseRunsOnceWhenTheServerFails) {
  Releases releases;
  INFERD_InferRequest* request = NewRequest();
  ASSERT_EQ(AddInput(request, &releases), nullptr);
  Completion completion{api};
  api->ServerInferAsync(request, &Completion::Complete, &completion);
  submitter.Answer(absl::NotFoundError("unknown model: 'target'"));
  EXPECT_EQ(releases.count, 1);
  EXPECT_EQ(completion.calls, 1);
}

TEST_F(ServerApiCallsTest, ReleaseRunsOnceOnDeleteOfAnUnsentRequest) {
  Releases first, second;
  INFERD_InferRequest* request = NewRequest();
  ASSERT_EQ(AddInput(request, &first), nullptr);
  ASSERT_EQ(AddInput(request, &second), nullptr);
  EXPECT_EQ(first.count + second.count, 0);
  api->InferRequestDelete(request);
  EXPECT_EQ(first.count, 1);
  EXPECT_EQ(second.count, 1);
  EXPECT_EQ(submitter.submitted, 0);
  api->InferRequestDelete(nullptr);  // does nothing
}

TEST_F(ServerApiCallsTest, ReleaseRunsOnceBeforeAddInputReturnsAnError) {
  INFERD_InferRequest* request = NewRequest();
  Releases null_shape, wrong_size, unknown_type, bad_bytes;
  INFERD_Error* error =
      api->InferRequestAddInput(request, "x", INFERD_TYPE_FP32, nullptr, 2, data.data(),
                                data.size() * sizeof(float), &Releases::Release, &null_shape);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(null_shape.count, 1);
  EXPECT_EQ(api->ErrorCode(error), INFERD_ERROR_INVALID_ARG);
  api->ErrorDelete(error);

  error =
      api->InferRequestAddInput(request, "x", INFERD_TYPE_FP32, shape.data(), shape.size(),
                                data.data(), 5 * sizeof(float), &Releases::Release, &wrong_size);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(wrong_size.count, 1);
  EXPECT_THAT(api->ErrorMessage(error), HasSubstr("has 20 bytes; shape [2,3] needs 24"));
  api->ErrorDelete(error);

  error = api->InferRequestAddInput(request, "x", static_cast<INFERD_DataType>(99), shape.data(),
                                    shape.size(), data.data(), data.size() * sizeof(float),
                                    &Releases::Release, &unknown_type);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(unknown_type.count, 1);
  EXPECT_THAT(api->ErrorMessage(error), HasSubstr("unknown datatype 99"));
  api->ErrorDelete(error);

  const std::string not_bytes(
      "\x05\x00\x00\x00"
      "ab",
      6);  // says 5 bytes, has 2
  const int64_t one = 1;
  error = api->InferRequestAddInput(request, "s", INFERD_TYPE_BYTES, &one, 1, not_bytes.data(),
                                    not_bytes.size(), &Releases::Release, &bad_bytes);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(bad_bytes.count, 1);
  api->ErrorDelete(error);

  // The request itself is still usable and holds none of them.
  Completion completion{api};
  api->ServerInferAsync(request, &Completion::Complete, &completion);
  EXPECT_TRUE(submitter.request->inputs.empty());
  submitter.Answer(core::InferResponse{});
}

TEST_F(ServerApiCallsTest, BytesInputAndNullRelease) {
  const std::string encoded =
      std::string("\x02\x00\x00\x00hi", 6) + std::string("\x00\x00\x00\x00", 4);
  const int64_t two = 2;
  INFERD_InferRequest* request = NewRequest();
  ASSERT_EQ(api->InferRequestAddInput(request, "s", INFERD_TYPE_BYTES, &two, 1, encoded.data(),
                                      encoded.size(), nullptr, nullptr),
            nullptr);
  Completion completion{api};
  api->ServerInferAsync(request, &Completion::Complete, &completion);
  EXPECT_EQ(static_cast<const void*>(submitter.request->inputs[0].data.data), encoded.data());
  submitter.Answer(core::InferResponse{});
}

TEST_F(ServerApiCallsTest, ParentCancellationAndDeadlineAreInherited) {
  const int64_t deadline = base::Clock::Real().NowNanos() + 5'000'000'000;
  auto parent = Parent(deadline);
  INFERD_InferRequest* request = NewRequest();
  api->InferRequestSetParent(request, parent.get());
  Completion completion{api};
  api->ServerInferAsync(request, &Completion::Complete, &completion);
  EXPECT_EQ(submitter.request->cancellation, parent->request().cancellation);
  EXPECT_EQ(submitter.request->deadline_nanos, deadline);
  EXPECT_FALSE(submitter.request->cancellation->IsCancelled());
  parent->request().cancellation->Cancel();  // the client went away
  EXPECT_TRUE(submitter.request->cancellation->IsCancelled());
  submitter.Answer(absl::CancelledError("request was cancelled by the client"));
  ASSERT_NE(completion.error, nullptr);
  EXPECT_EQ(api->ErrorCode(completion.error), INFERD_ERROR_CANCELLED);
  parent->Complete(absl::OkStatus());
}

TEST_F(ServerApiCallsTest, NullParentChangesNothing) {
  INFERD_InferRequest* request = NewRequest();
  api->InferRequestSetParent(request, nullptr);
  Completion completion{api};
  api->ServerInferAsync(request, &Completion::Complete, &completion);
  EXPECT_EQ(submitter.request->cancellation, nullptr);
  EXPECT_EQ(submitter.request->deadline_nanos, 0);
  submitter.Answer(core::InferResponse{});
}

// The deadline a request of `timeout_us` gets, with a parent whose deadline
// is `parent_deadline` (0: no parent); `before` and `after` bracket the send.
struct Sent {
  int64_t deadline, before, after;
};

class ServerApiTimeoutTest : public ServerApiCallsTest {
 protected:
  Sent Send(uint64_t timeout_us, int64_t parent_deadline) {
    auto parent = Parent(parent_deadline);
    INFERD_InferRequest* request = NewRequest();
    api->InferRequestSetTimeout(request, timeout_us);  // order does not matter
    if (parent_deadline != 0) api->InferRequestSetParent(request, parent.get());
    Completion completion{api};
    Sent sent;
    sent.before = base::Clock::Real().NowNanos();
    api->ServerInferAsync(request, &Completion::Complete, &completion);
    sent.after = base::Clock::Real().NowNanos();
    sent.deadline = submitter.request->deadline_nanos;
    submitter.Answer(core::InferResponse{});
    parent->Complete(absl::OkStatus());
    return sent;
  }
};

TEST_F(ServerApiTimeoutTest, TimeoutBecomesADeadlineFromTheSend) {
  const Sent sent = Send(250'000, 0);
  EXPECT_GE(sent.deadline, sent.before + 250'000'000);
  EXPECT_LE(sent.deadline, sent.after + 250'000'000);
}

TEST_F(ServerApiTimeoutTest, EarlierParentDeadlineWins) {
  const int64_t parent = base::Clock::Real().NowNanos() + 1'000'000;  // 1 ms
  EXPECT_EQ(Send(10'000'000, parent).deadline, parent);               // 10 s of its own
}

TEST_F(ServerApiTimeoutTest, EarlierTimeoutWins) {
  const int64_t parent = base::Clock::Real().NowNanos() + 60'000'000'000;  // 60 s
  const Sent sent = Send(1'000, parent);                                   // 1 ms
  EXPECT_GE(sent.deadline, sent.before + 1'000'000);
  EXPECT_LE(sent.deadline, sent.after + 1'000'000);
}

TEST_F(ServerApiTimeoutTest, ZeroTimeoutKeepsTheParentsDeadline) {
  const int64_t parent = base::Clock::Real().NowNanos() + 1'000'000'000;
  EXPECT_EQ(Send(0, parent).deadline, parent);
  EXPECT_EQ(Send(0, 0).deadline, 0);
}

TEST_F(ServerApiTimeoutTest, HugeTimeoutDoesNotWrapIntoThePast) {
  EXPECT_EQ(Send(std::numeric_limits<uint64_t>::max(), 0).deadline, 0);
  const int64_t parent = base::Clock::Real().NowNanos() + 1'000'000'000;
  EXPECT_EQ(Send(std::numeric_limits<uint64_t>::max(), parent).deadline, parent);
  const Sent large = Send(uint64_t{1} << 40, 0);  // ~12.7 days: representable
  EXPECT_GT(large.deadline, large.after);
}

TEST_F(ServerApiCallsTest, Parameters) {
  INFERD_InferRequest* request = NewRequest();
  api->InferRequestSetIntParameter(request, "priority", 2);
  api->InferRequestSetStringParameter(request, "tag", "from a backend");
  api->InferRequestSetBoolParameter(request, "flag", 7);
  api->InferRequestSetIntParameter(request, "sequence_id", 1);
  api->InferRequestSetIntParameter(request, "sequence_id", 42);  // replaces
  Completion completion{api};
  api->ServerInferAsync(request, &Completion::Complete, &completion);
  const core::Parameters& got = submitter.request->parameters;
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(std::get<int64_t>(got.at("priority")), 2);
  EXPECT_EQ(std::get<std::string>(got.at("tag")), "from a backend");
  EXPECT_EQ(std::get<bool>(got.at("flag")), true);
  EXPECT_EQ(std::get<int64_t>(got.at("sequence_id")), 42);
  submitter.Answer(core::InferResponse{});
}

TEST_F(ServerApiCallsTest, CompletionGetsTheResponseOnceWithItsOutputsUncopied) {
  Completion completion{api};
  api->ServerInferAsync(NewRequest(), &Completion::Complete, &completion);
  core::InferResponse response;
  response.model_name = "target";
  const std::vector<int32_t> values = {7, 8};
  response.outputs.push_back(core::Tensor{
      "y",
      core::DataType::kInt32,
      {1, 2},
      core::Buffer::Copy({reinterpret_cast<const char*>(values.data()), 2 * sizeof(int32_t)})});
  response.outputs.push_back(
      core::Tensor{"z", core::DataType::kBytes, {1}, core::Buffer::Copy({"\x01\x00\x00\x00q", 5})});
  const char* y_bytes = response.outputs[0].data.data;
  submitter.Answer(std::move(response));

  ASSERT_EQ(completion.calls, 1);
  EXPECT_EQ(completion.error, nullptr);
  ASSERT_NE(completion.response, nullptr);
  ASSERT_EQ(api->InferResponseOutputCount(completion.response), 2u);
  const char* name = nullptr;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  const int64_t* out_shape = nullptr;
  size_t shape_count = 0;
  const void* out_data = nullptr;
  size_t byte_size = 0;
  api->InferResponseOutput(completion.response, 0, &name, &datatype, &out_shape, &shape_count,
                           &out_data, &byte_size);
  EXPECT_STREQ(name, "y");
  EXPECT_EQ(datatype, INFERD_TYPE_INT32);
  ASSERT_EQ(shape_count, 2u);
  EXPECT_EQ(out_shape[0], 1);
  EXPECT_EQ(out_shape[1], 2);
  EXPECT_EQ(out_data, static_cast<const void*>(y_bytes));  // the server's bytes, not a copy
  EXPECT_EQ(byte_size, 8u);
  api->InferResponseOutput(completion.response, 1, &name, &datatype, &out_shape, &shape_count,
                           &out_data, &byte_size);
  EXPECT_STREQ(name, "z");
  EXPECT_EQ(datatype, INFERD_TYPE_BYTES);
  EXPECT_EQ(byte_size, 5u);
}

TEST_F(ServerApiCallsTest, CompletionGetsTheErrorOnce) {
  Completion completion{api};
  api->ServerInferAsync(NewRequest(), &Completion::Complete, &completion);
  submitter.Answer(absl::DeadlineExceededError("request deadline exceeded while queued"));
  ASSERT_EQ(completion.calls, 1);
  EXPECT_EQ(completion.response, nullptr);
  ASSERT_NE(completion.error, nullptr);
  EXPECT_EQ(api->ErrorCode(completion.error), INFERD_ERROR_DEADLINE_EXCEEDED);
  EXPECT_STREQ(api->ErrorMessage(completion.error), "request deadline exceeded while queued");
}

TEST_F(ServerApiCallsTest, ErrorHandedOnKeepsTheServersExactStatus) {
  Completion completion{api};
  api->ServerInferAsync(NewRequest(), &Completion::Complete, &completion);
  submitter.Answer(absl::ResourceExhaustedError("no room"));
  ASSERT_NE(completion.error, nullptr);
  EXPECT_EQ(api->ErrorCode(completion.error), INFERD_ERROR_INTERNAL);  // no code of its own
  const absl::Status status = TakeError(completion.error);             // as RequestComplete does
  completion.error = nullptr;
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(ServerApiCallsTest, NullCompletionDropsTheResult) {
  Releases releases;
  INFERD_InferRequest* request = NewRequest();
  ASSERT_EQ(AddInput(request, &releases), nullptr);
  api->ServerInferAsync(request, nullptr, nullptr);
  ASSERT_EQ(submitter.submitted, 1);
  submitter.Answer(core::InferResponse{});
  EXPECT_EQ(releases.count, 1);
}

TEST_F(ServerApiCallsTest, RequestWithoutServerFailsCleanly) {
  Releases releases;
  INFERD_InferRequest* request = api->InferRequestNew(nullptr, "target", -1);
  ASSERT_NE(request, nullptr);
  ASSERT_EQ(AddInput(request, &releases), nullptr);
  Completion completion{api};
  api->ServerInferAsync(request, &Completion::Complete, &completion);
  EXPECT_EQ(submitter.submitted, 0);
  ASSERT_EQ(completion.calls, 1);  // before ServerInferAsync returned
  EXPECT_EQ(completion.response, nullptr);
  ASSERT_NE(completion.error, nullptr);
  EXPECT_EQ(api->ErrorCode(completion.error), INFERD_ERROR_INVALID_ARG);
  EXPECT_THAT(api->ErrorMessage(completion.error), HasSubstr("'target' has no server"));
  EXPECT_EQ(releases.count, 1);
}

TEST_F(ServerApiCallsTest, ServerThatTakesNoRequestsFailsCleanly) {
  INFERD_Server no_submitter{nullptr};
  Releases releases;
  INFERD_InferRequest* request = api->InferRequestNew(&no_submitter, "target", -1);
  ASSERT_EQ(AddInput(request, &releases), nullptr);
  Completion completion{api};
  api->ServerInferAsync(request, &Completion::Complete, &completion);
  ASSERT_EQ(completion.calls, 1);
  EXPECT_EQ(api->ErrorCode(completion.error), INFERD_ERROR_UNSUPPORTED);
  EXPECT_EQ(releases.count, 1);
}

TEST_F(ServerApiCallsTest, NullRequestFailsCleanly) {
  Completion completion{api};
  api->ServerInferAsync(nullptr, &Completion::Complete, &completion);
  ASSERT_EQ(completion.calls, 1);
  EXPECT_EQ(api->ErrorCode(completion.error), INFERD_ERROR_INVALID_ARG);
}

TEST(ServerApiErrorsTest, CodeAndMessageRoundTrip) {
  const INFERD_ServerApi* api = ServerApi();
  for (INFERD_ErrorCode code :
       {INFERD_ERROR_UNKNOWN, INFERD_ERROR_INTERNAL, INFERD_ERROR_NOT_FOUND,
        INFERD_ERROR_INVALID_ARG, INFERD_ERROR_UNAVAILABLE, INFERD_ERROR_UNSUPPORTED,
        INFERD_ERROR_ALREADY_EXISTS, INFERD_ERROR_CANCELLED, INFERD_ERROR_DEADLINE_EXCEEDED}) {
    // Longer than std::string's inline buffer: a message re-made on each
    // call would move to a new allocation and leave the first pointer dangling.
    const std::string message =
        "a message long enough to live on the heap, code " + std::to_string(code);
    INFERD_Error* error = api->ErrorNew(code, message.c_str());
    EXPECT_EQ(api->ErrorCode(error), code);
    const char* first = api->ErrorMessage(error);
    EXPECT_EQ(std::string(first), message);
    // Asking again gives the same, still valid pointer.
    EXPECT_EQ(api->ErrorMessage(error), first);
    api->ErrorDelete(error);
  }
}

TEST(ServerApiErrorsTest, NullMessageAndNullError) {
  const INFERD_ServerApi* api = ServerApi();
  INFERD_Error* error = api->ErrorNew(INFERD_ERROR_INTERNAL, nullptr);
  EXPECT_STREQ(api->ErrorMessage(error), "");
  api->ErrorDelete(error);
  api->ErrorDelete(nullptr);
  EXPECT_STREQ(api->ErrorMessage(nullptr), "");
  EXPECT_EQ(api->ErrorCode(nullptr), INFERD_ERROR_UNKNOWN);
}

TEST(ServerApiErrorsTest, ErrorFromTheServerReadsBack) {
  INFERD_Error* error = NewError(absl::UnavailableError("model 'x' is not ready"));
  EXPECT_EQ(ServerApi()->ErrorCode(error), INFERD_ERROR_UNAVAILABLE);
  EXPECT_STREQ(ServerApi()->ErrorMessage(error), "model 'x' is not ready");
  EXPECT_EQ(TakeError(error).code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace inferd::backends
