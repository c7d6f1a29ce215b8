// SPDX-License-Identifier: Apache-2.0
// The embedding C API: versions, errors, options, server creation and
// destruction, readiness, the JSON documents, load/unload and stop.
#include <cstring>
#include <string>

#include "capi_test_support.h"

namespace capi_test {
namespace {

TEST(CapiVersionTest, LibraryMatchesHeader) {
  uint32_t major = 0, minor = 0;
  INFERD_ApiVersion(&major, &minor);
  EXPECT_EQ(major, static_cast<uint32_t>(INFERD_API_VERSION_MAJOR));
  EXPECT_EQ(minor, static_cast<uint32_t>(INFERD_API_VERSION_MINOR));
  INFERD_ApiVersion(nullptr, nullptr);  // either pointer may be NULL
  EXPECT_GT(std::strlen(INFERD_Version()), 0u);
}

TEST(CapiErrorTest, CodeAndMessageRoundTrip) {
  Error error(INFERD_ErrorNew(INFERD_ERROR_NOT_FOUND, "no such model"));
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorGetCode(error.get()), INFERD_ERROR_NOT_FOUND);
  EXPECT_STREQ(INFERD_ErrorGetMessage(error.get()), "no such model");
  EXPECT_STREQ(INFERD_ErrorCodeName(INFERD_ERROR_NOT_FOUND), "NOT_FOUND");
  EXPECT_STREQ(INFERD_ErrorCodeName(static_cast<INFERD_ErrorCode>(99)), "UNKNOWN");
  Error empty(INFERD_ErrorNew(INFERD_ERROR_UNSUPPORTED, nullptr));
  EXPECT_EQ(INFERD_ErrorGetCode(empty.get()), INFERD_ERROR_UNSUPPORTED);
  EXPECT_STREQ(INFERD_ErrorGetMessage(empty.get()), "");
  EXPECT_EQ(INFERD_ErrorGetCode(nullptr), INFERD_ERROR_UNKNOWN);
  EXPECT_STREQ(INFERD_ErrorGetMessage(nullptr), "");
  INFERD_ErrorDelete(nullptr);
  INFERD_StringDelete(nullptr);
}

TEST(CapiDataTypeTest, NamesAndSizes) {
  EXPECT_STREQ(INFERD_DataTypeName(INFERD_TYPE_INT32), "INT32");
  EXPECT_STREQ(INFERD_DataTypeName(INFERD_TYPE_BYTES), "BYTES");
  EXPECT_STREQ(INFERD_DataTypeName(static_cast<INFERD_DataType>(77)), "INVALID");
  EXPECT_EQ(INFERD_DataTypeByteSize(INFERD_TYPE_FP64), 8u);
  EXPECT_EQ(INFERD_DataTypeByteSize(INFERD_TYPE_BYTES), 0u);
  EXPECT_EQ(INFERD_DataTypeByteSize(static_cast<INFERD_DataType>(-3)), 0u);
}

TEST(CapiOptionsTest, RefusesNullAndOutOfRangeValues) {
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsNew(nullptr)), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsAddModelRepository(nullptr, "x")), INFERD_ERROR_INVALID_ARG);
  Options options = NewOptions();
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsAddModelRepository(options.get(), nullptr)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsAddModelRepository(options.get(), "")),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsSetBackendDirectory(options.get(), nullptr)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsSetModelControlMode(
                options.get(), static_cast<INFERD_ModelControlMode>(7))),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsAddStartupModel(options.get(), nullptr)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsSetRepositoryPollSeconds(options.get(), 0)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsSetCpuCores(options.get(), -1)), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsSetModelLoadThreads(options.get(), -1)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerOptionsSetExitTimeoutSeconds(options.get(), -1)),
            INFERD_ERROR_INVALID_ARG);
  Error level(INFERD_ServerOptionsSetLogLevel(options.get(), "loud"));
  EXPECT_EQ(INFERD_ErrorGetCode(level.get()), INFERD_ERROR_INVALID_ARG);
  EXPECT_NE(std::string(INFERD_ErrorGetMessage(level.get())).find("'loud'"), std::string::npos);
  EXPECT_C_OK(INFERD_ServerOptionsSetLogLevel(options.get(), "warn"));
  EXPECT_C_OK(INFERD_ServerOptionsSetStrictReadiness(options.get(), 0));
  EXPECT_C_OK(INFERD_ServerOptionsSetAutoCompleteConfig(options.get(), 1));
  EXPECT_C_OK(INFERD_ServerOptionsSetRepositoryPollSeconds(options.get(), 0.5));
  EXPECT_C_OK(INFERD_ServerOptionsSetExitTimeoutSeconds(options.get(), 5));
}

TEST(CapiServerTest, CreateRefusesNullArgumentsAndMissingRepository) {
  Options options = NewOptions();
  INFERD_EmbeddedServer* server = nullptr;
  EXPECT_EQ(CodeOf(INFERD_ServerNew(nullptr, options.get())), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerNew(&server, nullptr)), INFERD_ERROR_INVALID_ARG);
  Error none(INFERD_ServerNew(&server, options.get()));
  EXPECT_EQ(INFERD_ErrorGetCode(none.get()), INFERD_ERROR_INVALID_ARG);
  EXPECT_NE(std::string(INFERD_ErrorGetMessage(none.get())).find("no model repository"),
            std::string::npos);
  EXPECT_EQ(server, nullptr);  // out-parameters are set only on success
  INFERD_ServerDelete(nullptr);
}

TEST(CapiServerTest, CreateLoadsStartupModelsAndDeleteStops) {
  Server server = NewServer({"simple"});
  ASSERT_NE(server, nullptr);
  int live = 0, ready = 0, model_ready = 0;
  EXPECT_C_OK(INFERD_ServerIsLive(server.get(), &live));
  EXPECT_C_OK(INFERD_ServerIsReady(server.get(), &ready));
  EXPECT_C_OK(INFERD_ServerModelIsReady(server.get(), "simple", -1, &model_ready));
  EXPECT_EQ(live, 1);
  EXPECT_EQ(ready, 1);
  EXPECT_EQ(model_ready, 1);
  EXPECT_C_OK(INFERD_ServerModelIsReady(server.get(), "simple", 1, &model_ready));
  EXPECT_EQ(model_ready, 1);
  EXPECT_EQ(CodeOf(INFERD_ServerModelIsReady(server.get(), "nope", -1, &model_ready)),
            INFERD_ERROR_NOT_FOUND);
  EXPECT_EQ(CodeOf(INFERD_ServerModelIsReady(server.get(), "simple", 7, &model_ready)),
            INFERD_ERROR_NOT_FOUND);
  EXPECT_EQ(CodeOf(INFERD_ServerModelIsReady(server.get(), "simple", -2, &model_ready)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerIsLive(nullptr, &live)), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerIsReady(server.get(), nullptr)), INFERD_ERROR_INVALID_ARG);
  // In a repository but never loaded (explicit mode): not ready, as Triton answers.
  EXPECT_C_OK(INFERD_ServerModelIsReady(server.get(), "string_identity", -1, &model_ready));
  EXPECT_EQ(model_ready, 0);
}

TEST(CapiServerTest, JsonDocumentsAreTheHttpEndpoints) {
  Server server = NewServer({"simple"});
  Json metadata, index, ready_index, model, config, stats, all_stats;
  ASSERT_C_OK(INFERD_ServerMetadata(server.get(), &metadata.text));
  EXPECT_NE(metadata.str().find(R"("name":"inferd")"), std::string::npos) << metadata.str();
  EXPECT_NE(metadata.str().find(R"("extensions":[)"), std::string::npos);

  ASSERT_C_OK(INFERD_ServerModelIndex(server.get(), 0, &index.text));
  EXPECT_NE(index.str().find(R"({"name":"simple","version":"1","state":"READY","reason":""})"),
            std::string::npos)
      << index.str();
  ASSERT_C_OK(INFERD_ServerModelIndex(server.get(), 1, &ready_index.text));
  EXPECT_EQ(ready_index.str(), R"([{"name":"simple","version":"1","state":"READY","reason":""}])");

  ASSERT_C_OK(INFERD_ServerModelMetadata(server.get(), "simple", -1, &model.text));
  EXPECT_EQ(model.str(),
            R"({"name":"simple","versions":["1"],"platform":"onnxruntime_onnx","inputs":[)"
            R"({"name":"INPUT0","datatype":"INT32","shape":[-1,16]},)"
            R"({"name":"INPUT1","datatype":"INT32","shape":[-1,16]}],"outputs":[)"
            R"({"name":"OUTPUT0","datatype":"INT32","shape":[-1,16]},)"
            R"({"name":"OUTPUT1","datatype":"INT32","shape":[-1,16]}]})");

  ASSERT_C_OK(INFERD_ServerModelConfig(server.get(), "simple", 1, &config.text));
  EXPECT_NE(config.str().find(R"("name":"simple")"), std::string::npos) << config.str();
  EXPECT_NE(config.str().find(R"("max_batch_size":8)"), std::string::npos);

  ASSERT_C_OK(INFERD_ServerModelStatistics(server.get(), "simple", -1, &stats.text));
  EXPECT_NE(stats.str().find(R"({"model_stats":[{"name":"simple","version":"1")"),
            std::string::npos)
      << stats.str();
  ASSERT_C_OK(INFERD_ServerModelStatistics(server.get(), nullptr, 0, &all_stats.text));
  EXPECT_NE(all_stats.str().find(R"("name":"simple")"), std::string::npos);

  Json unused;
  EXPECT_EQ(CodeOf(INFERD_ServerModelMetadata(server.get(), "nope", -1, &unused.text)),
            INFERD_ERROR_NOT_FOUND);
  EXPECT_EQ(CodeOf(INFERD_ServerModelConfig(server.get(), "string_identity", -1, &unused.text)),
            INFERD_ERROR_NOT_FOUND);  // explicit mode: never loaded, so not known
  EXPECT_EQ(CodeOf(INFERD_ServerModelStatistics(server.get(), "nope", -1, &unused.text)),
            INFERD_ERROR_NOT_FOUND);
  EXPECT_EQ(CodeOf(INFERD_ServerModelStatistics(server.get(), nullptr, 2, &unused.text)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerMetadata(server.get(), nullptr)), INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerModelMetadata(server.get(), nullptr, -1, &unused.text)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(unused.text, nullptr);
}

TEST(CapiServerTest, LoadAndUnloadInExplicitMode) {
  Server server = NewServer({});
  int ready = -1;
  EXPECT_C_OK(INFERD_ServerModelIsReady(server.get(), "simple", -1, &ready));
  EXPECT_EQ(ready, 0);  // in the repository, not loaded yet
  ASSERT_C_OK(INFERD_ServerLoadModel(server.get(), "simple", nullptr));
  EXPECT_C_OK(INFERD_ServerModelIsReady(server.get(), "simple", -1, &ready));
  EXPECT_EQ(ready, 1);

  SimpleInputs inputs;
  INFERD_InferResponse* raw = nullptr;
  ASSERT_C_OK(INFERD_ServerInfer(server.get(), SimpleRequest(inputs).release(), &raw));
  Response response(raw);
  ExpectSimpleOutputs(response.get(), inputs);

  ASSERT_C_OK(INFERD_ServerUnloadModel(server.get(), "simple", 0));
  EXPECT_C_OK(INFERD_ServerModelIsReady(server.get(), "simple", -1, &ready));
  EXPECT_EQ(ready, 0);
  // The response read before the unload stays readable: it owns its outputs.
  ExpectSimpleOutputs(response.get(), inputs);
  INFERD_InferResponse* none = nullptr;
  EXPECT_EQ(CodeOf(INFERD_ServerInfer(server.get(), SimpleRequest(inputs).release(), &none)),
            INFERD_ERROR_UNAVAILABLE);
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(inputs.WaitReleased(4), 4);

  // Load again with a config given as JSON: one that changes the batch size.
  ASSERT_C_OK(
      INFERD_ServerLoadModel(server.get(), "simple",
                             R"({"name":"simple","platform":"onnxruntime_onnx","max_batch_size":4,)"
                             R"("input":[{"name":"INPUT0","data_type":"TYPE_INT32","dims":[16]},)"
                             R"({"name":"INPUT1","data_type":"TYPE_INT32","dims":[16]}],)"
                             R"("output":[{"name":"OUTPUT0","data_type":"TYPE_INT32","dims":[16]},)"
                             R"({"name":"OUTPUT1","data_type":"TYPE_INT32","dims":[16]}]})"));
  Json config;
  ASSERT_C_OK(INFERD_ServerModelConfig(server.get(), "simple", -1, &config.text));
  EXPECT_NE(config.str().find(R"("max_batch_size":4)"), std::string::npos) << config.str();

  EXPECT_EQ(CodeOf(INFERD_ServerLoadModel(server.get(), "nope", nullptr)), INFERD_ERROR_NOT_FOUND);
  EXPECT_EQ(CodeOf(INFERD_ServerLoadModel(server.get(), "simple", "{not json")),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerUnloadModel(server.get(), "nope", 0)), INFERD_ERROR_NOT_FOUND);
  EXPECT_EQ(CodeOf(INFERD_ServerLoadModel(server.get(), nullptr, nullptr)),
            INFERD_ERROR_INVALID_ARG);
  EXPECT_EQ(CodeOf(INFERD_ServerUnloadModel(nullptr, "simple", 0)), INFERD_ERROR_INVALID_ARG);
}

TEST(CapiServerTest, LoadOutsideExplicitModeIsUnsupported) {
  Options options = NewOptions();
  ASSERT_C_OK(INFERD_ServerOptionsAddModelRepository(options.get(), INFERD_REPEAT_MODELS));
  ASSERT_C_OK(INFERD_ServerOptionsSetLogLevel(options.get(), "warn"));
  INFERD_EmbeddedServer* raw = nullptr;
  ASSERT_C_OK(INFERD_ServerNew(&raw, options.get()));
  Server server(raw);
  int ready = 0;
  EXPECT_C_OK(INFERD_ServerModelIsReady(server.get(), "repeat_int32", -1, &ready));
  EXPECT_EQ(ready, 1);  // mode none loads every model
  EXPECT_EQ(CodeOf(INFERD_ServerUnloadModel(server.get(), "repeat_int32", 0)),
            INFERD_ERROR_UNSUPPORTED);
  EXPECT_EQ(CodeOf(INFERD_ServerLoadModel(server.get(), "repeat_int32", nullptr)),
            INFERD_ERROR_UNSUPPORTED);
}

TEST(CapiServerTest, StopRefusesNewRequestsAndIsIdempotent) {
  Server server = NewServer({"simple"});
  ASSERT_C_OK(INFERD_ServerStop(server.get()));
  int live = 1, ready = 1;
  EXPECT_C_OK(INFERD_ServerIsLive(server.get(), &live));
  EXPECT_C_OK(INFERD_ServerIsReady(server.get(), &ready));
  EXPECT_EQ(live, 0);
  EXPECT_EQ(ready, 0);
  SimpleInputs inputs;
  INFERD_InferResponse* none = nullptr;
  Error stopped(INFERD_ServerInfer(server.get(), SimpleRequest(inputs).release(), &none));
  EXPECT_EQ(INFERD_ErrorGetCode(stopped.get()), INFERD_ERROR_UNAVAILABLE);
  EXPECT_NE(std::string(INFERD_ErrorGetMessage(stopped.get())).find("shutting down"),
            std::string::npos);
  EXPECT_EQ(inputs.WaitReleased(2), 2);  // refused requests give their inputs back too
  EXPECT_C_OK(INFERD_ServerStop(server.get()));
  EXPECT_EQ(CodeOf(INFERD_ServerStop(nullptr)), INFERD_ERROR_INVALID_ARG);
}

TEST(CapiServerTest, AModelThatFailsToLoadLeavesTheServerUnready) {
  Options options = NewOptions();
  ASSERT_C_OK(INFERD_ServerOptionsAddModelRepository(options.get(), INFERD_EXAMPLE_MODELS));
  ASSERT_C_OK(
      INFERD_ServerOptionsSetModelControlMode(options.get(), INFERD_MODEL_CONTROL_EXPLICIT));
  ASSERT_C_OK(INFERD_ServerOptionsAddStartupModel(options.get(), "simple"));
  // No backend can be found here: `simple` is UNAVAILABLE, the server not ready.
  ASSERT_C_OK(INFERD_ServerOptionsSetBackendDirectory(options.get(), "/nonexistent/backends"));
  ASSERT_C_OK(INFERD_ServerOptionsSetLogLevel(options.get(), "off"));
  INFERD_EmbeddedServer* raw = nullptr;
  ASSERT_C_OK(INFERD_ServerNew(&raw, options.get()));
  Server server(raw);
  int ready = 1;
  EXPECT_C_OK(INFERD_ServerIsReady(server.get(), &ready));
  EXPECT_EQ(ready, 0);
  Json index;
  ASSERT_C_OK(INFERD_ServerModelIndex(server.get(), 0, &index.text));
  EXPECT_NE(index.str().find(R"("name":"simple")"), std::string::npos) << index.str();
  EXPECT_NE(index.str().find(R"("state":"UNAVAILABLE")"), std::string::npos) << index.str();
}

}  // namespace
}  // namespace capi_test
