// SPDX-License-Identifier: Apache-2.0
// Inference through the embedding C API: synchronous and asynchronous calls
// on ONNX Runtime's `simple`, borrowed inputs and their release, requested
// outputs, ids and parameters, every kind of error, and concurrent callers.
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "capi_test_support.h"

namespace capi_test {
namespace {

class CapiInferTest : public ::testing::Test {
 public:
  static INFERD_EmbeddedServer* SharedServer() { return server_; }

 protected:
  static void SetUpTestSuite() { server_ = NewServer({"simple"}).release(); }
  static void TearDownTestSuite() {
    INFERD_ServerDelete(server_);
    server_ = nullptr;
  }
  static INFERD_EmbeddedServer* server_;
};
INFERD_EmbeddedServer* CapiInferTest::server_ = nullptr;

TEST_F(CapiInferTest, SyncInferReadsOutputsAndReleasesInputsOnce) {
  SimpleInputs inputs(100);
  Request request = SimpleRequest(inputs);
  ASSERT_C_OK(INFERD_InferRequestSetId(request.get(), "req-7"));
  INFERD_InferResponse* raw = nullptr;
  ASSERT_C_OK(INFERD_ServerInfer(server_, request.release(), &raw));
  Response response(raw);
  ExpectSimpleOutputs(response.get(), inputs);
  const char* model = nullptr;
  const char* id = nullptr;
  int64_t version = 0;
  EXPECT_C_OK(INFERD_InferResponseModel(response.get(), &model, &version));
  EXPECT_C_OK(INFERD_InferResponseId(response.get(), &id));
  EXPECT_STREQ(model, "simple");
  EXPECT_EQ(version, 1);
  EXPECT_STREQ(id, "req-7");
  // Outputs are the server's buffers, not a copy of the inputs' memory.
  for (const Output& out : OutputsOf(response.get())) {
    EXPECT_NE(out.data, static_cast<const void*>(inputs.input0));
    EXPECT_NE(out.data, static_cast<const void*>(inputs.input1));
  }
  EXPECT_EQ(inputs.WaitReleased(2), 2);
}

TEST_F(CapiInferTest, RequestedOutputsComeInTheOrderAsked) {
  SimpleInputs inputs;
  Request request = SimpleRequest(inputs);
  ASSERT_C_OK(INFERD_InferRequestAddRequestedOutput(request.get(), "OUTPUT1"));
  INFERD_InferResponse* raw = nullptr;
  ASSERT_C_OK(INFERD_ServerInfer(server_, request.release(), &raw));
  Response response(raw);
  const auto outputs = OutputsOf(response.get());
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].name, "OUTPUT1");
  EXPECT_EQ(static_cast<const int32_t*>(outputs[0].data)[3], inputs.input0[3] - inputs.input1[3]);
  EXPECT_EQ(CodeOf(INFERD_InferResponseOutput(response.get(), 1, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(inputs.WaitReleased(2), 2);
}

TEST_F(CapiInferTest, AsyncInferCallsBackOnceWithTheFinalFlag) {
  SimpleInputs inputs(5);
  Collector collector;
  ASSERT_C_OK(INFERD_ServerInferAsync(server_, SimpleRequest(inputs).release(),
                                      &Collector::OnResponse, &collector));
  collector.WaitFinal();
  EXPECT_EQ(inputs.WaitReleased(2), 2);
  std::lock_guard<std::mutex> lock(collector.mu);
  ASSERT_EQ(collector.calls.size(), 1u);
  EXPECT_EQ(collector.calls[0].flags, INFERD_RESPONSE_FLAG_FINAL);
  EXPECT_EQ(collector.calls[0].error_code, -1);
  ASSERT_NE(collector.calls[0].response, nullptr);
  ExpectSimpleOutputs(collector.calls[0].response.get(), inputs);
}

TEST_F(CapiInferTest, ABatchOfTwoRows) {
  int32_t input0[2 * kElements], input1[2 * kElements];
  for (int i = 0; i < 2 * kElements; ++i) {
    input0[i] = i;
    input1[i] = 1000;
  }
  const int64_t shape[2] = {2, kElements};
  INFERD_InferRequest* request = nullptr;
  ASSERT_C_OK(INFERD_InferRequestNew(&request, "simple", 1));
  ASSERT_C_OK(INFERD_InferRequestAddInput(request, "INPUT0", INFERD_TYPE_INT32, shape, 2, input0,
                                          sizeof(input0), nullptr, nullptr));
  ASSERT_C_OK(INFERD_InferRequestAddInput(request, "INPUT1", INFERD_TYPE_INT32, shape, 2, input1,
                                          sizeof(input1), nullptr, nullptr));
  INFERD_InferResponse* raw = nullptr;
  ASSERT_C_OK(INFERD_ServerInfer(server_, request, &raw));
  Response response(raw);
  const auto outputs = OutputsOf(response.get());
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{2, kElements}));
  EXPECT_EQ(static_cast<const int32_t*>(outputs[0].data)[31], 31 + 1000);
}

TEST_F(CapiInferTest, ParametersAndTimeoutReachTheServer) {
  SimpleInputs inputs;
  Request request = SimpleRequest(inputs);
  EXPECT_C_OK(INFERD_InferRequestSetIntParameter(request.get(), "priority", 0));
  EXPECT_C_OK(INFERD_InferRequestSetStringParameter(request.get(), "note", "from C"));
  EXPECT_C_OK(INFERD_InferRequestSetBoolParameter(request.get(), "flag", 1));
  EXPECT_C_OK(INFERD_InferRequestSetTimeout(request.get(), UINT64_MAX));  // "forever"
  INFERD_InferResponse* raw = nullptr;
  ASSERT_C_OK(INFERD_ServerInfer(server_, request.release(), &raw));
  Response response(raw);
  ExpectSimpleOutputs(response.get(), inputs);

  // Triton refuses its own reserved parameter names from clients.
  Request reserved = SimpleRequest(inputs);
  EXPECT_C_OK(INFERD_InferRequestSetIntParameter(reserved.get(), "triton_x", 1));
  INFERD_InferResponse* none = nullptr;
  EXPECT_EQ(CodeOf(INFERD_ServerInfer(server_, reserved.release(), &none)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(inputs.WaitReleased(4), 4);
}

TEST_F(CapiInferTest, ErrorsNameWhatIsWrong) {
  SimpleInputs inputs;
  INFERD_InferResponse* none = nullptr;

  Error unknown(INFERD_ServerInfer(server_, SimpleRequest(inputs, "nope").release(), &none));
  EXPECT_EQ(INFERD_ErrorGetCode(unknown.get()), INFERD_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(INFERD_ErrorGetMessage(unknown.get())).find("nope"), std::string::npos);

  // An input the model does not have.
  INFERD_InferRequest* request = nullptr;
  ASSERT_C_OK(INFERD_InferRequestNew(&request, "simple", -1));
  const int64_t shape[2] = {1, kElements};
  ASSERT_C_OK(INFERD_InferRequestAddInput(request, "INPUT0", INFERD_TYPE_INT32, shape, 2,
                                          inputs.input0, sizeof(inputs.input0), nullptr, nullptr));
  ASSERT_C_OK(INFERD_InferRequestAddInput(request, "BOGUS", INFERD_TYPE_INT32, shape, 2,
                                          inputs.input1, sizeof(inputs.input1), nullptr, nullptr));
  Error bad_input(INFERD_ServerInfer(server_, request, &none));
  EXPECT_EQ(INFERD_ErrorGetCode(bad_input.get()), INFERD_ERROR_INVALID_ARG);
  EXPECT_NE(std::string(INFERD_ErrorGetMessage(bad_input.get())).find("BOGUS"), std::string::npos)
      << INFERD_ErrorGetMessage(bad_input.get());

  // A byte size that does not match the shape: refused at once, data released.
  SimpleInputs counted;
  ASSERT_C_OK(INFERD_InferRequestNew(&request, "simple", -1));
  Error wrong_size(INFERD_InferRequestAddInput(request, "INPUT0", INFERD_TYPE_INT32, shape, 2,
                                               counted.input0, sizeof(counted.input0) - 4,
                                               &SimpleInputs::Release, &counted));
  EXPECT_EQ(INFERD_ErrorGetCode(wrong_size.get()), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(counted.WaitReleased(1), 1);
  INFERD_InferRequestDelete(request);

  // A batch above max_batch_size (8): refused by the server's validation.
  std::vector<int32_t> big(9 * kElements, 1);
  const int64_t big_shape[2] = {9, kElements};
  ASSERT_C_OK(INFERD_InferRequestNew(&request, "simple", -1));
  for (const char* name : {"INPUT0", "INPUT1"}) {
    ASSERT_C_OK(INFERD_InferRequestAddInput(request, name, INFERD_TYPE_INT32, big_shape, 2,
                                            big.data(), big.size() * sizeof(int32_t), nullptr,
                                            nullptr));
  }
  Error too_big(INFERD_ServerInfer(server_, request, &none));
  EXPECT_EQ(INFERD_ErrorGetCode(too_big.get()), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(std::string(INFERD_ErrorGetMessage(too_big.get()))
                .rfind("inference request batch-size must be <= 8 for 'simple'", 0),
            0u)
      << INFERD_ErrorGetMessage(too_big.get());

  // A missing input.
  ASSERT_C_OK(INFERD_InferRequestNew(&request, "simple", -1));
  ASSERT_C_OK(INFERD_InferRequestAddInput(request, "INPUT0", INFERD_TYPE_INT32, shape, 2,
                                          inputs.input0, sizeof(inputs.input0), nullptr, nullptr));
  EXPECT_EQ(CodeOf(INFERD_ServerInfer(server_, request, &none)), INFERD_ERROR_INVALID_ARG);

  // An unknown version.
  ASSERT_C_OK(INFERD_InferRequestNew(&request, "simple", 9));
  EXPECT_EQ(CodeOf(INFERD_ServerInfer(server_, request, &none)), INFERD_ERROR_NOT_FOUND);
  EXPECT_EQ(none, nullptr);

  // The same errors reach an asynchronous caller through its callback, once.
  Collector collector;
  ASSERT_C_OK(INFERD_ServerInferAsync(server_, SimpleRequest(inputs, "nope").release(),
                                      &Collector::OnResponse, &collector));
  collector.WaitFinal();
  EXPECT_EQ(inputs.WaitReleased(4), 4);
  std::lock_guard<std::mutex> lock(collector.mu);
  ASSERT_EQ(collector.calls.size(), 1u);
  EXPECT_EQ(collector.calls[0].error_code, INFERD_ERROR_NOT_FOUND);
  EXPECT_EQ(collector.calls[0].response, nullptr);
  EXPECT_EQ(collector.calls[0].flags, INFERD_RESPONSE_FLAG_FINAL);
}

TEST_F(CapiInferTest, NullArgumentsAreInvalidAndNothingLeaks) {
  INFERD_InferRequest* request = nullptr;
  EXPECT_EQ(CodeOf(INFERD_InferRequestNew(nullptr, "simple", -1)), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferRequestNew(&request, nullptr, -1)), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferRequestNew(&request, "simple", -5)), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(request, nullptr);

  SimpleInputs inputs;
  const int64_t shape[2] = {1, kElements};
  // A NULL request still gives the lent data back.
  EXPECT_EQ(CodeOf(INFERD_InferRequestAddInput(nullptr, "INPUT0", INFERD_TYPE_INT32, shape, 2,
                                               inputs.input0, sizeof(inputs.input0),
                                               &SimpleInputs::Release, &inputs)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(inputs.WaitReleased(1), 1);
  ASSERT_C_OK(INFERD_InferRequestNew(&request, "simple", -1));
  Request owned(request);
  EXPECT_EQ(CodeOf(INFERD_InferRequestAddInput(request, nullptr, INFERD_TYPE_INT32, shape, 2,
                                               inputs.input0, sizeof(inputs.input0),
                                               &SimpleInputs::Release, &inputs)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferRequestAddInput(request, "INPUT0", INFERD_TYPE_INT32, nullptr, 2,
                                               inputs.input0, sizeof(inputs.input0),
                                               &SimpleInputs::Release, &inputs)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(
      CodeOf(INFERD_InferRequestAddInput(request, "INPUT0", INFERD_TYPE_INT32, shape, 2, nullptr,
                                         sizeof(inputs.input0), &SimpleInputs::Release, &inputs)),
      INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferRequestAddInput(request, "INPUT0", static_cast<INFERD_DataType>(99),
                                               shape, 2, inputs.input0, sizeof(inputs.input0),
                                               &SimpleInputs::Release, &inputs)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(inputs.WaitReleased(5), 5);
  EXPECT_EQ(CodeOf(INFERD_InferRequestSetId(request, nullptr)), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferRequestSetId(nullptr, "x")), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferRequestAddRequestedOutput(request, nullptr)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferRequestSetTimeout(nullptr, 5)), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferRequestSetIntParameter(request, nullptr, 1)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferRequestSetStringParameter(request, "k", nullptr)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferRequestSetBoolParameter(nullptr, "k", 1)), INFERD_ERROR_INVALID_ARG);

  // Sending with a NULL argument frees the request (its inputs released)
  // and calls nothing.
  SimpleInputs sent;
  INFERD_InferResponse* none = nullptr;
  EXPECT_EQ(CodeOf(INFERD_ServerInfer(nullptr, SimpleRequest(sent).release(), &none)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerInfer(server_, SimpleRequest(sent).release(), nullptr)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerInfer(server_, nullptr, &none)), INFERD_ERROR_INVALID_ARG);
  Collector collector;
  EXPECT_EQ(
      CodeOf(INFERD_ServerInferAsync(server_, SimpleRequest(sent).release(), nullptr, &collector)),
      INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerInferAsync(nullptr, SimpleRequest(sent).release(),
                                           &Collector::OnResponse, &collector)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(sent.WaitReleased(8), 8);
  EXPECT_TRUE(collector.calls.empty());

  EXPECT_EQ(CodeOf(INFERD_InferResponseOutputCount(nullptr, nullptr)), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_InferResponseModel(nullptr, nullptr, nullptr)), INFERD_ERROR_INVALID_ARG);
  INFERD_InferResponseDelete(nullptr);
  INFERD_InferRequestDelete(nullptr);
}

TEST_F(CapiInferTest, DeletingAnUnsentRequestReleasesItsInputs) {
  SimpleInputs inputs;
  Request request = SimpleRequest(inputs);
  EXPECT_EQ(inputs.released, 0);
  request.reset();
  EXPECT_EQ(inputs.WaitReleased(2), 2);
}

// One call each way, checked against its inputs (for the concurrency test).
bool SyncCallIsRight(SimpleInputs& inputs) {
  INFERD_InferResponse* raw = nullptr;
  if (Describe(INFERD_ServerInfer(CapiInferTest::SharedServer(), SimpleRequest(inputs).release(),
                                  &raw)) != "OK") {
    return false;
  }
  Response response(raw);
  const int32_t* sum = static_cast<const int32_t*>(OutputsOf(raw)[0].data);
  return sum[7] == inputs.input0[7] + inputs.input1[7];
}

bool AsyncCallIsRight(SimpleInputs& inputs) {
  Collector collector;
  if (Describe(INFERD_ServerInferAsync(CapiInferTest::SharedServer(),
                                       SimpleRequest(inputs).release(), &Collector::OnResponse,
                                       &collector)) != "OK") {
    return false;
  }
  collector.WaitFinal();
  std::lock_guard<std::mutex> lock(collector.mu);
  if (collector.calls.size() != 1 || !collector.calls[0].response) return false;
  const auto outputs = OutputsOf(collector.calls[0].response.get());
  return static_cast<const int32_t*>(outputs[1].data)[9] == inputs.input0[9] - inputs.input1[9];
}

TEST_F(CapiInferTest, ConcurrentCallersFromManyThreads) {
  constexpr int kThreads = 6;
  constexpr int kPerThread = 40;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &wrong] {
      for (int i = 0; i < kPerThread; ++i) {
        SimpleInputs inputs(t * 1000 + i);
        if (!(i % 2 == 0 ? SyncCallIsRight(inputs) : AsyncCallIsRight(inputs))) ++wrong;
        inputs.WaitReleased(2);  // before `inputs` goes out of scope
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);

  Json stats;
  ASSERT_C_OK(INFERD_ServerModelStatistics(server_, "simple", -1, &stats.text));
  EXPECT_NE(stats.str().find(R"("inference_count":)"), std::string::npos);
  EXPECT_EQ(stats.str().find(R"("inference_count":0,)"), std::string::npos) << stats.str();
}

}  // namespace
}  // namespace capi_test
