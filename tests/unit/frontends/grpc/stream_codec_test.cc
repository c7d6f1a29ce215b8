// SPDX-License-Identifier: Apache-2.0
// The messages and the write order of a ModelStreamInfer stream.
#include "frontends/grpc/stream_response_codec.h"
#include "frontends/grpc/stream_write_queue.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace inferd::frontends::grpc {
namespace {

StreamRequestInfo Info(bool empty_final = false) { return {"req-7", "repeat", "", empty_final}; }

core::InferResponse Response(int32_t value) {
  core::InferResponse response;
  response.model_name = "repeat";
  response.model_version = 3;
  response.id = "req-7";
  std::string bytes(reinterpret_cast<const char*>(&value), sizeof(value));
  response.outputs.push_back(
      core::Tensor{"OUT", core::DataType::kInt32, {1}, core::Buffer::Own(std::move(bytes))});
  return response;
}

bool FinalFlag(const inference::ModelStreamInferResponse& message) {
  const auto& parameters = message.infer_response().parameters();
  const auto it = parameters.find(kFinalResponseParameter);
  EXPECT_NE(it, parameters.end());
  return it != parameters.end() && it->second.bool_param();
}

TEST(StreamResponseCodecTest, ResponseCarriesOutputsAndTheFinalFlag) {
  auto partial = EncodeStreamResult(Info(), Response(5), /*final=*/false);
  ASSERT_TRUE(partial.has_value());
  EXPECT_EQ(partial->error_message(), "");
  EXPECT_EQ(partial->infer_response().id(), "req-7");
  EXPECT_EQ(partial->infer_response().model_name(), "repeat");
  EXPECT_EQ(partial->infer_response().model_version(), "3");
  ASSERT_EQ(partial->infer_response().raw_output_contents_size(), 1);
  EXPECT_FALSE(FinalFlag(*partial));
  auto last = EncodeStreamResult(Info(), Response(6), /*final=*/true);
  ASSERT_TRUE(last.has_value());
  EXPECT_TRUE(FinalFlag(*last));
}

TEST(StreamResponseCodecTest, FinalFlagAloneIsWrittenOnlyWhenAskedFor) {
  core::InferResponse flags_only;
  flags_only.flags_only = true;
  EXPECT_FALSE(EncodeStreamResult(Info(false), flags_only, true).has_value());
  auto empty = EncodeStreamResult(Info(true), flags_only, true);
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->error_message(), "");
  EXPECT_EQ(empty->infer_response().id(), "req-7");
  EXPECT_EQ(empty->infer_response().model_name(), "repeat");
  EXPECT_EQ(empty->infer_response().outputs_size(), 0);
  EXPECT_TRUE(FinalFlag(*empty));
}

TEST(StreamResponseCodecTest, ErrorTravelsAsErrorMessageWithTheRequestId) {
  auto error = EncodeStreamResult(Info(), absl::InvalidArgumentError("bad input"), false);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->error_message(), "bad input");
  EXPECT_EQ(error->infer_response().id(), "req-7");
  EXPECT_EQ(error->infer_response().model_name(), "repeat");
  EXPECT_EQ(error->infer_response().outputs_size(), 0);
  EXPECT_FALSE(FinalFlag(*error));
  auto refusal = EncodeStreamRefusal("x", absl::InvalidArgumentError("undecodable"));
  EXPECT_EQ(refusal.error_message(), "undecodable");
  EXPECT_EQ(refusal.infer_response().id(), "x");
}

TEST(StreamResponseCodecTest, ReadsTheEmptyFinalResponseParameter) {
  inference::ModelInferRequest request;
  request.set_id("a");
  request.set_model_name("m");
  request.set_model_version("2");
  EXPECT_FALSE(StreamRequestInfoOf(request).enable_empty_final_response);
  (*request.mutable_parameters())[kEnableEmptyFinalResponse].set_bool_param(true);
  const StreamRequestInfo info = StreamRequestInfoOf(request);
  EXPECT_TRUE(info.enable_empty_final_response);
  EXPECT_EQ(info.id, "a");
  EXPECT_EQ(info.model_name, "m");
  EXPECT_EQ(info.model_version, "2");
}

StreamWriteQueue::Message Named(const std::string& id) {
  StreamWriteQueue::Message message;
  message.mutable_infer_response()->set_id(id);
  return message;
}

std::vector<std::string> Drain(StreamWriteQueue& queue) {
  std::vector<std::string> ids;
  while (auto message = queue.Next()) ids.push_back(message->infer_response().id());
  return ids;
}

TEST(StreamWriteQueueTest, OrderedAnswersLeaveInRequestOrder) {
  StreamWriteQueue queue;
  const uint64_t first = queue.ReserveOrdered();
  const uint64_t second = queue.ReserveOrdered();
  const uint64_t third = queue.ReserveOrdered();
  queue.FillOrdered(third, Named("c"));
  queue.FillOrdered(second, Named("b"));
  EXPECT_THAT(Drain(queue), ::testing::IsEmpty());  // "a" is not there yet
  EXPECT_FALSE(queue.Idle());
  EXPECT_GT(queue.queued_bytes(), 0u);
  queue.FillOrdered(first, Named("a"));
  EXPECT_THAT(Drain(queue), ::testing::ElementsAre("a", "b", "c"));
  EXPECT_TRUE(queue.Idle());
  EXPECT_EQ(queue.queued_bytes(), 0u);
}

TEST(StreamWriteQueueTest, DecoupledResponsesDoNotWaitForEarlierRequests) {
  StreamWriteQueue queue;
  const uint64_t ordinary = queue.ReserveOrdered();
  queue.Push(Named("d1"));
  queue.Push(Named("d2"));
  EXPECT_THAT(Drain(queue), ::testing::ElementsAre("d1", "d2"));
  EXPECT_FALSE(queue.Idle());                 // the ordinary answer is still due
  queue.FillOrdered(ordinary, std::nullopt);  // answered with nothing to write
  EXPECT_TRUE(queue.Idle());
}

TEST(StreamWriteQueueTest, ClearDropsEverythingAndLateFillsAreIgnored) {
  StreamWriteQueue queue;
  const uint64_t late = queue.ReserveOrdered();
  queue.Push(Named("x"));
  queue.Clear();
  EXPECT_TRUE(queue.Idle());
  EXPECT_EQ(queue.queued_bytes(), 0u);
  queue.FillOrdered(late, Named("late"));
  EXPECT_TRUE(queue.Idle());
  EXPECT_FALSE(queue.Next().has_value());
  const uint64_t next = queue.ReserveOrdered();  // places go on after a clear
  queue.FillOrdered(next, Named("y"));
  EXPECT_THAT(Drain(queue), ::testing::ElementsAre("y"));
}

}  // namespace
}  // namespace inferd::frontends::grpc
