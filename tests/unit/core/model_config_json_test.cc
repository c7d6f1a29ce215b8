// SPDX-License-Identifier: Apache-2.0
#include "core/model_config_json.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model_config.pb.h"
#include "simdjson.h"

namespace inferd::core {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

inference::ModelConfig SimpleConfig() {
  inference::ModelConfig config;
  config.set_name("simple");
  config.set_platform("onnxruntime_onnx");
  config.set_max_batch_size(8);
  auto* input = config.add_input();
  input->set_name("INPUT0");
  input->set_data_type(inference::TYPE_INT32);
  input->add_dims(16);
  input->add_dims(-1);
  auto* output = config.add_output();
  output->set_name("OUTPUT0");
  output->set_data_type(inference::TYPE_STRING);
  output->add_dims(16);
  return config;
}

TEST(ModelConfigJsonTest, PrintsFieldsWithProtoNames) {
  const std::string json = ModelConfigToJson(SimpleConfig());
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(json).get(root), simdjson::SUCCESS) << json;
  EXPECT_EQ(std::string_view(root["name"]), "simple");
  EXPECT_EQ(int64_t(root["max_batch_size"]), 8);
  EXPECT_EQ(std::string_view(root["input"].at(0)["data_type"]), "TYPE_INT32");
  EXPECT_EQ(std::string_view(root["output"].at(0)["data_type"]), "TYPE_STRING");
  // int64 dims are numbers, not the strings protobuf's JSON printer makes.
  EXPECT_EQ(int64_t(root["input"].at(0)["dims"].at(1)), -1);
  // Defaults are printed: primitives, enums, repeated fields and maps.
  EXPECT_EQ(std::string_view(root["backend"]), "");
  EXPECT_EQ(bool(root["input"].at(0)["is_shape_tensor"]), false);
  EXPECT_EQ(bool(root["input"].at(0)["optional"]), false);
  EXPECT_EQ(std::string_view(root["input"].at(0)["format"]), "FORMAT_NONE");
  EXPECT_EQ(simdjson::dom::array(root["instance_group"]).size(), 0u);
  EXPECT_EQ(simdjson::dom::object(root["parameters"]).size(), 0u);
}

TEST(ModelConfigJsonTest, UnsetMessagesAndOneofsAreLeftOut) {
  const std::string json = ModelConfigToJson(SimpleConfig());
  EXPECT_THAT(json, Not(HasSubstr("dynamic_batching")));
  EXPECT_THAT(json, Not(HasSubstr("sequence_batching")));
  EXPECT_THAT(json, Not(HasSubstr("version_policy")));
  EXPECT_THAT(json, Not(HasSubstr("model_transaction_policy")));
  EXPECT_THAT(json, Not(HasSubstr("\"reshape\"")));
}

TEST(ModelConfigJsonTest, SetMessagesMapsAndUnsigned) {
  inference::ModelConfig config = SimpleConfig();
  config.mutable_dynamic_batching()->set_max_queue_delay_microseconds(100);
  config.mutable_dynamic_batching()->add_preferred_batch_size(4);
  config.mutable_version_policy()->mutable_latest()->set_num_versions(2);
  config.mutable_model_transaction_policy()->set_decoupled(false);
  (*config.mutable_parameters())["b"].set_string_value("2");
  (*config.mutable_parameters())["a"].set_string_value("1");
  const std::string json = ModelConfigToJson(config);
  EXPECT_THAT(json, HasSubstr(R"("max_queue_delay_microseconds":100)"));
  EXPECT_THAT(json, HasSubstr(R"("preferred_batch_size":[4])"));
  EXPECT_THAT(json, HasSubstr(R"("version_policy":{"latest":{"num_versions":2}})"));
  EXPECT_THAT(json, HasSubstr(R"("model_transaction_policy":{"decoupled":false})"));
  EXPECT_THAT(json,
              HasSubstr(R"("parameters":{"a":{"string_value":"1"},"b":{"string_value":"2"}})"));
}

}  // namespace
}  // namespace inferd::core
