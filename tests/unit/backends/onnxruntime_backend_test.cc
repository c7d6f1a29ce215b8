// SPDX-License-Identifier: Apache-2.0
// Tests the ONNX Runtime backend library through its C ABI only, the way the
// server uses it: dlopen, a fake INFERD_ServerApi, and small ONNX models
// generated at test time by make_test_models.py.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fake_server_api.h"
#include "ort_test_support.h"

namespace inferd::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string EnvOr(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

class OnnxRuntimeBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    lib_ = LoadBackend(EnvOr("INFERD_ORT_BACKEND", INFERD_ORT_BACKEND_PATH), &error);
    load_error_ = new std::string(error);
    models_ =
        new std::string(::testing::TempDir() + "inferd_ort_models_" + std::to_string(getpid()));
    std::string python = EnvOr("INFERD_PYTHON", INFERD_TEST_PYTHON);
    if (!std::filesystem::exists(python)) python = "python3";
    std::string log;
    if (!GenerateModels(python, INFERD_TEST_MODEL_SCRIPT, *models_, &log)) {
      // The last line of a traceback says what is missing.
      while (!log.empty() && log.back() == '\n') log.pop_back();
      models_log_ = new std::string(log.substr(log.find_last_of('\n') + 1));
      models_->clear();
    }
  }

  static void TearDownTestSuite() {
    std::error_code ignored;
    if (!models_->empty()) std::filesystem::remove_all(*models_, ignored);
  }

  void SetUp() override { ASSERT_TRUE(lib_.has_value()) << *load_error_; }

  // False (and the test should GTEST_SKIP) when no models could be made.
  static bool HaveModels() { return !models_->empty(); }
  static std::string SkipReason() {
    return "python with the onnx package is needed to make test models: " +
           (models_log_ != nullptr ? *models_log_ : std::string());
  }
  static std::string Model(const std::string& file) { return *models_ + "/" + file; }

  // A model with its instances, deleted in the right order.
  struct Loaded {
    const BackendLibrary* lib = nullptr;
    INFERD_BackendModel* model = nullptr;
    std::vector<INFERD_BackendInstance*> instances;
    ~Loaded() {
      for (INFERD_BackendInstance* instance : instances) lib->instance_delete(instance);
      if (model != nullptr) lib->model_delete(model);
    }
  };

  // Creates the model and `instances` instances; returns the first error.
  std::unique_ptr<INFERD_Error> Load(ModelSpecBuilder& spec, Loaded& loaded, int instances = 1) {
    loaded.lib = &*lib_;
    std::unique_ptr<INFERD_Error> error(
        lib_->model_create(FakeServerApi(), spec.Build(), &loaded.model));
    for (int i = 0; error == nullptr && i < instances; ++i) {
      INFERD_BackendInstance* instance = nullptr;
      error.reset(lib_->instance_create(loaded.model, static_cast<uint32_t>(i), &instance));
      if (error == nullptr) loaded.instances.push_back(instance);
    }
    return error;
  }

  void Execute(INFERD_BackendInstance* instance, std::vector<INFERD_Request*> requests) {
    lib_->instance_execute(instance, requests.data(), requests.size());
    for (INFERD_Request* request : requests) {
      EXPECT_EQ(request->completions, 1);
      EXPECT_EQ(request->pending_releases, 0);
      for (const auto& output : request->outputs) EXPECT_FALSE(output.changed_before_release);
    }
  }

  static ModelSpecBuilder AddSub(INFERD_DataType type, const std::string& file) {
    ModelSpecBuilder spec("add_sub", Model(file), /*max_batch_size=*/8);
    for (const char* name : {"INPUT0", "INPUT1"}) spec.Input({name, type, {16}});
    for (const char* name : {"OUTPUT0", "OUTPUT1"}) spec.Output({name, type, {16}});
    return spec;
  }

  static ModelSpecBuilder Identity(INFERD_DataType type, const std::string& file,
                                   std::vector<int64_t> dims) {
    ModelSpecBuilder spec("identity", Model(file), /*max_batch_size=*/8);
    spec.Input({"INPUT0", type, dims}).Output({"OUTPUT0", type, dims});
    return spec;
  }

  static std::vector<int32_t> Iota(int32_t start, size_t n) {
    std::vector<int32_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<int32_t>(i);
    return v;
  }

  static inline std::optional<BackendLibrary> lib_;
  static inline std::string* load_error_ = nullptr;
  static inline std::string* models_ = nullptr;
  static inline std::string* models_log_ = nullptr;
};

TEST_F(OnnxRuntimeBackendTest, ReportsApiVersion) {
  EXPECT_EQ(lib_->api_version(),
            INFERD_BACKEND_API_VERSION_MAJOR << 16 | INFERD_BACKEND_API_VERSION_MINOR);
}

TEST_F(OnnxRuntimeBackendTest, DescribesModelSignature) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec("add_sub", Model("add_sub_int32.onnx"), 0);
  INFERD_Signature signature;
  std::unique_ptr<INFERD_Error> error(
      lib_->describe_model(FakeServerApi(), spec.Build(), &signature));
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_EQ(signature.inputs.size(), 2u);
  EXPECT_EQ(signature.inputs[0].name, "INPUT0");
  EXPECT_EQ(signature.inputs[0].datatype, INFERD_TYPE_INT32);
  EXPECT_THAT(signature.inputs[0].dims, ElementsAre(-1, 16));
  ASSERT_EQ(signature.outputs.size(), 2u);
  EXPECT_EQ(signature.outputs[1].name, "OUTPUT1");
  EXPECT_THAT(signature.outputs[1].dims, ElementsAre(-1, 16));
}

TEST_F(OnnxRuntimeBackendTest, DescribesStringTensorsAsBytesWithUnknownDims) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec("identity", Model("identity_bytes.onnx"), 0);
  INFERD_Signature signature;
  std::unique_ptr<INFERD_Error> error(
      lib_->describe_model(FakeServerApi(), spec.Build(), &signature));
  ASSERT_EQ(error, nullptr) << error->message;
  ASSERT_EQ(signature.inputs.size(), 1u);
  EXPECT_EQ(signature.inputs[0].datatype, INFERD_TYPE_BYTES);
  EXPECT_THAT(signature.inputs[0].dims, ElementsAre(-1, -1));
}

TEST_F(OnnxRuntimeBackendTest, CorruptModelFailsWithClearError) {
  const std::string path =
      ::testing::TempDir() + "inferd_ort_corrupt_" + std::to_string(getpid()) + ".onnx";
  std::ofstream(path) << "this is not an onnx model";
  ModelSpecBuilder spec("broken", path, 0);
  INFERD_Signature signature;
  std::unique_ptr<INFERD_Error> error(
      lib_->describe_model(FakeServerApi(), spec.Build(), &signature));
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code, INFERD_ERROR_INVALID_ARG);
  EXPECT_THAT(error->message, HasSubstr("model 'broken': failed to load '" + path + "'"));

  Loaded loaded;
  error = Load(spec, loaded);
  std::filesystem::remove(path);
  ASSERT_NE(error, nullptr);
  EXPECT_THAT(error->message, HasSubstr("failed to load"));
}

TEST_F(OnnxRuntimeBackendTest, MissingModelFileIsNotFound) {
  ModelSpecBuilder spec("absent", ::testing::TempDir() + "no/such/model.onnx", 0);
  Loaded loaded;
  std::unique_ptr<INFERD_Error> error = Load(spec, loaded);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code, INFERD_ERROR_NOT_FOUND);
  EXPECT_THAT(error->message, HasSubstr("model 'absent'"));
}

TEST_F(OnnxRuntimeBackendTest, BadParameterIsInvalidArgument) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = AddSub(INFERD_TYPE_INT32, "add_sub_int32.onnx");
  spec.Parameter("intra_op_thread_count", "many");
  Loaded loaded;
  std::unique_ptr<INFERD_Error> error = Load(spec, loaded);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code, INFERD_ERROR_INVALID_ARG);
  EXPECT_THAT(error->message, HasSubstr("intra_op_thread_count"));
}

TEST_F(OnnxRuntimeBackendTest, ConfigTypeMismatchFailsInstanceCreation) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = AddSub(INFERD_TYPE_FP32, "add_sub_int32.onnx");
  Loaded loaded;
  std::unique_ptr<INFERD_Error> error = Load(spec, loaded);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->code, INFERD_ERROR_INVALID_ARG);
  EXPECT_THAT(error->message, HasSubstr("input 'INPUT0' is INT32 in the model but FP32"));
}

TEST_F(OnnxRuntimeBackendTest, AddSubInt32SingleRequest) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = AddSub(INFERD_TYPE_INT32, "add_sub_int32.onnx");
  spec.Parameter("intra_op_thread_count", "2").Parameter("execution_mode", "sequential");
  spec.GraphLevel(1);
  Loaded loaded;
  std::unique_ptr<INFERD_Error> error = Load(spec, loaded);
  ASSERT_EQ(error, nullptr) << error->message;

  INFERD_Request request;
  request.inputs = {MakeInput("INPUT0", INFERD_TYPE_INT32, {1, 16}, Iota(10, 16)),
                    MakeInput("INPUT1", INFERD_TYPE_INT32, {1, 16}, Iota(0, 16))};
  request.requested_outputs = {"OUTPUT0", "OUTPUT1"};
  Execute(loaded.instances[0], {&request});
  ASSERT_EQ(request.error, nullptr) << request.error->message;
  ASSERT_EQ(request.outputs.size(), 2u);
  EXPECT_EQ(request.outputs[0].name, "OUTPUT0");
  EXPECT_EQ(request.outputs[0].datatype, INFERD_TYPE_INT32);
  EXPECT_THAT(request.outputs[0].shape, ElementsAre(1, 16));
  std::vector<int32_t> sum = OutputValues<int32_t>(request.outputs[0]);
  ASSERT_EQ(sum.size(), 16u);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(sum[i], 10 + 2 * i);
  EXPECT_THAT(OutputValues<int32_t>(request.outputs[1]), ::testing::Each(10));
}

TEST_F(OnnxRuntimeBackendTest, ProducesOnlyRequestedOutputs) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = AddSub(INFERD_TYPE_INT32, "add_sub_int32.onnx");
  Loaded loaded;
  ASSERT_EQ(Load(spec, loaded), nullptr);
  INFERD_Request request;
  request.inputs = {MakeInput("INPUT0", INFERD_TYPE_INT32, {2, 16}, Iota(0, 32)),
                    MakeInput("INPUT1", INFERD_TYPE_INT32, {2, 16}, Iota(0, 32))};
  request.requested_outputs = {"OUTPUT1"};
  Execute(loaded.instances[0], {&request});
  ASSERT_EQ(request.error, nullptr) << request.error->message;
  ASSERT_EQ(request.outputs.size(), 1u);
  EXPECT_EQ(request.outputs[0].name, "OUTPUT1");
  EXPECT_THAT(request.outputs[0].shape, ElementsAre(2, 16));
  EXPECT_THAT(OutputValues<int32_t>(request.outputs[0]), ::testing::Each(0));
}

TEST_F(OnnxRuntimeBackendTest, SplitsBatchOfTwoRequestsBackBySlices) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = AddSub(INFERD_TYPE_FP32, "add_sub_fp32.onnx");
  Loaded loaded;
  ASSERT_EQ(Load(spec, loaded), nullptr);
  INFERD_Request a, b;
  a.inputs = {MakeInput("INPUT0", INFERD_TYPE_FP32, {1, 16}, std::vector<float>(16, 1.5f)),
              MakeInput("INPUT1", INFERD_TYPE_FP32, {1, 16}, std::vector<float>(16, 0.5f))};
  a.requested_outputs = {"OUTPUT0"};
  b.inputs = {MakeInput("INPUT0", INFERD_TYPE_FP32, {3, 16}, std::vector<float>(48, 4.0f)),
              MakeInput("INPUT1", INFERD_TYPE_FP32, {3, 16}, std::vector<float>(48, 1.0f))};
  b.requested_outputs = {"OUTPUT0", "OUTPUT1"};
  Execute(loaded.instances[0], {&a, &b});
  ASSERT_EQ(a.error, nullptr) << a.error->message;
  ASSERT_EQ(b.error, nullptr) << b.error->message;
  ASSERT_EQ(a.outputs.size(), 1u);
  EXPECT_THAT(a.outputs[0].shape, ElementsAre(1, 16));
  EXPECT_THAT(OutputValues<float>(a.outputs[0]), ::testing::Each(2.0f));
  ASSERT_EQ(b.outputs.size(), 2u);
  EXPECT_THAT(b.outputs[0].shape, ElementsAre(3, 16));
  EXPECT_THAT(OutputValues<float>(b.outputs[0]), ::testing::Each(5.0f));
  EXPECT_THAT(OutputValues<float>(b.outputs[1]), ::testing::Each(3.0f));
  // Both slices point into the one batched output: no copies.
  EXPECT_EQ(static_cast<const char*>(b.outputs[0].pointer),
            static_cast<const char*>(a.outputs[0].pointer) + 16 * sizeof(float));
}

TEST_F(OnnxRuntimeBackendTest, MisalignedInputIsCopiedNotWrapped) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = AddSub(INFERD_TYPE_INT32, "add_sub_int32.onnx");
  Loaded loaded;
  ASSERT_EQ(Load(spec, loaded), nullptr);
  INFERD_Request request;
  request.inputs = {MakeInput("INPUT0", INFERD_TYPE_INT32, {1, 16}, Iota(5, 16)),
                    MakeInput("INPUT1", INFERD_TYPE_INT32, {1, 16}, Iota(0, 16))};
  request.inputs[0].data.insert(0, 1, '\0');  // an odd address, as in an HTTP body
  request.inputs[0].offset = 1;
  request.requested_outputs = {"OUTPUT1"};
  Execute(loaded.instances[0], {&request});
  ASSERT_EQ(request.error, nullptr) << request.error->message;
  EXPECT_THAT(OutputValues<int32_t>(request.outputs[0]), ::testing::Each(5));
}

TEST_F(OnnxRuntimeBackendTest, EmptyBatchRowsGiveEmptyOutputs) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = AddSub(INFERD_TYPE_INT32, "add_sub_int32.onnx");
  Loaded loaded;
  ASSERT_EQ(Load(spec, loaded), nullptr);
  INFERD_Request request;
  request.inputs = {MakeInput("INPUT0", INFERD_TYPE_INT32, {0, 16}, std::vector<int32_t>{}),
                    MakeInput("INPUT1", INFERD_TYPE_INT32, {0, 16}, std::vector<int32_t>{})};
  request.requested_outputs = {"OUTPUT0"};
  Execute(loaded.instances[0], {&request});
  ASSERT_EQ(request.error, nullptr) << request.error->message;
  EXPECT_THAT(request.outputs[0].shape, ElementsAre(0, 16));
  EXPECT_TRUE(request.outputs[0].data.empty());
}

TEST_F(OnnxRuntimeBackendTest, RejectedOutputFailsOnlyThatRequest) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = AddSub(INFERD_TYPE_INT32, "add_sub_int32.onnx");
  Loaded loaded;
  ASSERT_EQ(Load(spec, loaded), nullptr);
  INFERD_Request a, b;
  for (INFERD_Request* r : {&a, &b}) {
    r->inputs = {MakeInput("INPUT0", INFERD_TYPE_INT32, {1, 16}, Iota(0, 16)),
                 MakeInput("INPUT1", INFERD_TYPE_INT32, {1, 16}, Iota(0, 16))};
    r->requested_outputs = {"OUTPUT0"};
  }
  a.reject_outputs = true;
  Execute(loaded.instances[0], {&a, &b});
  ASSERT_NE(a.error, nullptr);
  EXPECT_THAT(a.error->message, HasSubstr("unexpected output OUTPUT0"));
  EXPECT_EQ(b.error, nullptr);
  EXPECT_EQ(b.outputs.size(), 1u);
}

TEST_F(OnnxRuntimeBackendTest, WrongByteSizeFailsWholeBatchWithoutCrashing) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = AddSub(INFERD_TYPE_INT32, "add_sub_int32.onnx");
  Loaded loaded;
  ASSERT_EQ(Load(spec, loaded), nullptr);
  INFERD_Request a, b;
  for (INFERD_Request* r : {&a, &b}) {
    r->inputs = {MakeInput("INPUT0", INFERD_TYPE_INT32, {1, 16}, Iota(0, 16)),
                 MakeInput("INPUT1", INFERD_TYPE_INT32, {1, 16}, Iota(0, 16))};
    r->requested_outputs = {"OUTPUT0"};
  }
  b.inputs[1].data.resize(60);
  Execute(loaded.instances[0], {&a, &b});
  for (INFERD_Request* r : {&a, &b}) {
    ASSERT_NE(r->error, nullptr);
    EXPECT_EQ(r->error->code, INFERD_ERROR_INVALID_ARG);
    EXPECT_THAT(r->error->message, HasSubstr("model 'add_sub': input 'INPUT1'"));
    EXPECT_TRUE(r->outputs.empty());
  }
}

TEST_F(OnnxRuntimeBackendTest, BytesIdentityBatchKeepsBinaryElements) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = Identity(INFERD_TYPE_BYTES, "identity_bytes.onnx", {2});
  Loaded loaded;
  ASSERT_EQ(Load(spec, loaded), nullptr);
  const std::vector<std::string> first = {"hello", std::string("a\0b", 3)};
  const std::vector<std::string> second = {"", "x", "second", std::string(300, 'z')};
  INFERD_Request a, b;
  a.inputs = {{"INPUT0", INFERD_TYPE_BYTES, {1, 2}, EncodeBytes(first)}};
  b.inputs = {{"INPUT0", INFERD_TYPE_BYTES, {2, 2}, EncodeBytes(second)}};
  a.requested_outputs = b.requested_outputs = {"OUTPUT0"};
  Execute(loaded.instances[0], {&a, &b});
  ASSERT_EQ(a.error, nullptr) << a.error->message;
  ASSERT_EQ(b.error, nullptr) << b.error->message;
  EXPECT_EQ(a.outputs[0].datatype, INFERD_TYPE_BYTES);
  EXPECT_THAT(a.outputs[0].shape, ElementsAre(1, 2));
  EXPECT_EQ(DecodeBytes(a.outputs[0].data), first);
  EXPECT_THAT(b.outputs[0].shape, ElementsAre(2, 2));
  EXPECT_EQ(DecodeBytes(b.outputs[0].data), second);
}

TEST_F(OnnxRuntimeBackendTest, MalformedBytesInputIsAnError) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = Identity(INFERD_TYPE_BYTES, "identity_bytes.onnx", {2});
  Loaded loaded;
  ASSERT_EQ(Load(spec, loaded), nullptr);
  INFERD_Request request;
  std::string data = EncodeBytes({"ok", "truncated"});
  data.resize(data.size() - 3);
  request.inputs = {{"INPUT0", INFERD_TYPE_BYTES, {1, 2}, data}};
  request.requested_outputs = {"OUTPUT0"};
  Execute(loaded.instances[0], {&request});
  ASSERT_NE(request.error, nullptr);
  EXPECT_EQ(request.error->code, INFERD_ERROR_INVALID_ARG);
  EXPECT_THAT(request.error->message, HasSubstr("runs past the end"));
}

// Each element type travels unchanged through an Identity model.
TEST_F(OnnxRuntimeBackendTest, IdentityRoundTripsEveryFixedSizeType) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  struct Case {
    const char* file;
    INFERD_DataType type;
    size_t element_size;
  };
  for (const Case& c : {Case{"identity_fp16.onnx", INFERD_TYPE_FP16, 2},
                        Case{"identity_bf16.onnx", INFERD_TYPE_BF16, 2},
                        Case{"identity_bool.onnx", INFERD_TYPE_BOOL, 1},
                        Case{"identity_uint64.onnx", INFERD_TYPE_UINT64, 8}}) {
    SCOPED_TRACE(c.file);
    ModelSpecBuilder spec = Identity(c.type, c.file, {4});
    Loaded loaded;
    std::unique_ptr<INFERD_Error> error = Load(spec, loaded);
    ASSERT_EQ(error, nullptr) << error->message;
    INFERD_Request request;
    std::string data(2 * 4 * c.element_size, '\0');
    for (size_t i = 0; i < data.size(); ++i) {
      data[i] = static_cast<char>(c.type == INFERD_TYPE_BOOL ? i % 2 : i * 7 + 1);
    }
    request.inputs = {{"INPUT0", c.type, {2, 4}, data}};
    request.requested_outputs = {"OUTPUT0"};
    Execute(loaded.instances[0], {&request});
    ASSERT_EQ(request.error, nullptr) << request.error->message;
    EXPECT_EQ(request.outputs[0].datatype, c.type);
    EXPECT_THAT(request.outputs[0].shape, ElementsAre(2, 4));
    EXPECT_EQ(request.outputs[0].data, data);
  }
}

TEST_F(OnnxRuntimeBackendTest, LoadsExternalWeightsFromModelFolder) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec("external", Model("external"), /*max_batch_size=*/4);
  spec.Input({"INPUT0", INFERD_TYPE_FP32, {16}}).Output({"OUTPUT0", INFERD_TYPE_FP32, {16}});
  Loaded loaded;
  std::unique_ptr<INFERD_Error> error = Load(spec, loaded);
  ASSERT_EQ(error, nullptr) << error->message;
  INFERD_Request request;
  request.inputs = {MakeInput("INPUT0", INFERD_TYPE_FP32, {1, 16}, std::vector<float>(16, 100.0f))};
  request.requested_outputs = {"OUTPUT0"};
  Execute(loaded.instances[0], {&request});
  ASSERT_EQ(request.error, nullptr) << request.error->message;
  std::vector<float> out = OutputValues<float>(request.outputs[0]);
  ASSERT_EQ(out.size(), 16u);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], 100.0f + static_cast<float>(i));
}

TEST_F(OnnxRuntimeBackendTest, OptionalInputWithDefaultMayBeOmitted) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec("add_default", Model("add_default.onnx"), /*max_batch_size=*/4);
  spec.Input({"INPUT0", INFERD_TYPE_FP32, {4}});
  spec.Input({"BIAS", INFERD_TYPE_FP32, {4}, std::nullopt, /*optional=*/true});
  spec.Output({"OUTPUT0", INFERD_TYPE_FP32, {4}});
  Loaded loaded;
  std::unique_ptr<INFERD_Error> error = Load(spec, loaded);
  ASSERT_EQ(error, nullptr) << error->message;
  INFERD_Request request;
  request.inputs = {MakeInput("INPUT0", INFERD_TYPE_FP32, {1, 4}, std::vector<float>{1, 2, 3, 4})};
  request.requested_outputs = {"OUTPUT0"};
  Execute(loaded.instances[0], {&request});
  ASSERT_EQ(request.error, nullptr) << request.error->message;
  EXPECT_THAT(OutputValues<float>(request.outputs[0]), ElementsAre(11, 22, 33, 44));
}

TEST_F(OnnxRuntimeBackendTest, ReshapeMapsConfigDimsToModelDims) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  // A non-batching config sees [4,4]; the model gets [1,16] and back.
  ModelSpecBuilder spec("reshaped", Model("add_sub_int32.onnx"), /*max_batch_size=*/0);
  for (const char* name : {"INPUT0", "INPUT1"}) {
    spec.Input({name, INFERD_TYPE_INT32, {4, 4}, std::vector<int64_t>{1, 16}});
  }
  spec.Output({"OUTPUT0", INFERD_TYPE_INT32, {4, 4}, std::vector<int64_t>{1, 16}});
  Loaded loaded;
  std::unique_ptr<INFERD_Error> error = Load(spec, loaded);
  ASSERT_EQ(error, nullptr) << error->message;
  INFERD_Request request;
  request.inputs = {MakeInput("INPUT0", INFERD_TYPE_INT32, {4, 4}, Iota(0, 16)),
                    MakeInput("INPUT1", INFERD_TYPE_INT32, {4, 4}, Iota(0, 16))};
  request.requested_outputs = {"OUTPUT0"};
  Execute(loaded.instances[0], {&request});
  ASSERT_EQ(request.error, nullptr) << request.error->message;
  EXPECT_THAT(request.outputs[0].shape, ElementsAre(4, 4));
  EXPECT_EQ(OutputValues<int32_t>(request.outputs[0])[15], 30);
}

TEST_F(OnnxRuntimeBackendTest, InstancesRunConcurrently) {
  if (!HaveModels()) GTEST_SKIP() << SkipReason();
  ModelSpecBuilder spec = AddSub(INFERD_TYPE_INT32, "add_sub_int32.onnx");
  Loaded loaded;
  ASSERT_EQ(Load(spec, loaded, /*instances=*/2), nullptr);
  auto run = [&](INFERD_BackendInstance* instance, int32_t base) {
    for (int iteration = 0; iteration < 50; ++iteration) {
      INFERD_Request request;
      request.inputs = {MakeInput("INPUT0", INFERD_TYPE_INT32, {1, 16}, Iota(base, 16)),
                        MakeInput("INPUT1", INFERD_TYPE_INT32, {1, 16}, Iota(0, 16))};
      request.requested_outputs = {"OUTPUT1"};
      lib_->instance_execute(instance, std::vector<INFERD_Request*>{&request}.data(), 1);
      EXPECT_EQ(request.error, nullptr);
      EXPECT_THAT(OutputValues<int32_t>(request.outputs.at(0)), ::testing::Each(base));
    }
  };
  std::thread first(run, loaded.instances[0], 100);
  std::thread second(run, loaded.instances[1], 200);
  first.join();
  second.join();
}

}  // namespace
}  // namespace inferd::testing
