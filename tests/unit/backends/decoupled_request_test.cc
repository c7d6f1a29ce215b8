// SPDX-License-Identifier: Apache-2.0
// Decoupled responses as the server implements them (INFERD_Request in
// src/backends/abi/backend_request.cc and ABI 1.4 in server_api.cc): every
// response but the last reaches on_partial_response, the last one reaches the
// InferCallback exactly once, RequestComplete after a final send only
// releases, and a model that is not decoupled cannot send. Also the request's
// correlation id and parameters as a backend reads them.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/abi/backend_request.h"
#include "backends/abi/server_api.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::backends {
namespace {

using ::testing::HasSubstr;

struct Recorded {
  std::vector<absl::StatusOr<core::InferResponse>> partial;
  std::vector<absl::StatusOr<core::InferResponse>> final;
};

class DecoupledRequestTest : public ::testing::Test {
 protected:
  const INFERD_ServerApi* api = ServerApi();
  Recorded recorded;
  std::shared_ptr<core::ModelStats> stats = std::make_shared<core::ModelStats>();

  // A request for a model with outputs OUT and IDX (INT32 [1] each).
  std::unique_ptr<INFERD_Request> NewRequest(bool decoupled, bool with_partial_sink = true) {
    auto request = std::make_unique<core::InferRequest>();
    request->model_name = "repeat";
    request->id = "req-7";
    if (with_partial_sink) {
      request->on_partial_response = [this](absl::StatusOr<core::InferResponse> r) {
        recorded.partial.push_back(std::move(r));
      };
    }
    auto io = std::make_shared<ModelIO>();
    io->model_name = "repeat";
    io->model_version = 3;
    io->decoupled = decoupled;
    io->stats = stats;
    io->outputs = {OutputSpec{"OUT", core::DataType::kInt32, {1}, false, false},
                   OutputSpec{"IDX", core::DataType::kInt32, {1}, false, false}};
    return std::make_unique<INFERD_Request>(
        std::move(request),
        [this](absl::StatusOr<core::InferResponse> r) { recorded.final.push_back(std::move(r)); },
        io, std::vector<std::string>{"OUT", "IDX"}, 1, nullptr);
  }

  INFERD_Error* AddOut(INFERD_Request* request, const char* name, int32_t value) {
    const int64_t shape[] = {1};
    auto* data = new int32_t(value);
    return api->ResponseAddOutput(
        request, name, INFERD_TYPE_INT32, shape, 1, data, sizeof(int32_t),
        [](void* p) { delete static_cast<int32_t*>(p); }, data);
  }
};

int32_t ValueOf(const core::Tensor& tensor) {
  return *reinterpret_cast<const int32_t*>(tensor.data.data);
}

TEST_F(DecoupledRequestTest, ResponsesStreamThenTheFinalFlagAlone) {
  auto* request = NewRequest(/*decoupled=*/true).release();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(AddOut(request, "OUT", 10 + i), nullptr);
    ASSERT_EQ(api->RequestSendResponse(request, nullptr, 0), nullptr);
  }
  EXPECT_TRUE(recorded.final.empty());
  api->RequestComplete(request, nullptr);

  ASSERT_EQ(recorded.partial.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(recorded.partial[i].ok());
    const auto& response = *recorded.partial[i];
    EXPECT_EQ(response.id, "req-7");
    EXPECT_EQ(response.model_version, 3);
    ASSERT_EQ(response.outputs.size(), 1u);  // only OUT was added: a subset is fine
    EXPECT_EQ(response.outputs[0].name, "OUT");
    EXPECT_EQ(ValueOf(response.outputs[0]), 10 + i);
    EXPECT_FALSE(response.flags_only);
  }
  ASSERT_EQ(recorded.final.size(), 1u);
  ASSERT_TRUE(recorded.final[0].ok());
  EXPECT_TRUE(recorded.final[0]->flags_only);
  EXPECT_TRUE(recorded.final[0]->outputs.empty());
  EXPECT_EQ(stats->Snapshot().success.count, 1u);
}

TEST_F(DecoupledRequestTest, FinalSendAnswersAtOnceAndCompleteOnlyReleases) {
  auto* request = NewRequest(true).release();
  ASSERT_EQ(AddOut(request, "OUT", 1), nullptr);
  ASSERT_EQ(AddOut(request, "IDX", 0), nullptr);
  ASSERT_EQ(api->RequestSendResponse(request, nullptr, INFERD_RESPONSE_FLAG_FINAL), nullptr);
  ASSERT_EQ(recorded.final.size(), 1u);
  ASSERT_TRUE(recorded.final[0].ok());
  EXPECT_FALSE(recorded.final[0]->flags_only);
  EXPECT_EQ(recorded.final[0]->outputs.size(), 2u);
  EXPECT_EQ(stats->Snapshot().success.count, 1u);

  // Nothing may follow the final response.
  INFERD_Error* late = api->RequestSendResponse(request, nullptr, 0);
  ASSERT_NE(late, nullptr);
  EXPECT_THAT(api->ErrorMessage(late), HasSubstr("already sent the final response"));
  api->ErrorDelete(late);

  api->RequestComplete(request, nullptr);
  EXPECT_EQ(recorded.final.size(), 1u);
  EXPECT_TRUE(recorded.partial.empty());
  EXPECT_EQ(stats->Snapshot().success.count, 1u);
}

TEST_F(DecoupledRequestTest, CompleteSendsPendingOutputsAsTheFinalResponse) {
  auto* request = NewRequest(true).release();
  ASSERT_EQ(AddOut(request, "OUT", 5), nullptr);
  api->RequestComplete(request, nullptr);
  ASSERT_EQ(recorded.final.size(), 1u);
  ASSERT_TRUE(recorded.final[0].ok());
  EXPECT_FALSE(recorded.final[0]->flags_only);
  ASSERT_EQ(recorded.final[0]->outputs.size(), 1u);
  EXPECT_EQ(ValueOf(recorded.final[0]->outputs[0]), 5);
}

TEST_F(DecoupledRequestTest, ErrorWithoutFinalFlagKeepsTheRequestOpen) {
  auto* request = NewRequest(true).release();
  ASSERT_EQ(AddOut(request, "OUT", 1), nullptr);  // dropped with the error
  INFERD_Error* error = api->ErrorNew(INFERD_ERROR_INVALID_ARG, "bad chunk");
  ASSERT_EQ(api->RequestSendResponse(request, error, 0), nullptr);
  ASSERT_EQ(AddOut(request, "OUT", 2), nullptr);
  ASSERT_EQ(api->RequestSendResponse(request, nullptr, 0), nullptr);
  api->RequestComplete(request, nullptr);

  ASSERT_EQ(recorded.partial.size(), 2u);
  EXPECT_TRUE(absl::IsInvalidArgument(recorded.partial[0].status()));
  EXPECT_THAT(recorded.partial[0].status().message(), HasSubstr("bad chunk"));
  ASSERT_TRUE(recorded.partial[1].ok());
  ASSERT_EQ(recorded.partial[1]->outputs.size(), 1u);
  EXPECT_EQ(ValueOf(recorded.partial[1]->outputs[0]), 2);
  ASSERT_EQ(recorded.final.size(), 1u);
  EXPECT_TRUE(recorded.final[0].ok());
}

TEST_F(DecoupledRequestTest, FinalErrorEndsTheRequestOnce) {
  auto* request = NewRequest(true).release();
  ASSERT_EQ(AddOut(request, "OUT", 1), nullptr);
  INFERD_Error* error = api->ErrorNew(INFERD_ERROR_INTERNAL, "model broke");
  ASSERT_EQ(api->RequestSendResponse(request, error, INFERD_RESPONSE_FLAG_FINAL), nullptr);
  api->RequestComplete(request, nullptr);
  ASSERT_EQ(recorded.final.size(), 1u);
  EXPECT_TRUE(absl::IsInternal(recorded.final[0].status()));
  EXPECT_TRUE(recorded.partial.empty());
  EXPECT_EQ(stats->Snapshot().fail.count, 1u);
}

TEST_F(DecoupledRequestTest, ResponsesWithoutASinkAreDropped) {
  // A warm-up request has nobody to take intermediate responses.
  auto* request = NewRequest(true, /*with_partial_sink=*/false).release();
  ASSERT_EQ(AddOut(request, "OUT", 1), nullptr);
  ASSERT_EQ(api->RequestSendResponse(request, nullptr, 0), nullptr);
  api->RequestComplete(request, nullptr);
  EXPECT_TRUE(recorded.partial.empty());
  ASSERT_EQ(recorded.final.size(), 1u);
  EXPECT_TRUE(recorded.final[0]->flags_only);
}

TEST_F(DecoupledRequestTest, ModelThatIsNotDecoupledCannotSend) {
  auto* request = NewRequest(/*decoupled=*/false).release();
  ASSERT_EQ(AddOut(request, "OUT", 1), nullptr);
  INFERD_Error* error = api->RequestSendResponse(request, nullptr, 0);
  ASSERT_NE(error, nullptr);
  EXPECT_THAT(api->ErrorMessage(error), HasSubstr("is not decoupled"));
  api->ErrorDelete(error);
  ASSERT_EQ(AddOut(request, "IDX", 2), nullptr);
  api->RequestComplete(request, nullptr);
  ASSERT_EQ(recorded.final.size(), 1u);
  ASSERT_TRUE(recorded.final[0].ok());
  EXPECT_EQ(recorded.final[0]->outputs.size(), 2u);
}

TEST_F(DecoupledRequestTest, OrdinaryModelStillNeedsEveryOutput) {
  auto* request = NewRequest(false).release();
  ASSERT_EQ(AddOut(request, "OUT", 1), nullptr);
  api->RequestComplete(request, nullptr);
  ASSERT_EQ(recorded.final.size(), 1u);
  EXPECT_THAT(recorded.final[0].status().message(), HasSubstr("did not produce output 'IDX'"));
}

TEST_F(DecoupledRequestTest, CorrelationIdNumericStringOrNone) {
  auto request = NewRequest(true);
  uint64_t id = 99;
  const char* text = "x";
  api->RequestCorrelationId(request.get(), &id, &text);
  EXPECT_EQ(id, 0u);
  EXPECT_EQ(text, nullptr);

  request->mutable_request().parameters["sequence_id"] = int64_t{42};
  api->RequestCorrelationId(request.get(), &id, &text);
  EXPECT_EQ(id, 42u);
  EXPECT_EQ(text, nullptr);

  request->mutable_request().parameters["sequence_id"] = uint64_t{1} << 63;
  api->RequestCorrelationId(request.get(), &id, &text);
  EXPECT_EQ(id, uint64_t{1} << 63);

  request->mutable_request().parameters["sequence_id"] = std::string("stream-a");
  api->RequestCorrelationId(request.get(), &id, &text);
  EXPECT_EQ(id, 0u);
  ASSERT_NE(text, nullptr);
  EXPECT_STREQ(text, "stream-a");
  request->Complete(absl::OkStatus());
}

TEST_F(DecoupledRequestTest, ParametersAsJson) {
  auto request = NewRequest(true);
  EXPECT_STREQ(api->RequestParametersJson(request.get()), "{}");
  request->Complete(absl::OkStatus());

  auto with = NewRequest(true);
  auto& parameters = with->mutable_request().parameters;
  parameters["a_bool"] = true;
  parameters["b_int"] = int64_t{-3};
  parameters["c_uint"] = uint64_t{7};
  parameters["d_double"] = 0.5;
  parameters["e_text"] = std::string("he said \"hi\"");
  parameters["f_bad"] = std::string("\xff\xfe");  // not UTF-8: left out
  EXPECT_STREQ(api->RequestParametersJson(with.get()),
               R"({"a_bool":true,"b_int":-3,"c_uint":7,"d_double":0.5,"e_text":"he said \"hi\""})");
  with->Complete(absl::OkStatus());
}

// The "server" for ServerInferAsyncDecoupled: keeps the request so the test
// plays the target model's responses.
class FakeSubmitter final : public core::InferenceSubmitter {
 public:
  void SubmitInternal(std::unique_ptr<core::InferRequest> r,
                      core::InferCallback on_complete) override {
    request = std::move(r);
    callback = std::move(on_complete);
  }
  std::unique_ptr<core::InferRequest> request;
  core::InferCallback callback;
};

struct StreamCalls {
  const INFERD_ServerApi* api = nullptr;
  struct Call {
    bool has_response;
    std::string error;
    uint32_t flags;
  };
  std::vector<Call> calls;
  static void OnResponse(void* context, INFERD_InferResponse* response, INFERD_Error* error,
                         uint32_t flags) {
    auto* self = static_cast<StreamCalls*>(context);
    self->calls.push_back(
        {response != nullptr, error == nullptr ? "" : self->api->ErrorMessage(error), flags});
    if (response != nullptr) self->api->InferResponseDelete(response);
    self->api->ErrorDelete(error);
  }
};

TEST_F(DecoupledRequestTest, ServerInferAsyncDecoupledDeliversEveryResponseThenFinal) {
  FakeSubmitter submitter;
  INFERD_Server server{&submitter};
  StreamCalls calls{api, {}};
  api->ServerInferAsyncDecoupled(api->InferRequestNew(&server, "repeat", -1),
                                 &StreamCalls::OnResponse, &calls);
  ASSERT_NE(submitter.request, nullptr);
  ASSERT_TRUE(submitter.request->on_partial_response);
  submitter.request->on_partial_response(core::InferResponse{});
  submitter.request->on_partial_response(absl::InvalidArgumentError("odd chunk"));
  core::InferResponse final;
  final.flags_only = true;
  submitter.callback(std::move(final));

  ASSERT_EQ(calls.calls.size(), 3u);
  EXPECT_TRUE(calls.calls[0].has_response);
  EXPECT_EQ(calls.calls[0].flags, 0u);
  EXPECT_FALSE(calls.calls[1].has_response);
  EXPECT_EQ(calls.calls[1].error, "odd chunk");
  EXPECT_EQ(calls.calls[1].flags, 0u);
  // The final flag alone: no response, no error.
  EXPECT_FALSE(calls.calls[2].has_response);
  EXPECT_EQ(calls.calls[2].error, "");
  EXPECT_EQ(calls.calls[2].flags, INFERD_RESPONSE_FLAG_FINAL);
}

TEST_F(DecoupledRequestTest, ServerInferAsyncDecoupledOnAnOrdinaryTargetGivesOneFinalResponse) {
  FakeSubmitter submitter;
  INFERD_Server server{&submitter};
  StreamCalls calls{api, {}};
  api->ServerInferAsyncDecoupled(api->InferRequestNew(&server, "simple", -1),
                                 &StreamCalls::OnResponse, &calls);
  submitter.callback(core::InferResponse{});
  ASSERT_EQ(calls.calls.size(), 1u);
  EXPECT_TRUE(calls.calls[0].has_response);
  EXPECT_EQ(calls.calls[0].flags, INFERD_RESPONSE_FLAG_FINAL);
}

TEST_F(DecoupledRequestTest, ServerInferAsyncDecoupledWithNullRequestFailsFinal) {
  StreamCalls calls{api, {}};
  api->ServerInferAsyncDecoupled(nullptr, &StreamCalls::OnResponse, &calls);
  ASSERT_EQ(calls.calls.size(), 1u);
  EXPECT_THAT(calls.calls[0].error, HasSubstr("NULL"));
  EXPECT_EQ(calls.calls[0].flags, INFERD_RESPONSE_FLAG_FINAL);
}

}  // namespace
}  // namespace inferd::backends
