// SPDX-License-Identifier: Apache-2.0
// Classification on the server's request path (docs/api.md,
// "Classification"): class counts checked before queueing, outputs replaced
// by top-k BYTES with the labels of label_filename, batched and not.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "server_fixture.h"
#include "testing/infer_helpers.h"

namespace inferd {
namespace {

using core::DataType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kClassesIO[] = R"pb(
  max_batch_size: 8 input
  [ {
    name: "INPUT0"
    data_type: TYPE_FP32
    dims: [ 4 ]
  }
    , {
      name: "INPUT1"
      data_type: TYPE_STRING
      dims: [ -1 ]
    }] output
  [ {
    name: "OUTPUT0"
    data_type: TYPE_FP32
    dims: [ 4 ]
    label_filename: "labels.txt"
  }
    , {
      name: "OUTPUT1"
      data_type: TYPE_STRING
      dims: [ -1 ]
    }])pb";

constexpr char kFlatIO[] = R"pb(
  input
  [ {
    name: "INPUT0"
    data_type: TYPE_INT32
    dims: [ 2, 3 ]
  }] output
  [ {
    name: "OUTPUT0"
    data_type: TYPE_INT32
    dims: [ 2, 3 ]
  }])pb";

constexpr char kMissingLabelsIO[] = R"pb(
  input
  [ {
    name: "INPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }] output
  [ {
    name: "OUTPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
    label_filename: "nowhere.txt"
  }])pb";

class ServerClassificationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    using testing::FakeConfig;
    const std::string& repo = repo_.path();
    testing::WriteFakeModel(repo, {"classes", FakeConfig(kClassesIO),
                                   "input INPUT0 FP32 -1 4\ninput INPUT1 BYTES -1 -1\n"
                                   "output OUTPUT0 FP32 -1 4\noutput OUTPUT1 BYTES -1 -1\n"});
    testing::WriteFile(repo + "/classes/labels.txt", "north\neast\nsouth\n");  // one short
    testing::WriteFakeModel(
        repo, {"flat", FakeConfig(kFlatIO), "input INPUT0 INT32 2 3\noutput OUTPUT0 INT32 2 3\n"});
    testing::WriteFakeModel(repo, {"missing_labels", FakeConfig(kMissingLabelsIO),
                                   "input INPUT0 INT32 4\noutput OUTPUT0 INT32 4\n"});
    auto server = Server::Create(TestOptions(repo));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  absl::StatusOr<core::InferResponse> Infer(std::unique_ptr<core::InferRequest> request) {
    testing::CallbackResult result;
    server_->InferAsync(std::move(request), result.Callback());
    auto response = result.Wait();
    EXPECT_EQ(result.calls(), 1);
    return response;
  }

  static std::unique_ptr<core::InferRequest> ClassesRequest() {
    auto request = std::make_unique<core::InferRequest>();
    request->model_name = "classes";
    request->inputs = {
        testing::MakeTensor<float>("INPUT0", DataType::kFp32, {2, 4},
                                   {0.1f, 0.6f, 0.2f, 0.1f, 0.05f, 0.05f, 0.3f, 0.6f}),
        testing::MakeBytesTensor("INPUT1", {2, 1}, {"a", "b"})};
    return request;
  }

  testing::TempDir repo_;
  std::unique_ptr<Server> server_;
};

TEST_F(ServerClassificationTest, BatchedOutputGivesTopKPerRowWithLabels) {
  auto request = ClassesRequest();
  request->requested_outputs = {"OUTPUT0", "OUTPUT1"};
  request->output_class_counts["OUTPUT0"] = 2;
  auto response = Infer(std::move(request));
  ASSERT_TRUE(response.ok()) << response.status();
  ASSERT_EQ(response->outputs.size(), 2u);
  const core::Tensor& classes = response->outputs[0];
  EXPECT_EQ(classes.name, "OUTPUT0");
  EXPECT_EQ(classes.datatype, DataType::kBytes);
  EXPECT_THAT(classes.shape, ElementsAre(2, 2));
  // Index 3 has no line in labels.txt.
  EXPECT_THAT(testing::DecodeBytes(classes.data.view()),
              ElementsAre("0.600000:1:east", "0.200000:2:south", "0.600000:3", "0.300000:2:south"));
  // The output without a class count is untouched.
  EXPECT_EQ(response->outputs[1].datatype, DataType::kBytes);
  EXPECT_THAT(testing::DecodeBytes(response->outputs[1].data.view()), ElementsAre("a", "b"));
}

TEST_F(ServerClassificationTest, UnbatchedOutputIsOneRow) {
  auto request = std::make_unique<core::InferRequest>();
  request->model_name = "flat";
  request->inputs = {
      testing::MakeTensor<int32_t>("INPUT0", DataType::kInt32, {2, 3}, {4, -1, 9, 9, 0, 2})};
  request->requested_outputs = {"OUTPUT0"};
  request->output_class_counts["OUTPUT0"] = 10;
  auto response = Infer(std::move(request));
  ASSERT_TRUE(response.ok()) << response.status();
  const core::Tensor& classes = response->outputs.at(0);
  EXPECT_THAT(classes.shape, ElementsAre(6));
  EXPECT_THAT(testing::DecodeBytes(classes.data.view()),
              ElementsAre("9:2", "9:3", "4:0", "2:5", "0:4", "-1:1"));
}

TEST_F(ServerClassificationTest, RefusesBytesOutputsAndBadCountsBeforeRunning) {
  auto bytes = ClassesRequest();
  bytes->requested_outputs = {"OUTPUT1"};
  bytes->output_class_counts["OUTPUT1"] = 1;
  auto response = Infer(std::move(bytes));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(response.status().message(),
              HasSubstr("model 'classes' output 'OUTPUT1': class result not available for output "
                        "due to unsupported type 'BYTES'"));

  auto zero = ClassesRequest();
  zero->requested_outputs = {"OUTPUT0"};
  zero->output_class_counts["OUTPUT0"] = 0;
  response = Infer(std::move(zero));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(response.status().message(),
              HasSubstr("model 'classes' output 'OUTPUT0': classification must be a positive "
                        "class count, got 0"));

  auto unknown = ClassesRequest();
  unknown->output_class_counts["OUTPUT7"] = 1;
  response = Infer(std::move(unknown));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(response.status().message(), HasSubstr("OUTPUT7"));

  auto stats = server_->Statistics("classes", "");
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->at(0).stats.inference_count, 0u);  // nothing ran
}

TEST_F(ServerClassificationTest, MissingLabelFileKeepsTheModelFromLoading) {
  auto ready = server_->IsModelReady("missing_labels", "");
  EXPECT_FALSE(ready.ok() && *ready);
  bool found = false;
  for (const auto& entry : server_->RepositoryIndex(false)) {
    if (entry.name != "missing_labels") continue;
    found = true;
    EXPECT_THAT(entry.reason, HasSubstr("cannot read its label_filename 'nowhere.txt'"));
  }
  EXPECT_TRUE(found);
}

TEST_F(ServerClassificationTest, MetadataAdvertisesClassification) {
  EXPECT_THAT(server_->Metadata().extensions, ::testing::Contains("classification"));
}

}  // namespace
}  // namespace inferd
