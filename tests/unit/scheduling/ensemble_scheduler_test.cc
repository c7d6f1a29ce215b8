// SPDX-License-Identifier: Apache-2.0
// EnsembleScheduler over a fake InferenceSubmitter that records each step
// request and leaves it to the test to answer (from any thread): data-flow
// order, intermediate tensors passed on without a copy, pruning by the
// requested outputs, failure and cancellation answered exactly once.
// Labelled tsan: the race tests complete steps from several threads.
#include "scheduling/ensemble_scheduler.h"

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "backends/abi/backend_request.h"
#include "base/clock.h"
#include "base/mutex.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace inferd::scheduling {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kElements = 4;  // every tensor here is FP32 [4]

// Records the step requests; a test answers each with Complete().
class FakeSubmitter final : public core::InferenceSubmitter {
 public:
  void SubmitInternal(std::unique_ptr<core::InferRequest> request,
                      core::InferCallback on_complete) override {
    base::MutexLock lock(&mu_);
    calls_.push_back(std::make_unique<Call>(Call{std::move(request), std::move(on_complete)}));
  }

  size_t count() {
    base::MutexLock lock(&mu_);
    return calls_.size();
  }
  // The model of every step submitted so far, in submission order.
  std::vector<std::string> models() {
    base::MutexLock lock(&mu_);
    std::vector<std::string> names;
    for (const auto& call : calls_) names.push_back(call->request->model_name);
    return names;
  }
  // Waits until a step of `model` has been submitted; its request stays
  // valid (and unchanged) for the submitter's lifetime.
  const core::InferRequest& Await(const std::string& model) {
    base::MutexLock lock(&mu_);
    const Call* found = nullptr;
    mu_.Await([&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      found = FindLocked(model);
      return found != nullptr;
    });
    return *found->request;
  }
  bool Submitted(const std::string& model) {
    base::MutexLock lock(&mu_);
    return FindLocked(model) != nullptr;
  }
  // Answers the step of `model` (once), on the calling thread.
  void Complete(const std::string& model, absl::StatusOr<core::InferResponse> result) {
    core::InferCallback done;
    {
      base::MutexLock lock(&mu_);
      Call* call = FindLocked(model);
      ASSERT_NE(call, nullptr) << model;
      ASSERT_TRUE(call->done) << model << " was answered already";
      done = std::move(call->done);
      call->done = nullptr;
    }
    done(std::move(result));
  }
  // Answers with every requested output, each in a new buffer; returns the
  // buffers' data pointers by output name.
  std::map<std::string, const char*> Succeed(const std::string& model) {
    const core::InferRequest& request = Await(model);
    core::InferResponse response;
    response.model_name = model;
    response.model_version = 1;
    response.id = request.id;
    std::map<std::string, const char*> pointers;
    for (const auto& name : request.requested_outputs) {
      core::Tensor tensor{name,
                          core::DataType::kFp32,
                          {kElements},
                          core::Buffer::Own(std::string(kElements * sizeof(float), '\0'))};
      pointers[name] = tensor.data.data;
      response.outputs.push_back(std::move(tensor));
    }
    Complete(model, std::move(response));
    return pointers;
  }

 private:
  struct Call {
    std::unique_ptr<core::InferRequest> request;
    core::InferCallback done;
  };
  Call* FindLocked(const std::string& model) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (auto& call : calls_) {
      if (call->request->model_name == model) return call.get();
    }
    return nullptr;
  }

  base::Mutex mu_;
  std::vector<std::unique_ptr<Call>> calls_ ABSL_GUARDED_BY(mu_);
};

// What the ensemble request was answered, and how often.
class Answer {
 public:
  core::InferCallback Callback() {
    return [this](absl::StatusOr<core::InferResponse> result) {
      base::MutexLock lock(&mu_);
      ++calls_;
      result_ = std::move(result);
    };
  }
  int calls() {
    base::MutexLock lock(&mu_);
    return calls_;
  }
  absl::StatusOr<core::InferResponse> result() {
    base::MutexLock lock(&mu_);
    EXPECT_EQ(calls_, 1);
    return result_.value_or(absl::UnknownError("no answer"));
  }

 private:
  base::Mutex mu_;
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<absl::StatusOr<core::InferResponse>> result_ ABSL_GUARDED_BY(mu_);
};

// Composing models, none batching, every tensor FP32 [4]: "a", "b", "c"
// map X to Y; "j" joins X1 and X2 into Y; "h" takes X and an optional H.
std::shared_ptr<const inference::ModelConfig> Lookup(const std::string& model, int64_t) {
  std::string text;
  if (model == "a" || model == "b" || model == "c") {
    text = "input { name: 'X' data_type: TYPE_FP32 dims: [4] }";
  } else if (model == "j") {
    text =
        "input { name: 'X1' data_type: TYPE_FP32 dims: [4] } "
        "input { name: 'X2' data_type: TYPE_FP32 dims: [4] }";
  } else if (model == "h") {
    text =
        "input { name: 'X' data_type: TYPE_FP32 dims: [4] } "
        "input { name: 'H' data_type: TYPE_FP32 dims: [4] optional: true }";
  } else {
    return nullptr;
  }
  auto config = std::make_shared<inference::ModelConfig>();
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
      text + " output { name: 'Y' data_type: TYPE_FP32 dims: [4] }", config.get()));
  config->set_name(model);
  return config;
}

// a -> b (b pinned to version 3): IN -> t1 -> OUT.
constexpr char kChain[] = R"cfg(
  name: "e" platform: "ensemble"
  input { name: "IN" data_type: TYPE_FP32 dims: [4] }
  output { name: "OUT" data_type: TYPE_FP32 dims: [4] }
  ensemble_scheduling {
    step { model_name: "a" input_map { key: "X" value: "IN" } output_map { key: "Y" value: "t1" } }
    step { model_name: "b" model_version: 3 input_map { key: "X" value: "t1" }
           output_map { key: "Y" value: "OUT" } }
  })cfg";

// a feeds b and c; j joins them. c's result is also the output SIDE.
constexpr char kDiamond[] = R"cfg(
  name: "e" platform: "ensemble"
  input { name: "IN" data_type: TYPE_FP32 dims: [4] }
  output { name: "OUT" data_type: TYPE_FP32 dims: [4] }
  output { name: "SIDE" data_type: TYPE_FP32 dims: [4] }
  ensemble_scheduling {
    step { model_name: "a" input_map { key: "X" value: "IN" } output_map { key: "Y" value: "t1" } }
    step { model_name: "b" input_map { key: "X" value: "t1" } output_map { key: "Y" value: "t2" } }
    step { model_name: "c" input_map { key: "X" value: "t1" } output_map { key: "Y" value: "SIDE" } }
    step { model_name: "j" input_map { key: "X1" value: "t2" } input_map { key: "X2" value: "SIDE" }
           output_map { key: "Y" value: "OUT" } }
  })cfg";

// Two independent branches from the ensemble's input.
constexpr char kParallel[] = R"cfg(
  name: "e" platform: "ensemble"
  input { name: "IN" data_type: TYPE_FP32 dims: [4] }
  output { name: "OUT_B" data_type: TYPE_FP32 dims: [4] }
  output { name: "OUT_C" data_type: TYPE_FP32 dims: [4] }
  ensemble_scheduling {
    step { model_name: "b" input_map { key: "X" value: "IN" } output_map { key: "Y" value: "OUT_B" } }
    step { model_name: "c" input_map { key: "X" value: "IN" } output_map { key: "Y" value: "OUT_C" } }
  })cfg";

std::shared_ptr<const EnsembleGraph> Graph(const std::string& text) {
  inference::ModelConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config));
  auto graph = BuildEnsembleGraph(config, Lookup);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return graph.ok() ? *graph : nullptr;
}

struct RequestOptions {
  std::string id = "r1";
  // The outputs asked for; empty: every output of the ensemble.
  std::vector<std::string> outputs = {};
  std::shared_ptr<core::CancellationToken> cancellation = nullptr;
  int64_t deadline_nanos = 0;
  core::Parameters parameters = {};
};

// An ensemble request as the server builds it after validation; `input`
// receives the data pointer of its input IN.
std::unique_ptr<INFERD_Request> MakeRequest(const EnsembleGraph& graph, Answer& answer,
                                            RequestOptions options = {},
                                            const char** input = nullptr) {
  auto request = std::make_unique<core::InferRequest>();
  request->model_name = graph.name;
  request->id = options.id;
  request->parameters = options.parameters;
  request->cancellation = options.cancellation;
  request->deadline_nanos = options.deadline_nanos;
  core::Tensor in{"IN",
                  core::DataType::kFp32,
                  {kElements},
                  core::Buffer::Own(std::string(kElements * sizeof(float), '\1'))};
  if (input != nullptr) *input = in.data.data;
  request->inputs.push_back(std::move(in));
  auto io = std::make_shared<backends::ModelIO>();
  io->model_name = graph.name;
  io->model_version = 1;
  for (const auto& name : graph.output_names) {
    io->outputs.push_back({name, core::DataType::kFp32, {kElements}, false});
  }
  std::vector<std::string> outputs = options.outputs.empty() ? graph.output_names : options.outputs;
  request->requested_outputs = options.outputs;
  return std::make_unique<INFERD_Request>(std::move(request), answer.Callback(), std::move(io),
                                          std::move(outputs), 1, nullptr);
}

absl::Status StepError(absl::Status status, std::optional<std::string> version) {
  if (version) status.SetPayload(core::kModelVersionPayload, absl::Cord(*version));
  return status;
}

TEST(EnsembleSchedulerTest, ChainPassesIntermediateTensorsWithoutCopying) {
  const auto graph = Graph(kChain);
  FakeSubmitter submitter;
  EnsembleScheduler scheduler(graph, &submitter);
  Answer answer;
  const char* input = nullptr;
  scheduler.Submit(MakeRequest(*graph, answer, {.id = "req-7"}, &input));

  // Only a can start: b reads a's output.
  const core::InferRequest& a = submitter.Await("a");
  EXPECT_THAT(submitter.models(), ElementsAre("a"));
  EXPECT_EQ(a.model_version, "");
  EXPECT_EQ(a.id, "req-7");
  EXPECT_THAT(a.requested_outputs, ElementsAre("Y"));
  ASSERT_EQ(a.inputs.size(), 1u);
  EXPECT_EQ(a.inputs[0].name, "X");  // renamed to the step model's input
  EXPECT_EQ(a.inputs[0].data.data, input);

  const auto a_out = submitter.Succeed("a");
  const core::InferRequest& b = submitter.Await("b");
  EXPECT_EQ(b.model_version, "3");
  ASSERT_EQ(b.inputs.size(), 1u);
  EXPECT_EQ(b.inputs[0].name, "X");
  EXPECT_EQ(b.inputs[0].datatype, core::DataType::kFp32);
  EXPECT_THAT(b.inputs[0].shape, ElementsAre(kElements));
  EXPECT_EQ(b.inputs[0].data.data, a_out.at("Y"));  // the same bytes, not a copy
  EXPECT_EQ(answer.calls(), 0);

  const auto b_out = submitter.Succeed("b");
  const auto result = answer.result();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->model_name, "e");
  EXPECT_EQ(result->id, "req-7");
  ASSERT_EQ(result->outputs.size(), 1u);
  EXPECT_EQ(result->outputs[0].name, "OUT");
  EXPECT_THAT(result->outputs[0].shape, ElementsAre(kElements));
  EXPECT_EQ(result->outputs[0].data.data, b_out.at("Y"));
}

TEST(EnsembleSchedulerTest, IndependentBranchesAreSubmittedTogether) {
  const auto graph = Graph(kParallel);
  FakeSubmitter submitter;
  EnsembleScheduler scheduler(graph, &submitter);
  Answer answer;
  scheduler.Submit(MakeRequest(*graph, answer));
  EXPECT_THAT(submitter.models(), ElementsAre("b", "c"));
  submitter.Succeed("c");
  EXPECT_EQ(answer.calls(), 0);
  submitter.Succeed("b");
  const auto result = answer.result();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->outputs.size(), 2u);
  EXPECT_EQ(result->outputs[0].name, "OUT_B");
  EXPECT_EQ(result->outputs[1].name, "OUT_C");
}

TEST(EnsembleSchedulerTest, DiamondStartsEachStepWhenItsInputsExist) {
  const auto graph = Graph(kDiamond);
  FakeSubmitter submitter;
  EnsembleScheduler scheduler(graph, &submitter);
  Answer answer;
  // Both outputs, in the opposite order from the config's.
  scheduler.Submit(MakeRequest(*graph, answer, {.outputs = {"SIDE", "OUT"}}));
  EXPECT_THAT(submitter.models(), ElementsAre("a"));

  const auto a_out = submitter.Succeed("a");
  // b and c both wait for a only: both are out before either answers.
  EXPECT_THAT(submitter.models(), ElementsAre("a", "b", "c"));
  EXPECT_EQ(submitter.Await("b").inputs[0].data.data, a_out.at("Y"));
  EXPECT_EQ(submitter.Await("c").inputs[0].data.data, a_out.at("Y"));

  const auto c_out = submitter.Succeed("c");
  EXPECT_FALSE(submitter.Submitted("j"));  // still waits for b
  const auto b_out = submitter.Succeed("b");
  const core::InferRequest& j = submitter.Await("j");
  ASSERT_EQ(j.inputs.size(), 2u);
  EXPECT_EQ(j.inputs[0].name, "X1");
  EXPECT_EQ(j.inputs[0].data.data, b_out.at("Y"));
  EXPECT_EQ(j.inputs[1].name, "X2");
  EXPECT_EQ(j.inputs[1].data.data, c_out.at("Y"));
  EXPECT_EQ(answer.calls(), 0);

  const auto j_out = submitter.Succeed("j");
  const auto result = answer.result();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->outputs.size(), 2u);
  EXPECT_EQ(result->outputs[0].name, "SIDE");
  EXPECT_EQ(result->outputs[0].data.data, c_out.at("Y"));
  EXPECT_EQ(result->outputs[1].name, "OUT");
  EXPECT_EQ(result->outputs[1].data.data, j_out.at("Y"));
}

TEST(EnsembleSchedulerTest, RequestedOutputsPruneTheSteps) {
  const auto graph = Graph(kDiamond);
  FakeSubmitter submitter;
  EnsembleScheduler scheduler(graph, &submitter);
  Answer answer;
  scheduler.Submit(MakeRequest(*graph, answer, {.outputs = {"SIDE"}}));
  submitter.Succeed("a");
  EXPECT_THAT(submitter.models(), ElementsAre("a", "c"));  // b and j lead only to OUT
  const auto c_out = submitter.Succeed("c");
  const auto result = answer.result();
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->outputs.size(), 1u);
  EXPECT_EQ(result->outputs[0].name, "SIDE");
  EXPECT_EQ(result->outputs[0].data.data, c_out.at("Y"));
  EXPECT_THAT(submitter.models(), ElementsAre("a", "c"));
}

TEST(EnsembleSchedulerTest, OptionalInputNotGivenIsLeftOut) {
  const auto graph = Graph(R"cfg(
    name: "e" platform: "ensemble"
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    input { name: "HINT" data_type: TYPE_FP32 dims: [4] optional: true }
    output { name: "OUT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "h" input_map { key: "X" value: "IN" } input_map { key: "H" value: "HINT" }
             output_map { key: "Y" value: "OUT" } }
    })cfg");
  FakeSubmitter submitter;
  EnsembleScheduler scheduler(graph, &submitter);
  Answer answer;
  scheduler.Submit(MakeRequest(*graph, answer));
  const core::InferRequest& h = submitter.Await("h");
  ASSERT_EQ(h.inputs.size(), 1u);
  EXPECT_EQ(h.inputs[0].name, "X");
  submitter.Succeed("h");
  EXPECT_TRUE(answer.result().ok());
}

TEST(EnsembleSchedulerTest, FailingStepNamesEnsembleStepModelAndVersion) {
  const auto graph = Graph(kChain);
  struct Case {
    std::string step;
    std::optional<std::string> payload;
    std::string shown;
  };
  // The version the server chose, when it says; else the step's own, else
  // "newest ready".
  for (const Case& c :
       {Case{"a", "2", "step 1 ('a') failed: model 'a' version 2"},
        Case{"a", std::nullopt, "step 1 ('a') failed: model 'a' version newest ready"},
        Case{"b", std::nullopt, "step 2 ('b') failed: model 'b' version 3"},
        Case{"b", "3", "step 2 ('b') failed: model 'b' version 3"}}) {
    FakeSubmitter submitter;
    EnsembleScheduler scheduler(graph, &submitter);
    Answer answer;
    scheduler.Submit(MakeRequest(*graph, answer));
    if (c.step == "b") submitter.Succeed("a");
    submitter.Complete(c.step, StepError(absl::ResourceExhaustedError("queue full"), c.payload));
    const auto result = answer.result();
    ASSERT_FALSE(result.ok());
    EXPECT_TRUE(absl::IsResourceExhausted(result.status())) << result.status();
    EXPECT_EQ(result.status().message(), "ensemble 'e' " + c.shown + ": queue full");
    if (c.step == "a") {
      EXPECT_FALSE(submitter.Submitted("b"));
    }
  }
}

TEST(EnsembleSchedulerTest, LateResultsOfOtherBranchesAreIgnored) {
  const auto graph = Graph(kDiamond);
  for (const bool late_fails : {false, true}) {
    FakeSubmitter submitter;
    EnsembleScheduler scheduler(graph, &submitter);
    Answer answer;
    scheduler.Submit(MakeRequest(*graph, answer));
    submitter.Succeed("a");
    submitter.Complete("b", absl::InternalError("b broke"));
    // Answered at once, without waiting for c.
    EXPECT_EQ(answer.calls(), 1);
    if (late_fails) {
      submitter.Complete("c", absl::InternalError("c broke too"));
    } else {
      submitter.Succeed("c");
    }
    EXPECT_FALSE(submitter.Submitted("j"));
    const auto result = answer.result();  // still the one answer
    ASSERT_FALSE(result.ok());
    EXPECT_THAT(result.status().message(), HasSubstr("step 2 ('b')"));
    EXPECT_THAT(result.status().message(), HasSubstr("b broke"));
  }
}

// Steps answered from several threads at once, with failures and a
// cancellation mixed in: every run is answered exactly once, and j starts
// only when both its inputs exist.
TEST(EnsembleSchedulerTest, AnsweredExactlyOnceUnderRaces) {
  const auto graph = Graph(kDiamond);
  for (int run = 0; run < 300; ++run) {
    FakeSubmitter submitter;
    EnsembleScheduler scheduler(graph, &submitter);
    Answer answer;
    auto token = std::make_shared<core::CancellationToken>();
    scheduler.Submit(MakeRequest(*graph, answer, {.cancellation = token}));
    const bool b_fails = run % 3 == 1;
    const bool c_fails = run % 5 == 2;
    const bool cancel = run % 7 == 3;
    // a's answer launches b and c on its thread; once it returns, a step
    // not submitted never will be (a branch failed, or the cancellation
    // came first).
    std::atomic<bool> a_answered{false};
    std::thread first([&] {
      submitter.Succeed("a");
      a_answered.store(true);
    });
    auto answer_step = [&](const std::string& model, bool fails) {
      for (;;) {
        const bool settled = a_answered.load();
        if (submitter.Submitted(model)) break;
        if (settled) return;
        std::this_thread::yield();
      }
      if (fails) {
        submitter.Complete(model, absl::InternalError(model + " broke"));
      } else {
        submitter.Succeed(model);
      }
    };
    std::thread b_thread([&] { answer_step("b", b_fails); });
    std::thread c_thread([&] { answer_step("c", c_fails); });
    std::thread canceller([&] {
      if (cancel) token->Cancel();
    });
    first.join();
    b_thread.join();
    c_thread.join();
    canceller.join();
    if (submitter.Submitted("j")) {
      EXPECT_FALSE(b_fails || c_fails) << run;  // j needs both
      submitter.Succeed("j");
    } else if (!cancel && !b_fails && !c_fails) {
      ADD_FAILURE() << run << ": j never started";
    }
    ASSERT_EQ(answer.calls(), 1) << run;
    const auto result = answer.result();
    if (!b_fails && !c_fails && !cancel) {
      EXPECT_TRUE(result.ok()) << run << result.status();
    }
    if (result.ok()) {
      EXPECT_EQ(result->outputs.size(), 2u);
    } else {
      EXPECT_THAT(result.status().message(), HasSubstr("ensemble 'e' step ")) << run;
    }
  }
}

TEST(EnsembleSchedulerTest, CancellationStopsPendingSteps) {
  const auto graph = Graph(kChain);
  FakeSubmitter submitter;
  EnsembleScheduler scheduler(graph, &submitter);
  Answer answer;
  auto token = std::make_shared<core::CancellationToken>();
  scheduler.Submit(MakeRequest(*graph, answer, {.cancellation = token}));
  submitter.Await("a");
  token->Cancel();
  submitter.Succeed("a");  // a finished anyway; b must not start
  EXPECT_FALSE(submitter.Submitted("b"));
  const auto result = answer.result();
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::IsCancelled(result.status())) << result.status();
  EXPECT_EQ(result.status().message(),
            "ensemble 'e' step 2 ('b') failed: model 'b' version 3: the request was cancelled "
            "before this step started");

  // Cancelled before it arrived: no step is submitted at all.
  FakeSubmitter idle;
  EnsembleScheduler second(graph, &idle);
  Answer cancelled;
  auto gone = std::make_shared<core::CancellationToken>();
  gone->Cancel();
  second.Submit(MakeRequest(*graph, cancelled, {.cancellation = gone}));
  EXPECT_EQ(idle.count(), 0u);
  EXPECT_TRUE(absl::IsCancelled(cancelled.result().status()));
}

TEST(EnsembleSchedulerTest, DeadlinePassedBeforeAStepStarts) {
  const auto graph = Graph(kChain);
  FakeSubmitter submitter;
  EnsembleScheduler scheduler(graph, &submitter);
  Answer answer;
  scheduler.Submit(MakeRequest(*graph, answer, {.deadline_nanos = 1}));
  EXPECT_EQ(submitter.count(), 0u);
  const auto result = answer.result();
  EXPECT_TRUE(absl::IsDeadlineExceeded(result.status())) << result.status();
  EXPECT_THAT(result.status().message(), HasSubstr("step 1 ('a')"));
}

TEST(EnsembleSchedulerTest, StepsShareTheParentsTokenDeadlineAndParameters) {
  const auto graph = Graph(kChain);
  FakeSubmitter submitter;
  EnsembleScheduler scheduler(graph, &submitter);
  Answer answer;
  auto token = std::make_shared<core::CancellationToken>();
  const int64_t deadline = base::Clock::Real().NowNanos() + int64_t{3600} * 1'000'000'000;
  core::Parameters parameters{{"sequence_id", int64_t{42}}, {"priority", uint64_t{2}}};
  scheduler.Submit(
      MakeRequest(*graph, answer,
                  {.cancellation = token, .deadline_nanos = deadline, .parameters = parameters}));
  for (const std::string model : {"a", "b"}) {
    const core::InferRequest& step = submitter.Await(model);
    EXPECT_EQ(step.cancellation, token) << model;
    EXPECT_EQ(step.deadline_nanos, deadline) << model;
    EXPECT_EQ(step.parameters, parameters) << model;
    submitter.Succeed(model);
  }
  EXPECT_TRUE(answer.result().ok());
}

TEST(EnsembleSchedulerTest, StopRefusesNewRequestsAndLetsRunningOnesFinish) {
  const auto graph = Graph(kChain);
  FakeSubmitter submitter;
  EnsembleScheduler scheduler(graph, &submitter);
  Answer running;
  scheduler.Submit(MakeRequest(*graph, running));
  submitter.Await("a");
  scheduler.Stop();

  Answer refused;
  scheduler.Submit(MakeRequest(*graph, refused, {.id = "late"}));
  const auto result = refused.result();
  EXPECT_TRUE(absl::IsUnavailable(result.status())) << result.status();
  EXPECT_EQ(result.status().message(), "ensemble 'e' is being unloaded");
  EXPECT_THAT(submitter.models(), ElementsAre("a"));

  submitter.Succeed("a");
  submitter.Succeed("b");
  EXPECT_TRUE(running.result().ok());
}

TEST(EnsembleSchedulerTest, WithoutASubmitterRequestsFail) {
  const auto graph = Graph(kChain);
  EnsembleScheduler scheduler(graph, nullptr);
  Answer answer;
  scheduler.Submit(MakeRequest(*graph, answer));
  EXPECT_TRUE(absl::IsFailedPrecondition(answer.result().status()));
}

}  // namespace
}  // namespace inferd::scheduling
