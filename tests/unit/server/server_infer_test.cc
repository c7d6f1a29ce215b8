// SPDX-License-Identifier: Apache-2.0
// inferd::Server::InferAsync in process over the fake (identity) backend:
// round trips, version choice, every error path, and stopping.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "server_fixture.h"
#include "testing/infer_helpers.h"

namespace inferd {
namespace {

using core::DataType;
using testing::CallbackResult;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeTensor;

std::unique_ptr<core::InferRequest> Request(std::string model, std::vector<core::Tensor> inputs,
                                            std::string version = "") {
  auto request = std::make_unique<core::InferRequest>();
  request->model_name = std::move(model);
  request->model_version = std::move(version);
  request->inputs = std::move(inputs);
  return request;
}

core::Tensor Int32(std::string name, core::Shape shape, std::vector<int32_t> values) {
  return MakeTensor<int32_t>(std::move(name), DataType::kInt32, std::move(shape), values);
}

class ServerInferTest : public ServerTestBase {
 protected:
  // Runs `request` and returns what the callback received (exactly once).
  absl::StatusOr<core::InferResponse> Infer(std::unique_ptr<core::InferRequest> request) {
    CallbackResult result;
    server_->InferAsync(std::move(request), result.Callback());
    auto response = result.Wait();
    EXPECT_EQ(result.calls(), 1);
    return response;
  }
  std::unique_ptr<core::InferRequest> IdentityRequest() {
    auto request = Request(
        "identity", {Int32("INPUT0", {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}),
                     testing::MakeBytesTensor("INPUT1", {2, 2}, {"a", "", "long string", "z"})});
    request->id = "req-1";
    return request;
  }
};

TEST_F(ServerInferTest, RoundTrip) {
  auto response = Infer(IdentityRequest());
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->model_name, "identity");
  EXPECT_EQ(response->model_version, 1);
  EXPECT_EQ(response->id, "req-1");
  ASSERT_EQ(response->outputs.size(), 2u);  // every output, in config order
  const core::Tensor& out0 = response->outputs[0];
  EXPECT_EQ(out0.name, "OUTPUT0");
  EXPECT_EQ(out0.datatype, DataType::kInt32);
  EXPECT_THAT(out0.shape, ElementsAre(2, 4));
  EXPECT_THAT(testing::TensorValues<int32_t>(out0), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
  const core::Tensor& out1 = response->outputs[1];
  EXPECT_EQ(out1.name, "OUTPUT1");
  EXPECT_EQ(out1.datatype, DataType::kBytes);
  EXPECT_THAT(out1.shape, ElementsAre(2, 2));
  EXPECT_THAT(testing::DecodeBytes(out1.data.view()), ElementsAre("a", "", "long string", "z"));
}

TEST_F(ServerInferTest, RequestedOutputsInTheClientsOrder) {
  auto request = IdentityRequest();
  request->requested_outputs = {"OUTPUT1", "OUTPUT0"};
  auto response = Infer(std::move(request));
  ASSERT_TRUE(response.ok()) << response.status();
  ASSERT_EQ(response->outputs.size(), 2u);
  EXPECT_EQ(response->outputs[0].name, "OUTPUT1");
  EXPECT_EQ(response->outputs[1].name, "OUTPUT0");

  request = IdentityRequest();
  request->requested_outputs = {"OUTPUT0"};
  response = Infer(std::move(request));
  ASSERT_TRUE(response.ok()) << response.status();
  ASSERT_EQ(response->outputs.size(), 1u);
  EXPECT_EQ(response->outputs[0].name, "OUTPUT0");
}

TEST_F(ServerInferTest, AutoCompletedModel) {
  auto response = Infer(Request("auto", {Int32("INPUT0", {1, 4}, {9, 8, 7, 6})}));
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_THAT(testing::TensorValues<int32_t>(response->outputs[0]), ElementsAre(9, 8, 7, 6));
}

TEST_F(ServerInferTest, NonBatchingModel) {
  auto response = Infer(Request("plain", {Int32("INPUT0", {4}, {1, 1, 2, 3})}));
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_THAT(response->outputs[0].shape, ElementsAre(4));
}

TEST_F(ServerInferTest, ReshapedScalarsKeepTheClientShape) {
  auto response = Infer(
      Request("scalar", {MakeTensor<float>("X", DataType::kFp32, {3, 1}, {0.5f, 1.5f, 2.5f})}));
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_THAT(response->outputs[0].shape, ElementsAre(3, 1));  // the backend saw [3]
  EXPECT_THAT(testing::TensorValues<float>(response->outputs[0]), ElementsAre(0.5f, 1.5f, 2.5f));
}

TEST_F(ServerInferTest, VersionChoice) {
  auto newest = Infer(Request("versions", {Int32("INPUT0", {4}, {1, 2, 3, 4})}));
  ASSERT_TRUE(newest.ok()) << newest.status();
  EXPECT_EQ(newest->model_version, 2);  // 3 failed to load
  auto first = Infer(Request("versions", {Int32("INPUT0", {4}, {1, 2, 3, 4})}, "1"));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->model_version, 1);
}

TEST_F(ServerInferTest, UnknownModelOrVersionIsNotFound) {
  EXPECT_TRUE(absl::IsNotFound(Infer(Request("nope", {})).status()));
  EXPECT_TRUE(absl::IsNotFound(
      Infer(Request("plain", {Int32("INPUT0", {4}, {1, 2, 3, 4})}, "4")).status()));
  EXPECT_TRUE(absl::IsNotFound(
      Infer(Request("plain", {Int32("INPUT0", {4}, {1, 2, 3, 4})}, "v1")).status()));
}

TEST_F(ServerInferTest, NotReadyIsUnavailable) {
  auto broken = Infer(Request("broken", {Int32("INPUT0", {4}, {1, 2, 3, 4})}));
  EXPECT_TRUE(absl::IsUnavailable(broken.status()));
  EXPECT_THAT(std::string(broken.status().message()), HasSubstr("fail_load"));
  EXPECT_TRUE(absl::IsUnavailable(
      Infer(Request("versions", {Int32("INPUT0", {4}, {1, 2, 3, 4})}, "3")).status()));
}

TEST_F(ServerInferTest, InvalidRequestsAreRejectedBeforeTheBackend) {
  auto wrong_shape = Infer(Request("plain", {Int32("INPUT0", {5}, {1, 2, 3, 4, 5})}));
  EXPECT_TRUE(absl::IsInvalidArgument(wrong_shape.status()));
  EXPECT_THAT(std::string(wrong_shape.status().message()),
              HasSubstr("unexpected shape for input 'INPUT0' for model 'plain'"));
  auto missing = Infer(Request("identity", {Int32("INPUT0", {1, 4}, {1, 2, 3, 4})}));
  EXPECT_TRUE(absl::IsInvalidArgument(missing.status()));
  auto request = IdentityRequest();
  request->requested_outputs = {"NOPE"};
  EXPECT_TRUE(absl::IsInvalidArgument(Infer(std::move(request)).status()));
  request = IdentityRequest();
  request->parameters["triton_x"] = true;
  EXPECT_TRUE(absl::IsInvalidArgument(Infer(std::move(request)).status()));
}

TEST_F(ServerInferTest, BackendFailureReachesTheClient) {
  auto response = Infer(Request("failing", {Int32("INPUT0", {4}, {1, 2, 3, 4})}));
  EXPECT_TRUE(absl::IsInternal(response.status()));
  EXPECT_THAT(std::string(response.status().message()),
              HasSubstr("fake model 'failing' failed to execute"));
}

TEST_F(ServerInferTest, ConcurrentRequestsGetTheirOwnAnswers) {
  constexpr int kThreads = 4, kPerThread = 25;
  std::vector<std::unique_ptr<CallbackResult>> results(kThreads * kPerThread);
  for (auto& r : results) r = std::make_unique<CallbackResult>();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const int n = t * kPerThread + i;
        server_->InferAsync(Request("auto", {Int32("INPUT0", {1, 4}, {n, n + 1, n + 2, n + 3})}),
                            results[n]->Callback());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int n = 0; n < kThreads * kPerThread; ++n) {
    const auto& response = results[n]->Wait();
    ASSERT_TRUE(response.ok()) << response.status();
    EXPECT_THAT(testing::TensorValues<int32_t>(response->outputs[0]),
                ElementsAre(n, n + 1, n + 2, n + 3));
    EXPECT_EQ(results[n]->calls(), 1);
  }
}

TEST_F(ServerInferTest, StopAnswersAcceptedRequestsThenRefusesNewOnes) {
  std::vector<std::unique_ptr<CallbackResult>> accepted(20);
  for (auto& r : accepted) {
    r = std::make_unique<CallbackResult>();
    server_->InferAsync(IdentityRequest(), r->Callback());
  }
  server_->Stop();
  for (auto& r : accepted) {
    EXPECT_EQ(r->calls(), 1);  // Stop returns only after every accepted request was answered
    EXPECT_TRUE(r->Wait().ok()) << r->Wait().status();
  }
  auto after = Infer(IdentityRequest());
  EXPECT_TRUE(absl::IsUnavailable(after.status()));
  EXPECT_THAT(std::string(after.status().message()), HasSubstr("server is shutting down"));
}

// A decoupled model (docs/architecture.md, "Decoupled responses"): refused to
// a caller that takes one response, served to one that takes many.
class DecoupledServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::WriteFakeModel(
        repo_.path(),
        {"streamer", testing::FakeConfig(std::string(kSingleIO) +
                                         "\nmodel_transaction_policy { decoupled: true }")});
    auto server = Server::Create(TestOptions(repo_.path()));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }
  testing::TempDir repo_;
  std::unique_ptr<Server> server_;
};

TEST_F(DecoupledServerTest, UnaryCallerIsRefusedWithThePayloadFrontendsReword) {
  CallbackResult result;
  server_->InferAsync(Request("streamer", {Int32("INPUT0", {4}, {1, 2, 3, 4})}), result.Callback());
  const auto& response = result.Wait();
  EXPECT_TRUE(absl::IsUnimplemented(response.status()));
  EXPECT_THAT(std::string(response.status().message()), HasSubstr("'streamer' is decoupled"));
  EXPECT_TRUE(response.status().GetPayload(core::kDecoupledRefusalPayload).has_value());
  EXPECT_EQ(result.calls(), 1);
}

TEST_F(DecoupledServerTest, StreamingCallerGetsTheFinalResponseOnce) {
  CallbackResult result;
  int partial = 0;
  auto request = Request("streamer", {Int32("INPUT0", {4}, {1, 2, 3, 4})});
  request->on_partial_response = [&partial](absl::StatusOr<core::InferResponse>) { ++partial; };
  server_->InferAsync(std::move(request), result.Callback());
  const auto& response = result.Wait();
  ASSERT_TRUE(response.ok()) << response.status();
  // The fake backend completes with its outputs: one final response, no partials.
  EXPECT_FALSE(response->flags_only);
  EXPECT_THAT(testing::TensorValues<int32_t>(response->outputs[0]), ElementsAre(1, 2, 3, 4));
  EXPECT_EQ(partial, 0);
  EXPECT_EQ(result.calls(), 1);
}

}  // namespace
}  // namespace inferd
