// SPDX-License-Identifier: Apache-2.0
// A decoupled model through the embedding C API: the repeat backend's
// repeat_int32 (examples/backends/repeat) answers IN = [v0, v1, ...] with one
// response per value (OUT = v_i, IDX = i), then the final flag alone.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "capi_test_support.h"

namespace capi_test {
namespace {

class CapiDecoupledTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = NewServer({"repeat_int32"}).release(); }
  static void TearDownTestSuite() {
    INFERD_ServerDelete(server_);
    server_ = nullptr;
  }
  static INFERD_EmbeddedServer* server_;
};
INFERD_EmbeddedServer* CapiDecoupledTest::server_ = nullptr;

// IN values lent to a request with a release function: a decoupled backend
// may read its inputs until it hands the request back, after its final
// response (include/inferd/inferd.h, INFERD_InferRequestAddInput).
struct LentValues {
  std::vector<int32_t> values;
  std::mutex mu;
  std::condition_variable cv;
  bool lent = false;  // handed to a request, so its release will come
  bool released = false;

  explicit LentValues(std::vector<int32_t> v) : values(std::move(v)) {}
  ~LentValues() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return !lent || released; });
  }
  static void Release(void* context) {
    auto* self = static_cast<LentValues*>(context);
    std::lock_guard<std::mutex> lock(self->mu);
    self->released = true;
    self->cv.notify_all();
  }
};

INFERD_InferRequest* RepeatRequest(LentValues& lent) {
  INFERD_InferRequest* request = nullptr;
  EXPECT_C_OK(INFERD_InferRequestNew(&request, "repeat_int32", -1));
  const int64_t shape[1] = {static_cast<int64_t>(lent.values.size())};
  lent.lent = true;  // the release runs exactly once from here on, also on error
  EXPECT_C_OK(INFERD_InferRequestAddInput(request, "IN", INFERD_TYPE_INT32, shape, 1,
                                          lent.values.data(), lent.values.size() * sizeof(int32_t),
                                          &LentValues::Release, &lent));
  return request;
}

TEST_F(CapiDecoupledTest, EveryResponseThenTheFinalFlagAlone) {
  LentValues lent({7, -3, 42, 0});
  const std::vector<int32_t>& values = lent.values;
  Collector collector;
  ASSERT_C_OK(
      INFERD_ServerInferAsync(server_, RepeatRequest(lent), &Collector::OnResponse, &collector));
  collector.WaitFinal();
  std::lock_guard<std::mutex> lock(collector.mu);
  ASSERT_EQ(collector.calls.size(), values.size() + 1);
  for (size_t i = 0; i < values.size(); ++i) {
    const auto& call = collector.calls[i];
    EXPECT_EQ(call.flags, 0u) << i;
    EXPECT_EQ(call.error_code, -1) << call.error_message;
    ASSERT_NE(call.response, nullptr);
    const auto outputs = OutputsOf(call.response.get());
    ASSERT_EQ(outputs.size(), 2u);
    EXPECT_EQ(outputs[0].name, "OUT");
    EXPECT_EQ(*static_cast<const int32_t*>(outputs[0].data), values[i]);
    EXPECT_EQ(outputs[1].name, "IDX");
    EXPECT_EQ(*static_cast<const uint32_t*>(outputs[1].data), i);
  }
  const auto& last = collector.calls.back();
  EXPECT_EQ(last.flags, INFERD_RESPONSE_FLAG_FINAL);
  EXPECT_EQ(last.response, nullptr);  // the final flag alone
  EXPECT_EQ(last.error_code, -1);
  EXPECT_EQ(collector.calls_after_final, 0);
}

TEST_F(CapiDecoupledTest, NoValuesIsOnlyTheFinalFlag) {
  LentValues none({});
  Collector collector;
  ASSERT_C_OK(
      INFERD_ServerInferAsync(server_, RepeatRequest(none), &Collector::OnResponse, &collector));
  collector.WaitFinal();
  std::lock_guard<std::mutex> lock(collector.mu);
  ASSERT_EQ(collector.calls.size(), 1u);
  EXPECT_EQ(collector.calls[0].flags, INFERD_RESPONSE_FLAG_FINAL);
  EXPECT_EQ(collector.calls[0].response, nullptr);
}

TEST_F(CapiDecoupledTest, SyncInferRefusesADecoupledModel) {
  LentValues lent({1, 2});
  INFERD_InferResponse* none = nullptr;
  Error refused(INFERD_ServerInfer(server_, RepeatRequest(lent), &none));
  EXPECT_EQ(INFERD_ErrorGetCode(refused.get()), INFERD_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(INFERD_ErrorGetMessage(refused.get()))
                .find("doesn't support models with decoupled transaction policy"),
            std::string::npos)
      << INFERD_ErrorGetMessage(refused.get());
  EXPECT_EQ(none, nullptr);
}

TEST_F(CapiDecoupledTest, ManyStreamsAtOnce) {
  constexpr int kStreams = 8;
  std::vector<std::unique_ptr<LentValues>> lent;
  std::vector<Collector> collectors(kStreams);
  for (int s = 0; s < kStreams; ++s) {
    std::vector<int32_t> values;
    for (int i = 0; i <= s; ++i) values.push_back(100 * s + i);
    lent.push_back(std::make_unique<LentValues>(std::move(values)));
  }
  for (int s = 0; s < kStreams; ++s) {
    ASSERT_C_OK(INFERD_ServerInferAsync(server_, RepeatRequest(*lent[s]), &Collector::OnResponse,
                                        &collectors[s]));
  }
  for (int s = 0; s < kStreams; ++s) {
    collectors[s].WaitFinal();
    std::lock_guard<std::mutex> lock(collectors[s].mu);
    const auto& values = lent[s]->values;
    ASSERT_EQ(collectors[s].calls.size(), values.size() + 1) << s;
    for (size_t i = 0; i < values.size(); ++i) {
      const auto outputs = OutputsOf(collectors[s].calls[i].response.get());
      EXPECT_EQ(*static_cast<const int32_t*>(outputs[0].data), values[i]);
    }
  }
}

}  // namespace
}  // namespace capi_test
