// SPDX-License-Identifier: Apache-2.0
// BuildEnsembleGraph: every validation rule, all problems in one message
// naming their steps, and the producer/consumer tables and StepsFor pruning
// that the ensemble scheduler runs on.
#include "scheduling/ensemble_graph.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace inferd::scheduling {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// Configs are protobuf text in raw strings delimited "cfg", not "pb":
// clang-format would reflow those.
inference::ModelConfig Parse(const std::string& text) {
  inference::ModelConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

// The composing models the tests' ensembles name. "fixed" and "flat" do
// not batch; the others take batches of up to 8.
const std::map<std::string, std::string>& ComposingTexts() {
  static const auto* const texts = new std::map<std::string, std::string>{
      {"pre", R"cfg(
        name: "pre" max_batch_size: 8
        input { name: "RAW" data_type: TYPE_FP32 dims: [4] }
        input { name: "HINT" data_type: TYPE_INT32 dims: [1] optional: true }
        output { name: "PRE_OUT" data_type: TYPE_FP32 dims: [4] })cfg"},
      {"det", R"cfg(
        name: "det" max_batch_size: 8
        input { name: "IMG" data_type: TYPE_FP32 dims: [4] }
        output { name: "BOXES" data_type: TYPE_FP32 dims: [4] })cfg"},
      {"cls", R"cfg(
        name: "cls" max_batch_size: 8
        input { name: "IMG" data_type: TYPE_FP32 dims: [4] }
        output { name: "LABEL" data_type: TYPE_INT32 dims: [1] })cfg"},
      {"join", R"cfg(
        name: "join" max_batch_size: 8
        input { name: "A" data_type: TYPE_FP32 dims: [4] }
        input { name: "B" data_type: TYPE_INT32 dims: [1] }
        output { name: "OUT" data_type: TYPE_FP32 dims: [4] })cfg"},
      {"mix", R"cfg(
        name: "mix" max_batch_size: 8
        input { name: "X" data_type: TYPE_FP32 dims: [4] }
        input { name: "Y" data_type: TYPE_FP32 dims: [4] }
        output { name: "P" data_type: TYPE_FP32 dims: [4] }
        output { name: "Q" data_type: TYPE_FP32 dims: [4] })cfg"},
      {"any", R"cfg(
        name: "any" max_batch_size: 8
        input { name: "IMG" data_type: TYPE_FP32 dims: [-1] }
        output { name: "BOXES" data_type: TYPE_FP32 dims: [-1] })cfg"},
      {"fixed", R"cfg(
        name: "fixed" max_batch_size: 0
        input { name: "X" data_type: TYPE_FP32 dims: [2, 4] }
        output { name: "Y" data_type: TYPE_FP32 dims: [2, 4] })cfg"},
      {"flat", R"cfg(
        name: "flat" max_batch_size: 0
        input { name: "X" data_type: TYPE_FP32 dims: [4] }
        output { name: "Y" data_type: TYPE_FP32 dims: [4] })cfg"},
      {"streamer", R"cfg(
        name: "streamer" max_batch_size: 8
        model_transaction_policy { decoupled: true }
        input { name: "IMG" data_type: TYPE_FP32 dims: [4] }
        output { name: "BOXES" data_type: TYPE_FP32 dims: [4] })cfg"},
  };
  return *texts;
}

// Finds the composing models above. Version 7 of any of them failed to
// load; "null" is looked up without a reason; every other version is the
// same config.
absl::StatusOr<std::shared_ptr<const inference::ModelConfig>> Lookup(const std::string& model,
                                                                     int64_t version) {
  if (model == "null") return nullptr;
  const auto it = ComposingTexts().find(model);
  if (it == ComposingTexts().end()) return absl::NotFoundError("no repository has it");
  if (version == 7) return absl::UnavailableError("version 7 failed to load: bad weights");
  return std::make_shared<const inference::ModelConfig>(Parse(it->second));
}

absl::StatusOr<std::shared_ptr<const EnsembleGraph>> Build(const std::string& text) {
  return BuildEnsembleGraph(Parse(text), Lookup);
}

// The problems of an invalid ensemble, without the "ensemble 'e' is
// invalid: " prefix; "" when it is valid.
std::string Problems(const std::string& text) {
  const auto built = Build(text);
  if (built.ok()) return "";
  EXPECT_TRUE(absl::IsInvalidArgument(built.status())) << built.status();
  const std::string message(built.status().message());
  const std::string prefix = "ensemble 'e' is invalid: ";
  EXPECT_EQ(message.substr(0, prefix.size()), prefix) << message;
  return message.substr(std::min(prefix.size(), message.size()));
}

// pre -> det: IN -> mid -> RESULT.
constexpr char kChain[] = R"cfg(
  name: "e" platform: "ensemble" max_batch_size: 4
  input { name: "IN" data_type: TYPE_FP32 dims: [4] }
  output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
  ensemble_scheduling {
    step { model_name: "pre" input_map { key: "RAW" value: "IN" }
           output_map { key: "PRE_OUT" value: "mid" } }
    step { model_name: "det" model_version: 3 input_map { key: "IMG" value: "mid" }
           output_map { key: "BOXES" value: "RESULT" } }
  })cfg";

// pre feeds det and cls, whose results join combines; cls's label is also
// an ensemble output.
constexpr char kDiamond[] = R"cfg(
  name: "e" platform: "ensemble" max_batch_size: 4
  input { name: "IN" data_type: TYPE_FP32 dims: [4] }
  output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
  output { name: "label" data_type: TYPE_INT32 dims: [1] }
  ensemble_scheduling {
    step { model_name: "pre" input_map { key: "RAW" value: "IN" }
           output_map { key: "PRE_OUT" value: "mid" } }
    step { model_name: "det" input_map { key: "IMG" value: "mid" }
           output_map { key: "BOXES" value: "boxes" } }
    step { model_name: "cls" input_map { key: "IMG" value: "mid" }
           output_map { key: "LABEL" value: "label" } }
    step { model_name: "join" input_map { key: "A" value: "boxes" }
           input_map { key: "B" value: "label" }
           output_map { key: "OUT" value: "RESULT" } }
  })cfg";

int T(const EnsembleGraph& graph, const std::string& name) {
  const int t = graph.FindTensor(name);
  EXPECT_GE(t, 0) << name;
  return t;
}

TEST(EnsembleGraphTest, ValidChain) {
  const auto built = Build(kChain);
  ASSERT_TRUE(built.ok()) << built.status();
  const EnsembleGraph& graph = **built;
  EXPECT_EQ(graph.name, "e");
  ASSERT_EQ(graph.steps.size(), 2u);
  EXPECT_EQ(graph.steps[0].label, "step 1 ('pre')");
  EXPECT_EQ(graph.steps[1].label, "step 2 ('det')");
  EXPECT_EQ(graph.steps[0].model_name, "pre");
  EXPECT_EQ(graph.steps[0].model_version, "");  // the newest ready
  EXPECT_EQ(graph.steps[1].model_version, "3");

  const int in = T(graph, "IN"), mid = T(graph, "mid"), result = T(graph, "RESULT");
  EXPECT_EQ(graph.producer[in], -1);
  EXPECT_EQ(graph.producer[mid], 0);
  EXPECT_EQ(graph.producer[result], 1);
  EXPECT_THAT(graph.consumers[in], ElementsAre(0));
  EXPECT_THAT(graph.consumers[mid], ElementsAre(1));
  EXPECT_THAT(graph.consumers[result], IsEmpty());
  EXPECT_THAT(graph.inputs, ElementsAre(in));
  EXPECT_THAT(graph.outputs, ElementsAre(result));
  EXPECT_THAT(graph.output_names, ElementsAre("RESULT"));
  EXPECT_EQ(graph.FindTensor("nope"), -1);

  ASSERT_EQ(graph.steps[0].inputs.size(), 1u);
  EXPECT_EQ(graph.steps[0].inputs[0].model_tensor, "RAW");
  EXPECT_EQ(graph.steps[0].inputs[0].tensor, in);
  ASSERT_EQ(graph.steps[1].outputs.size(), 1u);
  EXPECT_EQ(graph.steps[1].outputs[0].model_tensor, "BOXES");
  EXPECT_EQ(graph.steps[1].outputs[0].tensor, result);
  EXPECT_THAT(graph.steps[1].output_names, ElementsAre("BOXES"));

  EXPECT_THAT(graph.StepsFor(graph.outputs), ElementsAre(true, true));
  EXPECT_THAT(graph.StepsFor({mid}), ElementsAre(true, false));
}

TEST(EnsembleGraphTest, ValidDiamond) {
  const auto built = Build(kDiamond);
  ASSERT_TRUE(built.ok()) << built.status();
  const EnsembleGraph& graph = **built;
  const int mid = T(graph, "mid"), boxes = T(graph, "boxes"), label = T(graph, "label"),
            result = T(graph, "RESULT"), in = T(graph, "IN");
  EXPECT_EQ(graph.producer[mid], 0);
  EXPECT_THAT(graph.consumers[mid], ElementsAre(1, 2));
  EXPECT_EQ(graph.producer[boxes], 1);
  EXPECT_EQ(graph.producer[label], 2);
  EXPECT_THAT(graph.consumers[boxes], ElementsAre(3));
  EXPECT_THAT(graph.consumers[label], ElementsAre(3));
  EXPECT_EQ(graph.producer[result], 3);
  EXPECT_THAT(graph.outputs, ElementsAre(result, label));
  EXPECT_THAT(graph.output_names, ElementsAre("RESULT", "label"));
  // Bindings in map-key order: A, then B.
  ASSERT_EQ(graph.steps[3].inputs.size(), 2u);
  EXPECT_EQ(graph.steps[3].inputs[0].model_tensor, "A");
  EXPECT_EQ(graph.steps[3].inputs[1].model_tensor, "B");

  EXPECT_THAT(graph.StepsFor(graph.outputs), ElementsAre(true, true, true, true));
  EXPECT_THAT(graph.StepsFor({result}), ElementsAre(true, true, true, true));
  EXPECT_THAT(graph.StepsFor({label}), ElementsAre(true, false, true, false));
  EXPECT_THAT(graph.StepsFor({boxes}), ElementsAre(true, true, false, false));
  EXPECT_THAT(graph.StepsFor({in}), ElementsAre(false, false, false, false));
  EXPECT_THAT(graph.StepsFor({-1}), ElementsAre(false, false, false, false));
  EXPECT_THAT(graph.StepsFor({}), ElementsAre(false, false, false, false));
}

// Steps may be listed in any order; a reader seen before its writer is
// still checked (here: join first, pre last).
TEST(EnsembleGraphTest, StepOrderDoesNotMatter) {
  const std::string reordered = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "join" input_map { key: "A" value: "boxes" }
             input_map { key: "B" value: "label" }
             output_map { key: "OUT" value: "RESULT" } }
      step { model_name: "cls" input_map { key: "IMG" value: "mid" }
             output_map { key: "LABEL" value: "label" } }
      step { model_name: "det" input_map { key: "IMG" value: "mid" }
             output_map { key: "BOXES" value: "boxes" } }
      step { model_name: "pre" input_map { key: "RAW" value: "IN" }
             output_map { key: "PRE_OUT" value: "mid" } }
    })cfg";
  const auto built = Build(reordered);
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ((*built)->producer[T(**built, "mid")], 3);
  EXPECT_THAT((*built)->StepsFor((*built)->outputs), ElementsAre(true, true, true, true));

  // join reads "label" as INT32; cls is swapped for det, which writes FP32
  // [4] into it, before anyone wrote it.
  std::string mismatched = reordered;
  mismatched.replace(mismatched.find("\"cls\""), 5, "\"det\"");
  mismatched.replace(mismatched.find("\"LABEL\""), 7, "\"BOXES\"");
  EXPECT_EQ(Problems(mismatched),
            "ensemble tensor 'label' is written as TYPE_FP32 [-1,4] (step 2 ('det') output "
            "'BOXES') but read as TYPE_INT32 [-1,1] (step 1 ('join') input 'B')");
}

TEST(EnsembleGraphTest, UnknownComposingModel) {
  std::string text = kChain;
  text.replace(text.find("\"det\""), 5, "\"nope\"");
  // Only the one problem, with the lookup's reason: the unknown step's input
  // still counts as read (no "'mid' is never read"), its output as written,
  // and it is not mistaken for a step on a cycle.
  EXPECT_EQ(Problems(text),
            "step 2 ('nope'): model 'nope' version 3 is not loaded (no repository has it)");

  text = kChain;
  text.replace(text.find("model_version: 3"), 16, "model_version: 7");
  EXPECT_EQ(Problems(text),
            "step 2 ('det'): model 'det' version 7 is not loaded (version 7 failed to load: bad "
            "weights)");

  text = kChain;
  text.replace(text.find("\"pre\""), 5, "\"null\"");
  EXPECT_EQ(Problems(text), "step 1 ('null'): model 'null' is not loaded");
}

TEST(EnsembleGraphTest, DecoupledStepIsRefusedSayingWhatToDoInstead) {
  std::string text = kChain;
  text.replace(text.find("\"det\""), 5, "\"streamer\"");
  EXPECT_THAT(Problems(text), HasSubstr("step 2 ('streamer'): model 'streamer' is decoupled"));
  EXPECT_THAT(Problems(text), HasSubstr("exec(decoupled=True)"));
}

TEST(EnsembleGraphTest, InputMapKeyThatIsNotAnInput) {
  std::string text = kChain;
  text.replace(text.find("\"IMG\""), 5, "\"PICTURE\"");
  // The misnamed key is one problem; the model's input it should have been
  // is then unmapped. "mid" is still read, and step 2 is on no cycle.
  EXPECT_EQ(Problems(text),
            "step 2 ('det'): input_map names 'PICTURE', which is not an input of 'det'; "
            "step 2 ('det'): input 'IMG' of 'det' is not mapped (input_map)");
}

TEST(EnsembleGraphTest, OutputMapKeyThatIsNotAnOutput) {
  std::string text = kChain;
  text.replace(text.find("\"PRE_OUT\""), 9, "\"OUTPUT0\"");
  // "mid" still counts as written: no second report.
  EXPECT_EQ(Problems(text),
            "step 1 ('pre'): output_map names 'OUTPUT0', which is not an output of 'pre'");
}

TEST(EnsembleGraphTest, RequiredInputMustBeMappedOptionalNeedNot) {
  // kChain leaves pre's optional HINT out: valid.
  EXPECT_EQ(Problems(kChain), "");
  const std::string text = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "mix" input_map { key: "X" value: "IN" }
             output_map { key: "P" value: "RESULT" } }
    })cfg";
  EXPECT_EQ(Problems(text), "step 1 ('mix'): input 'Y' of 'mix' is not mapped (input_map)");
}

TEST(EnsembleGraphTest, EmptyMaps) {
  const std::string text = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "det" input_map { key: "IMG" value: "IN" }
             output_map { key: "BOXES" value: "RESULT" } }
      step { model_name: "flat" }
    })cfg";
  EXPECT_EQ(Problems(text),
            "step 2 ('flat'): 'input_map' is empty; step 2 ('flat'): 'output_map' is empty; "
            "step 2 ('flat'): input 'X' of 'flat' is not mapped (input_map)");
}

TEST(EnsembleGraphTest, TensorWrittenTwice) {
  const std::string text = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "pre" input_map { key: "RAW" value: "IN" }
             output_map { key: "PRE_OUT" value: "RESULT" } }
      step { model_name: "det" input_map { key: "IMG" value: "IN" }
             output_map { key: "BOXES" value: "RESULT" } }
    })cfg";
  EXPECT_EQ(Problems(text),
            "ensemble tensor 'RESULT' is written twice: by step 1 ('pre') and by step 2 ('det')");

  // An ensemble input is written by the ensemble itself.
  const std::string onto_input = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "pre" input_map { key: "RAW" value: "IN" }
             output_map { key: "PRE_OUT" value: "RESULT" } }
      step { model_name: "det" input_map { key: "IMG" value: "RESULT" }
             output_map { key: "BOXES" value: "IN" } }
    })cfg";
  EXPECT_THAT(Problems(onto_input),
              HasSubstr("ensemble tensor 'IN' is written twice: by the ensemble's inputs and by "
                        "step 2 ('det')"));
}

TEST(EnsembleGraphTest, TensorNeverWritten) {
  std::string text = kChain;
  text.replace(text.find("value: \"mid\" } }\n    step"), 12, "value: \"tmp\"");
  EXPECT_EQ(Problems(text),
            "ensemble tensor 'tmp' is never read (written by step 1 ('pre'); map it to an "
            "ensemble output or drop it); ensemble tensor 'mid' is never written (not an "
            "ensemble input, and no step's output)");

  // An ensemble output that no step produces.
  const std::string output =
      std::string(kChain) + R"cfg( output { name: "EXTRA" data_type: TYPE_FP32 dims: [4] })cfg";
  EXPECT_EQ(Problems(output),
            "ensemble tensor 'EXTRA' is never written (an ensemble output no step produces)");
}

TEST(EnsembleGraphTest, EnsembleInputNeverRead) {
  const std::string text =
      std::string(kChain) + R"cfg( input { name: "UNUSED" data_type: TYPE_FP32 dims: [4] })cfg";
  EXPECT_EQ(Problems(text),
            "ensemble tensor 'UNUSED' is never read (an ensemble input no step uses)");
}

TEST(EnsembleGraphTest, IntermediateNeverRead) {
  const std::string text = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "mix" input_map { key: "X" value: "IN" } input_map { key: "Y" value: "IN" }
             output_map { key: "P" value: "RESULT" } output_map { key: "Q" value: "spare" } }
    })cfg";
  EXPECT_EQ(Problems(text),
            "ensemble tensor 'spare' is never read (written by step 1 ('mix'); map it to an "
            "ensemble output or drop it)");
}

TEST(EnsembleGraphTest, Cycle) {
  // mix needs det's output and det needs mix's: neither can start.
  const std::string text = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "mix" input_map { key: "X" value: "IN" } input_map { key: "Y" value: "b" }
             output_map { key: "P" value: "a" } output_map { key: "Q" value: "RESULT" } }
      step { model_name: "det" input_map { key: "IMG" value: "a" }
             output_map { key: "BOXES" value: "b" } }
    })cfg";
  EXPECT_EQ(Problems(text),
            "the steps form a cycle: step 1 ('mix'), step 2 ('det') wait for each other's outputs");

  // A step that reads its own output.
  const std::string self_loop = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "mix" input_map { key: "X" value: "IN" } input_map { key: "Y" value: "a" }
             output_map { key: "P" value: "a" } output_map { key: "Q" value: "RESULT" } }
    })cfg";
  EXPECT_EQ(Problems(self_loop),
            "the steps form a cycle: step 1 ('mix') wait for each other's outputs");
}

TEST(EnsembleGraphTest, DatatypeMismatch) {
  std::string text = kChain;
  text.replace(text.find("TYPE_FP32"), 9, "TYPE_INT32");  // the ensemble input
  EXPECT_EQ(Problems(text),
            "ensemble tensor 'IN' is written as TYPE_INT32 [-1,4] (ensemble input) but read as "
            "TYPE_FP32 [-1,4] (step 1 ('pre') input 'RAW')");

  // Between two steps: det's FP32 boxes into join's INT32 B.
  const std::string between = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "det" input_map { key: "IMG" value: "IN" }
             output_map { key: "BOXES" value: "boxes" } }
      step { model_name: "join" input_map { key: "A" value: "IN" } input_map { key: "B" value: "boxes" }
             output_map { key: "OUT" value: "RESULT" } }
    })cfg";
  EXPECT_EQ(Problems(between),
            "ensemble tensor 'boxes' is written as TYPE_FP32 [-1,4] (step 1 ('det') output "
            "'BOXES') but read as TYPE_INT32 [-1,1] (step 2 ('join') input 'B')");
}

TEST(EnsembleGraphTest, ShapeMismatch) {
  std::string text = kChain;
  text.replace(text.find("dims: [4]"), 9, "dims: [5]");  // the ensemble input
  EXPECT_EQ(Problems(text),
            "ensemble tensor 'IN' is written as TYPE_FP32 [-1,5] (ensemble input) but read as "
            "TYPE_FP32 [-1,4] (step 1 ('pre') input 'RAW')");

  // The ensemble output's declared shape is checked against its writer.
  text = kChain;
  text.replace(text.find("dims: [4] }\n  ensemble"), 9, "dims: [4, 1]");
  EXPECT_EQ(Problems(text),
            "ensemble tensor 'RESULT' is written as TYPE_FP32 [-1,4] (step 2 ('det') output "
            "'BOXES') but read as TYPE_FP32 [-1,4,1] (ensemble output)");
}

TEST(EnsembleGraphTest, WildcardDimsMatchAnything) {
  // "any" reads and writes [-1]; the ensemble's tensors are [4].
  std::string text = kChain;
  text.replace(text.find("\"det\""), 5, "\"any\"");
  EXPECT_EQ(Problems(text), "");
  // And an ensemble input of [-1] feeds pre's [4].
  text = kChain;
  text.replace(text.find("dims: [4]"), 9, "dims: [-1]");
  EXPECT_EQ(Problems(text), "");
}

TEST(EnsembleGraphTest, BatchDimensionAgainstNonBatchingModels) {
  // A batching ensemble's [4] is [-1,4]: a non-batching model declaring the
  // full shape [2,4] agrees (the batch dimension is its first), ...
  const std::string fixed = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "fixed" input_map { key: "X" value: "IN" }
             output_map { key: "Y" value: "RESULT" } }
    })cfg";
  EXPECT_EQ(Problems(fixed), "");
  // ... one declaring [4] (no batch dimension) does not.
  std::string flat = fixed;
  flat.replace(flat.find("\"fixed\""), 7, "\"flat\"");
  EXPECT_EQ(Problems(flat),
            "ensemble tensor 'IN' is written as TYPE_FP32 [-1,4] (ensemble input) but read as "
            "TYPE_FP32 [4] (step 1 ('flat') input 'X'); ensemble tensor 'RESULT' is written as "
            "TYPE_FP32 [4] (step 1 ('flat') output 'Y') but read as TYPE_FP32 [-1,4] (ensemble "
            "output)");

  // A non-batching ensemble names full shapes: [3,4] feeds a batching
  // model's [-1,4]; [4] does not.
  std::string unbatched = kChain;
  unbatched.replace(unbatched.find("max_batch_size: 4"), 17, "max_batch_size: 0");
  EXPECT_THAT(Problems(unbatched),
              HasSubstr("ensemble tensor 'IN' is written as TYPE_FP32 [4] (ensemble input) but "
                        "read as TYPE_FP32 [-1,4] (step 1 ('pre') input 'RAW')"));
  std::string full = unbatched;
  while (full.find("dims: [4]") != std::string::npos) {
    full.replace(full.find("dims: [4]"), 9, "dims: [3, 4]");
  }
  EXPECT_EQ(Problems(full), "");
}

TEST(EnsembleGraphTest, MaxBatchSizeLargerThanAStep) {
  std::string text = kChain;
  text.replace(text.find("max_batch_size: 4"), 17, "max_batch_size: 16");
  EXPECT_EQ(Problems(text),
            "step 1 ('pre'): the ensemble's max_batch_size 16 is larger than 'pre''s 8; "
            "step 2 ('det'): the ensemble's max_batch_size 16 is larger than 'det''s 8");
  text.replace(text.find("max_batch_size: 16"), 18, "max_batch_size: 8");
  EXPECT_EQ(Problems(text), "");
  // A non-batching step has no limit to exceed.
  const std::string fixed = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 64
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    ensemble_scheduling {
      step { model_name: "fixed" input_map { key: "X" value: "IN" }
             output_map { key: "Y" value: "RESULT" } }
    })cfg";
  EXPECT_EQ(Problems(fixed), "");
}

TEST(EnsembleGraphTest, ForbiddenFields) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"instance_group", "instance_group { kind: KIND_CPU count: 2 }"},
      {"optimization", "optimization { priority: PRIORITY_MAX }"},
      {"model_warmup", "model_warmup { name: \"w\" batch_size: 1 }"},
  };
  for (const auto& [field, text] : cases) {
    EXPECT_EQ(Problems(std::string(kChain) + "\n" + text),
              "an ensemble must not set '" + field + "'")
        << field;
  }
  std::string all = kChain;
  for (const auto& [field, text] : cases) all += "\n" + text;
  EXPECT_EQ(Problems(all),
            "an ensemble must not set 'instance_group'; an ensemble must not set 'optimization'; "
            "an ensemble must not set 'model_warmup'");

  // The other schedulers share a oneof with ensemble_scheduling, so setting
  // one leaves the ensemble without steps too.
  const std::string no_steps = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] })cfg";
  for (const std::string field : {"dynamic_batching", "sequence_batching"}) {
    EXPECT_THAT(Problems(no_steps + " " + field + " { }"),
                AllOf(HasSubstr("'ensemble_scheduling' must have at least one step"),
                      HasSubstr("an ensemble must not set '" + field + "'")))
        << field;
  }
}

TEST(EnsembleGraphTest, NoSteps) {
  const std::string text = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 4
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] })cfg";
  EXPECT_THAT(Problems(text), HasSubstr("'ensemble_scheduling' must have at least one step"));
  EXPECT_THAT(Problems(text + " ensemble_scheduling { }"),
              HasSubstr("'ensemble_scheduling' must have at least one step"));
}

TEST(EnsembleGraphTest, StepNamingTheEnsembleItselfOrNothing) {
  std::string text = kChain;
  text.replace(text.find("\"det\""), 5, "\"e\"");
  EXPECT_THAT(Problems(text), HasSubstr("step 2 ('e'): an ensemble cannot call itself"));
  text = kChain;
  text.replace(text.find("model_name: \"det\""), 17, "model_name: \"\"");
  EXPECT_THAT(Problems(text), HasSubstr("step 2: 'model_name' is empty"));
}

TEST(EnsembleGraphTest, ReportsEveryProblemAtOnceNamingSteps) {
  const std::string text = R"cfg(
    name: "e" platform: "ensemble" max_batch_size: 16
    input { name: "IN" data_type: TYPE_FP32 dims: [4] }
    input { name: "UNUSED" data_type: TYPE_FP32 dims: [4] }
    output { name: "RESULT" data_type: TYPE_FP32 dims: [4] }
    instance_group { kind: KIND_CPU }
    ensemble_scheduling {
      step { model_name: "pre" input_map { key: "RAW" value: "IN" }
             output_map { key: "PRE_OUT" value: "mid" } }
      step { model_name: "nope" input_map { key: "IMG" value: "mid" }
             output_map { key: "BOXES" value: "other" } }
      step { model_name: "cls" input_map { key: "PICTURE" value: "mid" }
             output_map { key: "LABEL" value: "RESULT" } }
      step { model_name: "join" input_map { key: "A" value: "ghost" }
             output_map { key: "OUT" value: "RESULT" } }
    })cfg";
  const std::string problems = Problems(text);
  EXPECT_THAT(problems,
              AllOf(HasSubstr("an ensemble must not set 'instance_group'"),
                    HasSubstr("step 1 ('pre'): the ensemble's max_batch_size 16 is larger than "
                              "'pre''s 8"),
                    HasSubstr("step 2 ('nope'): model 'nope' is not loaded"),
                    HasSubstr("step 3 ('cls'): input_map names 'PICTURE', which is not an input "
                              "of 'cls'"),
                    HasSubstr("step 3 ('cls'): input 'IMG' of 'cls' is not mapped"),
                    HasSubstr("step 4 ('join'): input 'B' of 'join' is not mapped"),
                    HasSubstr("ensemble tensor 'RESULT' is written twice: by step 3 ('cls') and "
                              "by step 4 ('join')"),
                    HasSubstr("ensemble tensor 'ghost' is never written"),
                    HasSubstr("ensemble tensor 'UNUSED' is never read"),
                    HasSubstr("ensemble tensor 'other' is never read (written by step 2 "
                              "('nope')")));
  EXPECT_THAT(problems, Not(HasSubstr("cycle")));
}

TEST(EnsembleGraphTest, ComposingModelsAreSortedAndUnique) {
  EXPECT_THAT(ComposingModels(Parse(kDiamond)), ElementsAre("cls", "det", "join", "pre"));
  std::string twice = kChain;
  twice.replace(twice.find("\"det\""), 5, "\"pre\"");
  EXPECT_THAT(ComposingModels(Parse(twice)), ElementsAre("pre"));
  EXPECT_THAT(ComposingModels(Parse(R"cfg(name: "m" platform: "onnxruntime_onnx")cfg")), IsEmpty());
}

}  // namespace
}  // namespace inferd::scheduling
