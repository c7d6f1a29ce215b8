// SPDX-License-Identifier: Apache-2.0
#include "server/metadata_json.h"

#include "gtest/gtest.h"

namespace inferd {
namespace {

TEST(MetadataJsonTest, ServerMetadata) {
  ServerMetadata metadata{"inferd", "0.1.0", {"binary_tensor_data", "model_configuration"}};
  EXPECT_EQ(ServerMetadataJson(metadata),
            R"({"name":"inferd","version":"0.1.0","extensions":["binary_tensor_data",)"
            R"("model_configuration"]})");
}

TEST(MetadataJsonTest, ModelMetadata) {
  ModelMetadata metadata;
  metadata.name = "simple";
  metadata.versions = {"1", "2"};
  metadata.platform = "onnxruntime_onnx";
  metadata.inputs = {{"INPUT0", core::DataType::kInt32, {-1, 16}}};
  metadata.outputs = {{"OUTPUT0", core::DataType::kBytes, {-1, -1}}};
  EXPECT_EQ(ModelMetadataJson(metadata),
            R"({"name":"simple","versions":["1","2"],"platform":"onnxruntime_onnx",)"
            R"("inputs":[{"name":"INPUT0","datatype":"INT32","shape":[-1,16]}],)"
            R"("outputs":[{"name":"OUTPUT0","datatype":"BYTES","shape":[-1,-1]}]})");
}

TEST(MetadataJsonTest, RepositoryIndex) {
  std::vector<ModelIndexEntry> entries = {{"a", "1", "READY", ""},
                                          {"b", "", "UNAVAILABLE", "bad \"config\""}};
  EXPECT_EQ(RepositoryIndexJson(entries),
            R"([{"name":"a","version":"1","state":"READY","reason":""},)"
            R"({"name":"b","version":"","state":"UNAVAILABLE","reason":"bad \"config\""}])");
  EXPECT_EQ(RepositoryIndexJson({}), "[]");
  // A model never loaded is its name alone, as Triton writes it.
  EXPECT_EQ(RepositoryIndexJson({{"c", "", "", ""}}), R"([{"name":"c"}])");
}

}  // namespace
}  // namespace inferd
