// SPDX-License-Identifier: Apache-2.0
#include "cmd/backend_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace inferd::cmd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(BackendConfigTest, CollectsSettingsPerBackendInOrder) {
  BackendConfigs configs;
  ASSERT_TRUE(AddBackendConfig("onnxruntime,intra_op_thread_count=2", configs).ok());
  ASSERT_TRUE(AddBackendConfig("python,interpreter=/opt/venv/bin/python3", configs).ok());
  ASSERT_TRUE(AddBackendConfig("onnxruntime,inter_op_thread_count=1", configs).ok());
  EXPECT_THAT(configs.by_backend["onnxruntime"],
              ElementsAre(Pair("intra_op_thread_count", "2"), Pair("inter_op_thread_count", "1")));
  EXPECT_EQ(PythonInterpreter(configs), "/opt/venv/bin/python3");
}

TEST(BackendConfigTest, ValueMayHoldCommasAndEquals) {
  BackendConfigs configs;
  ASSERT_TRUE(AddBackendConfig("custom,list=a,b=c", configs).ok());
  EXPECT_THAT(configs.by_backend["custom"], ElementsAre(Pair("list", "a,b=c")));
}

TEST(BackendConfigTest, LaterInterpreterWins) {
  BackendConfigs configs;
  ASSERT_TRUE(AddBackendConfig("python,interpreter=/a", configs).ok());
  ASSERT_TRUE(AddBackendConfig("python,interpreter=/b", configs).ok());
  EXPECT_EQ(PythonInterpreter(configs), "/b");
  EXPECT_EQ(PythonInterpreter(BackendConfigs{}), "");
}

TEST(BackendConfigTest, GlobalDefaultMaxBatchSize) {
  BackendConfigs configs;
  EXPECT_EQ(configs.default_max_batch_size, 4);  // Triton's default
  ASSERT_TRUE(AddBackendConfig("default-max-batch-size=8", configs).ok());
  EXPECT_EQ(configs.default_max_batch_size, 8);
  EXPECT_TRUE(configs.by_backend.empty());
  ASSERT_TRUE(AddBackendConfig("onnxruntime,default-max-batch-size=0", configs).ok());
  EXPECT_THAT(configs.by_backend["onnxruntime"], ElementsAre(Pair("default-max-batch-size", "0")));
}

TEST(BackendConfigTest, RefusesWhatNoBackendHonours) {
  struct Case {
    const char* argument;
    const char* message;
  };
  for (const Case& c : {
           Case{"onnxruntime", "expected <backend>,<key>=<value>"},
           Case{",key=1", "expected <backend>,<key>=<value>"},
           Case{"python,=1", "expected <backend>,<key>=<value>"},
           Case{"min-compute-capability=6.0", "no such global backend setting"},
           Case{"default-max-batch-size=-1", "not a non-negative integer"},
           Case{"onnxruntime,enable-global-threadpool=1", "has no effect in inferd"},
           Case{"onnxruntime,intra_op_thread_count=many", "not a non-negative integer"},
           Case{"onnxruntime,bogus=1", "has no setting 'bogus'"},
           Case{"python,shm-growth-byte-size=1048576", "has no effect in inferd"},
           Case{"python,stub-timeout-seconds=soon", "not a number of seconds"},
           Case{"python,interpreter=", "the value is empty"},
           Case{"pytorch,enable-nvfuser=true", "has no setting 'enable-nvfuser'"},
       }) {
    BackendConfigs configs;
    const absl::Status status = AddBackendConfig(c.argument, configs);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.argument;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message)) << c.argument;
    EXPECT_TRUE(configs.by_backend.empty()) << c.argument;
  }
}

TEST(BackendConfigTest, UnknownKeyMessageListsTheAcceptedOnes) {
  BackendConfigs configs;
  const absl::Status status = AddBackendConfig("python,shm_default_byte_size=1", configs);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("default-max-batch-size, interpreter, shm-default-byte-size, "
                        "stub-timeout-seconds"));
}

TEST(BackendConfigTest, CustomBackendsJudgeTheirOwnKeys) {
  BackendConfigs configs;
  EXPECT_TRUE(AddBackendConfig("image_preprocess,anything=goes", configs).ok());
  EXPECT_THAT(configs.by_backend["image_preprocess"], ElementsAre(Pair("anything", "goes")));
}

}  // namespace
}  // namespace inferd::cmd
