// SPDX-License-Identifier: Apache-2.0
// WarmUpInstance: the requests it builds (shapes, zero / random / file data,
// BYTES), how often it runs each sample, and its errors. Most tests use an
// instance double that records what it got; the last ones go through the
// fake backend and the real ABI.
#include "lifecycle/warmup.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/abi/backend_library.h"
#include "backends/abi/backend_request.h"
#include "base/file_system.h"
#include "base/mutex.h"
#include "core/bytes_encoding.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "repository/model_config_parser.h"
#include "testing/fake_model.h"
#include "testing/infer_helpers.h"
#include "testing/temp_dir.h"

namespace inferd::lifecycle {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// What one request carried into the instance.
struct Received {
  std::string model_name;
  std::string model_version;
  std::vector<core::Tensor> inputs;  // the buffers stay alive with them
  std::vector<std::string> output_names;
  int64_t batch_size = 0;

  const core::Tensor& input(size_t i) const { return inputs.at(i); }
};

// Records every request; answers each with zero-filled outputs of the
// config's shapes, or with `error` when set. With `async`, answers on a
// thread of its own after Execute has returned, as real backends may.
class RecordingInstance final : public backends::BackendInstance {
 public:
  explicit RecordingInstance(std::string error = "", bool async = false)
      : error_(std::move(error)), async_(async) {}
  ~RecordingInstance() override {
    for (auto& thread : threads_) thread.join();
  }

  void Execute(std::vector<std::unique_ptr<INFERD_Request>> requests) override {
    for (auto& request : requests) {
      {
        base::MutexLock lock(&mu_);
        received_.push_back(Received{request->request().model_name,
                                     request->request().model_version, request->request().inputs,
                                     request->output_names(), request->batch_size()});
      }
      if (async_) {
        threads_.emplace_back([this, owned = std::shared_ptr<INFERD_Request>(std::move(request))] {
          Answer(*owned);
        });
      } else {
        Answer(*request);
      }
    }
  }

  std::vector<Received> received() {
    base::MutexLock lock(&mu_);
    return received_;
  }

 private:
  void Answer(INFERD_Request& request) {
    if (!error_.empty()) {
      request.Complete(absl::InternalError(error_));
      return;
    }
    for (const auto& name : request.output_names()) {
      const backends::OutputSpec* spec = request.io().FindOutput(name);
      core::Shape shape;
      if (request.io().max_batch_size > 0) shape.push_back(request.batch_size());
      shape.insert(shape.end(), spec->dims.begin(), spec->dims.end());
      int64_t count = 1;
      for (int64_t d : shape) count *= d;
      std::string data;
      if (spec->datatype == core::DataType::kBytes) {
        for (int64_t i = 0; i < count; ++i) core::AppendBytesElement("", data);
      } else {
        data.assign(static_cast<size_t>(count) * core::DataTypeByteSize(spec->datatype), '\0');
      }
      const absl::Status added =
          request.AddOutput(name, static_cast<INFERD_DataType>(spec->datatype), shape.data(),
                            shape.size(), core::Buffer::Own(std::move(data)));
      if (!added.ok()) {
        request.Complete(added);
        return;
      }
    }
    request.Complete(absl::OkStatus());
  }

  const std::string error_;
  const bool async_;
  base::Mutex mu_;
  std::vector<Received> received_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_;  // touched by Execute's caller only
};

inference::ModelConfig Config(const std::string& text) {
  auto config = repository::ParseModelConfig("name: \"m\"\n" + text, "config.pbtxt");
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : inference::ModelConfig();
}

constexpr char kBatchingFp32[] = R"pb(
  max_batch_size: 8 input
  [ {
    name: "INPUT0"
    data_type: TYPE_FP32
    dims: [ 2, 3 ]
  }] output
  [ {
    name: "OUTPUT0"
    data_type: TYPE_FP32
    dims: [ 2, 3 ]
  }]
)pb";

constexpr char kBatchingInt32[] = R"pb(
  max_batch_size: 8 input
  [ {
    name: "INPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }] output
  [ {
    name: "OUTPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }]
)pb";

constexpr char kBatchingBytes[] = R"pb(
  max_batch_size: 8 input
  [ {
    name: "TEXT"
    data_type: TYPE_STRING
    dims: [ 2 ]
  }] output
  [ {
    name: "OUT"
    data_type: TYPE_STRING
    dims: [ 2 ]
  }]
)pb";

std::string Int32Bytes(const std::vector<int32_t>& values) {
  std::string bytes(values.size() * sizeof(int32_t), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

class WarmupTest : public ::testing::Test {
 protected:
  absl::Status WarmUp(const std::string& config_text, backends::BackendInstance& instance) {
    return WarmUpInstance(Config(config_text), dir_.path(), 3, instance);
  }
  void WriteWarmupFile(const std::string& name, std::string_view contents) {
    testing::WriteFile(dir_.Join("warmup/" + name), contents);
  }

  testing::TempDir dir_;
  RecordingInstance instance_;
};

TEST_F(WarmupTest, ZeroDataArrivesAsZerosShapedBatchThenDims) {
  ASSERT_TRUE(WarmUp(std::string(kBatchingFp32) + R"pb(
                       model_warmup
                       [ {
                         name: "zeros"
                         batch_size: 4
                         inputs {
                           key: "INPUT0"
                           value {
                             data_type: TYPE_FP32
                             dims: [ 2, 3 ]
                             zero_data: true
                           }
                         }
                       }])pb",
                     instance_)
                  .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 1u);
  const Received& r = received[0];
  EXPECT_EQ(r.model_name, "m");
  EXPECT_EQ(r.model_version, "3");
  EXPECT_EQ(r.batch_size, 4);
  EXPECT_THAT(r.output_names, ElementsAre("OUTPUT0"));
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.input(0).name, "INPUT0");
  EXPECT_EQ(r.input(0).datatype, core::DataType::kFp32);
  EXPECT_THAT(r.input(0).shape, ElementsAre(4, 2, 3));
  EXPECT_THAT(testing::TensorValues<float>(r.input(0)), ::testing::SizeIs(24));
  EXPECT_THAT(testing::TensorValues<float>(r.input(0)), Each(0.0f));
}

TEST_F(WarmupTest, WithoutBatchingTheShapeIsTheDims) {
  ASSERT_TRUE(WarmUp(R"pb(
                       input
                       [ {
                         name: "INPUT0"
                         data_type: TYPE_FP32
                         dims: [ 2, 3 ]
                       }] output
                       [ {
                         name: "OUTPUT0"
                         data_type: TYPE_FP32
                         dims: [ 2, 3 ]
                       }] model_warmup
                       [ {
                         name: "zeros"
                         batch_size: 1
                         inputs {
                           key: "INPUT0"
                           value {
                             data_type: TYPE_FP32
                             dims: [ 2, 3 ]
                             zero_data: true
                           }
                         }
                       }])pb",
                     instance_)
                  .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_EQ(received[0].batch_size, 1);
  EXPECT_THAT(received[0].input(0).shape, ElementsAre(2, 3));
  EXPECT_EQ(received[0].input(0).data.size, 24u);
}

TEST_F(WarmupTest, VariableDimsTakeTheSamplesDims) {
  ASSERT_TRUE(WarmUp(R"pb(
                       max_batch_size: 2 input
                       [ {
                         name: "INPUT0"
                         data_type: TYPE_INT32
                         dims: [ -1 ]
                       }] output
                       [ {
                         name: "OUTPUT0"
                         data_type: TYPE_INT32
                         dims: [ 1 ]
                       }] model_warmup
                       [ {
                         name: "zeros"
                         batch_size: 2
                         inputs {
                           key: "INPUT0"
                           value {
                             data_type: TYPE_INT32
                             dims: [ 5 ]
                             zero_data: true
                           }
                         }
                       }])pb",
                     instance_)
                  .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_THAT(received[0].input(0).shape, ElementsAre(2, 5));
  EXPECT_EQ(received[0].input(0).data.size, 40u);
}

TEST_F(WarmupTest, AReshapedInputArrivesInTheReshapeShape) {
  ASSERT_TRUE(WarmUp(R"pb(
                       max_batch_size: 4 input
                       [ {
                         name: "INPUT0"
                         data_type: TYPE_FP32
                         dims: [ 4 ]
                         reshape { shape: [ 2, 2 ] }
                       }] output
                       [ {
                         name: "OUTPUT0"
                         data_type: TYPE_FP32
                         dims: [ 1 ]
                       }] model_warmup
                       [ {
                         name: "reshaped"
                         batch_size: 3
                         inputs {
                           key: "INPUT0"
                           value {
                             data_type: TYPE_FP32
                             dims: [ 4 ]
                             zero_data: true
                           }
                         }
                       }])pb",
                     instance_)
                  .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_THAT(received[0].input(0).shape, ElementsAre(3, 2, 2));
}

TEST_F(WarmupTest, RandomDataFillsTheTensor) {
  ASSERT_TRUE(WarmUp(R"pb(
                       max_batch_size: 8 input
                       [ {
                         name: "INPUT0"
                         data_type: TYPE_UINT8
                         dims: [ 64 ]
                       }] output
                       [ {
                         name: "OUTPUT0"
                         data_type: TYPE_UINT8
                         dims: [ 64 ]
                       }] model_warmup
                       [ {
                         name: "random"
                         batch_size: 3
                         inputs {
                           key: "INPUT0"
                           value {
                             data_type: TYPE_UINT8
                             dims: [ 64 ]
                             random_data: true
                           }
                         }
                       }])pb",
                     instance_)
                  .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 1u);
  const core::Tensor& tensor = received[0].input(0);
  EXPECT_THAT(tensor.shape, ElementsAre(3, 64));
  ASSERT_EQ(tensor.data.size, 192u);
  const auto bytes = testing::TensorValues<uint8_t>(tensor);
  EXPECT_GT(std::count_if(bytes.begin(), bytes.end(), [](uint8_t b) { return b != 0; }), 100);
}

TEST_F(WarmupTest, FileDataIsRepeatedToFillTheBatch) {
  WriteWarmupFile("row.bin", Int32Bytes({1, 2, 3, 4}));
  ASSERT_TRUE(WarmUp(std::string(kBatchingInt32) + R"pb(
                       model_warmup
                       [ {
                         name: "file"
                         batch_size: 3
                         inputs {
                           key: "INPUT0"
                           value {
                             data_type: TYPE_INT32
                             dims: [ 4 ]
                             input_data_file: "row.bin"
                           }
                         }
                       }])pb",
                     instance_)
                  .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_THAT(received[0].input(0).shape, ElementsAre(3, 4));
  EXPECT_THAT(testing::TensorValues<int32_t>(received[0].input(0)),
              ElementsAre(1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4));
}

TEST_F(WarmupTest, EverySampleRunsCountTimesAndAtLeastOnce) {
  ASSERT_TRUE(WarmUp(std::string(kBatchingInt32) + R"pb(
                       model_warmup
                       [ {
                         name: "thrice"
                         batch_size: 1
                         count: 3
                         inputs {
                           key: "INPUT0"
                           value {
                             data_type: TYPE_INT32
                             dims: [ 4 ]
                             zero_data: true
                           }
                         }
                       }
                         , {
                           name: "once"
                           batch_size: 2
                           inputs {
                             key: "INPUT0"
                             value {
                               data_type: TYPE_INT32
                               dims: [ 4 ]
                               zero_data: true
                             }
                           }
                         }])pb",
                     instance_)
                  .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 4u);
  EXPECT_EQ(received[0].batch_size, 1);
  EXPECT_EQ(received[2].batch_size, 1);
  EXPECT_EQ(received[3].batch_size, 2);
}

TEST_F(WarmupTest, ASampleOfBatchSizeZeroIsSkipped) {
  ASSERT_TRUE(WarmUp(std::string(kBatchingInt32) + R"pb(
                       model_warmup
                       [ {
                         name: "skipped"
                         batch_size: 0
                         count: 5
                         inputs {
                           key: "INPUT0"
                           value {
                             data_type: TYPE_INT32
                             dims: [ 4 ]
                             zero_data: true
                           }
                         }
                       }])pb",
                     instance_)
                  .ok());
  EXPECT_TRUE(instance_.received().empty());
}

TEST_F(WarmupTest, NoSamplesMeansNoRequests) {
  ASSERT_TRUE(WarmUp(kBatchingInt32, instance_).ok());
  EXPECT_TRUE(instance_.received().empty());
}

TEST_F(WarmupTest, ABackendErrorNamesTheSampleAndStopsTheWarmUp) {
  RecordingInstance failing("out of device memory");
  const absl::Status status = WarmUp(std::string(kBatchingInt32) + R"pb(
                                       model_warmup
                                       [ {
                                         name: "big"
                                         batch_size: 8
                                         count: 3
                                         inputs {
                                           key: "INPUT0"
                                           value {
                                             data_type: TYPE_INT32
                                             dims: [ 4 ]
                                             zero_data: true
                                           }
                                         }
                                       }])pb",
                                     failing);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(std::string(status.message()), "warm-up sample 'big' failed: out of device memory");
  EXPECT_EQ(failing.received().size(), 1u);
}

TEST_F(WarmupTest, AnAnswerFromAnotherThreadIsAwaited) {
  RecordingInstance async("", /*async=*/true);
  ASSERT_TRUE(WarmUp(std::string(kBatchingInt32) + R"pb(
                       model_warmup
                       [ {
                         name: "async"
                         batch_size: 2
                         count: 4
                         inputs {
                           key: "INPUT0"
                           value {
                             data_type: TYPE_INT32
                             dims: [ 4 ]
                             random_data: true
                           }
                         }
                       }])pb",
                     async)
                  .ok());
  EXPECT_EQ(async.received().size(), 4u);
}

TEST_F(WarmupTest, AFileOfTheWrongSizeNamesTheFileAndBothSizes) {
  WriteWarmupFile("short.bin", Int32Bytes({1, 2, 3}));
  const absl::Status status = WarmUp(std::string(kBatchingInt32) + R"pb(
                                       model_warmup
                                       [ {
                                         name: "short"
                                         batch_size: 1
                                         inputs {
                                           key: "INPUT0"
                                           value {
                                             data_type: TYPE_INT32
                                             dims: [ 4 ]
                                             input_data_file: "short.bin"
                                           }
                                         }
                                       }])pb",
                                     instance_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("warm-up sample 'short'"));
  EXPECT_THAT(std::string(status.message()), HasSubstr(dir_.Join("warmup/short.bin")));
  EXPECT_THAT(std::string(status.message()), HasSubstr("has 12 bytes"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("needs 16"));
  EXPECT_TRUE(instance_.received().empty());
}

TEST_F(WarmupTest, AMissingFileNamesTheSampleAndThePath) {
  const absl::Status status = WarmUp(std::string(kBatchingInt32) + R"pb(
                                       model_warmup
                                       [ {
                                         name: "missing"
                                         batch_size: 1
                                         inputs {
                                           key: "INPUT0"
                                           value {
                                             data_type: TYPE_INT32
                                             dims: [ 4 ]
                                             input_data_file: "nope.bin"
                                           }
                                         }
                                       }])pb",
                                     instance_);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("warm-up sample 'missing'"));
  EXPECT_THAT(std::string(status.message()), HasSubstr(dir_.Join("warmup/nope.bin")));
}

TEST_F(WarmupTest, AFileOutsideTheWarmupFolderIsRefused) {
  testing::WriteFile(dir_.Join("secret.bin"), Int32Bytes({1, 2, 3, 4}));
  const absl::Status status = WarmUp(std::string(kBatchingInt32) + R"pb(
                                       model_warmup
                                       [ {
                                         name: "escape"
                                         batch_size: 1
                                         inputs {
                                           key: "INPUT0"
                                           value {
                                             data_type: TYPE_INT32
                                             dims: [ 4 ]
                                             input_data_file: "../secret.bin"
                                           }
                                         }
                                       }])pb",
                                     instance_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("relative path inside warmup/"));
  EXPECT_TRUE(instance_.received().empty());
}

TEST_F(WarmupTest, BytesZeroDataIsEmptyElements) {
  ASSERT_TRUE(WarmUp(std::string(kBatchingBytes) + R"pb(
                       model_warmup
                       [ {
                         name: "text"
                         batch_size: 3
                         inputs {
                           key: "TEXT"
                           value {
                             data_type: TYPE_STRING
                             dims: [ 2 ]
                             zero_data: true
                           }
                         }
                       }])pb",
                     instance_)
                  .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 1u);
  const core::Tensor& tensor = received[0].input(0);
  EXPECT_EQ(tensor.datatype, core::DataType::kBytes);
  EXPECT_THAT(tensor.shape, ElementsAre(3, 2));
  EXPECT_EQ(tensor.data.view(), std::string(6 * 4, '\0'));
  EXPECT_THAT(testing::DecodeBytes(tensor.data.view()), ElementsAre("", "", "", "", "", ""));
}

TEST_F(WarmupTest, BytesRandomDataFallsBackToEmptyElements) {
  ASSERT_TRUE(WarmUp(std::string(kBatchingBytes) + R"pb(
                       model_warmup
                       [ {
                         name: "text"
                         batch_size: 1
                         inputs {
                           key: "TEXT"
                           value {
                             data_type: TYPE_STRING
                             dims: [ 2 ]
                             random_data: true
                           }
                         }
                       }])pb",
                     instance_)
                  .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_THAT(testing::DecodeBytes(received[0].input(0).data.view()), ElementsAre("", ""));
}

TEST_F(WarmupTest, BytesFileDataIsRepeatedToFillTheBatch) {
  WriteWarmupFile("text.bin", testing::EncodeBytes({"hello", "w"}));
  ASSERT_TRUE(WarmUp(std::string(kBatchingBytes) + R"pb(
                       model_warmup
                       [ {
                         name: "text"
                         batch_size: 2
                         inputs {
                           key: "TEXT"
                           value {
                             data_type: TYPE_STRING
                             dims: [ 2 ]
                             input_data_file: "text.bin"
                           }
                         }
                       }])pb",
                     instance_)
                  .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 1u);
  EXPECT_THAT(received[0].input(0).shape, ElementsAre(2, 2));
  EXPECT_THAT(testing::DecodeBytes(received[0].input(0).data.view()),
              ElementsAre("hello", "w", "hello", "w"));
}

TEST_F(WarmupTest, ABytesFileWithTheWrongElementCountNamesTheFile) {
  WriteWarmupFile("three.bin", testing::EncodeBytes({"a", "b", "c"}));
  const absl::Status status = WarmUp(std::string(kBatchingBytes) + R"pb(
                                       model_warmup
                                       [ {
                                         name: "text"
                                         batch_size: 1
                                         inputs {
                                           key: "TEXT"
                                           value {
                                             data_type: TYPE_STRING
                                             dims: [ 2 ]
                                             input_data_file: "three.bin"
                                           }
                                         }
                                       }])pb",
                                     instance_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr(dir_.Join("warmup/three.bin")));
  EXPECT_THAT(std::string(status.message()), HasSubstr("holds 3 BYTES elements"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("needs 2"));
}

TEST_F(WarmupTest, AMalformedBytesFileNamesTheFile) {
  WriteWarmupFile("cut.bin", testing::EncodeBytes({"hello", "world"}).substr(0, 12));
  const absl::Status status = WarmUp(std::string(kBatchingBytes) + R"pb(
                                       model_warmup
                                       [ {
                                         name: "text"
                                         batch_size: 1
                                         inputs {
                                           key: "TEXT"
                                           value {
                                             data_type: TYPE_STRING
                                             dims: [ 2 ]
                                             input_data_file: "cut.bin"
                                           }
                                         }
                                       }])pb",
                                     instance_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr(dir_.Join("warmup/cut.bin")));
  EXPECT_THAT(std::string(status.message()), HasSubstr("not a BYTES sequence"));
}

TEST_F(WarmupTest, SamplesThatDoNotFitTheConfigAreRefusedBeforeRunning) {
  struct Case {
    const char* config;
    const char* sample_input;
    int batch_size;
    const char* error;
  };
  const Case cases[] = {
      {kBatchingInt32,
       R"(key: "OTHER" value { data_type: TYPE_INT32 dims: [ 4 ] zero_data: true })", 1,
       "has data for input 'OTHER', which the model lacks"},
      {kBatchingInt32,
       R"(key: "INPUT0" value { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true })", 1,
       "has data_type FP32; the model expects INT32"},
      {kBatchingInt32,
       R"(key: "INPUT0" value { data_type: TYPE_INT32 dims: [ 5 ] zero_data: true })", 1,
       "has dims [5]; the model expects [4]"},
      {kBatchingInt32, R"(key: "INPUT0" value { data_type: TYPE_INT32 dims: [ 4 ] })", 1,
       "input 'INPUT0' has no data"},
      {kBatchingInt32,
       R"(key: "INPUT0" value { data_type: TYPE_INT32 dims: [ 4 ] zero_data: true })", 9,
       "batch_size 9 exceeds max_batch_size 8"},
      {R"pb(input
            [ {
              name: "INPUT0"
              data_type: TYPE_INT32
              dims: [ 4 ]
            }] output
            [ {
              name: "OUTPUT0"
              data_type: TYPE_INT32
              dims: [ 4 ]
            }])pb",
       R"(key: "INPUT0" value { data_type: TYPE_INT32 dims: [ 4 ] zero_data: true })", 2,
       "batch_size 2 must be 1 for a model without batching"},
  };
  for (const Case& c : cases) {
    const absl::Status status =
        WarmUp(absl::StrCat(c.config, " model_warmup [ { name: \"s\" batch_size: ", c.batch_size,
                            " inputs { ", c.sample_input, " } } ]"),
               instance_);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.error;
    EXPECT_THAT(std::string(status.message()), HasSubstr("warm-up sample 's'"));
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.error));
  }
  const absl::Status missing = WarmUp(R"pb(
                                        max_batch_size: 8 input
                                        [ {
                                          name: "A"
                                          data_type: TYPE_INT32
                                          dims: [ 1 ]
                                        }
                                          , {
                                            name: "B"
                                            data_type: TYPE_INT32
                                            dims: [ 1 ]
                                            optional: true
                                          }
                                          , {
                                            name: "C"
                                            data_type: TYPE_INT32
                                            dims: [ 1 ]
                                          }] output
                                        [ {
                                          name: "OUTPUT0"
                                          data_type: TYPE_INT32
                                          dims: [ 1 ]
                                        }] model_warmup
                                        [ {
                                          name: "s"
                                          batch_size: 1
                                          inputs {
                                            key: "A"
                                            value {
                                              data_type: TYPE_INT32
                                              dims: [ 1 ]
                                              zero_data: true
                                            }
                                          }
                                        }])pb",
                                      instance_);
  EXPECT_THAT(std::string(missing.message()),
              HasSubstr("warm-up sample 's': has no data for input 'C'"));
  EXPECT_TRUE(instance_.received().empty());
}

// Through the fake backend (an identity model) and the real ABI: the outputs
// it echoes pass the server's output checks, so the inputs were well formed.
class FakeBackendWarmupTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::unique_ptr<backends::BackendInstance>> Instance(
      const inference::ModelConfig& config, const std::string& model_file) {
    testing::WriteFile(dir_.Join("1/model.fake"), model_file);
    auto library = backends::BackendLibrary::Open(testing::FakeBackendDirectory(), "fake");
    if (!library.ok()) return library.status();
    auto spec = std::make_unique<backends::ModelSpecStorage>(config, 1, dir_.path(),
                                                             dir_.Join("1/model.fake"), 1);
    auto model = backends::BackendModel::Create(*library, std::move(spec));
    if (!model.ok()) return model.status();
    model_ = std::move(*model);
    return model_->CreateInstance(0);
  }

  testing::TempDir dir_;
  std::unique_ptr<backends::BackendModel> model_;
};

constexpr char kFakeModel[] = R"pb(
  backend: "fake"
  max_batch_size: 4 input
  [ {
    name: "INPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }
    , {
      name: "TEXT"
      data_type: TYPE_STRING
      dims: [ 2 ]
    }] output
  [ {
    name: "OUTPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }
    , {
      name: "OUT"
      data_type: TYPE_STRING
      dims: [ 2 ]
    }] model_warmup
  [ {
    name: "mixed"
    batch_size: 4
    count: 2
    inputs {
      key: "INPUT0"
      value {
        data_type: TYPE_INT32
        dims: [ 4 ]
        input_data_file: "row.bin"
      }
    }
    inputs {
      key: "TEXT"
      value {
        data_type: TYPE_STRING
        dims: [ 2 ]
        zero_data: true
      }
    }
  }]
)pb";

constexpr char kFakeModelFile[] =
    "input INPUT0 INT32 -1 4\ninput TEXT BYTES -1 2\n"
    "output OUTPUT0 INT32 -1 4\noutput OUT BYTES -1 2\n";

TEST_F(FakeBackendWarmupTest, ABackendAcceptsTheWarmUpRequests) {
  testing::WriteFile(dir_.Join("warmup/row.bin"), Int32Bytes({7, 8, 9, 10}));
  const std::string log = dir_.Join("executions.log");
  const inference::ModelConfig config = Config(kFakeModel);
  auto instance = Instance(config, std::string(kFakeModelFile) + "log_executions " + log + "\n");
  ASSERT_TRUE(instance.ok()) << instance.status();
  const absl::Status status = WarmUpInstance(config, dir_.path(), 1, **instance);
  ASSERT_TRUE(status.ok()) << status;
  // Two runs, each led by the file's first value.
  auto lines = base::ReadFile(log);
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(*lines, "start 0 7\nend 0 7\nstart 0 7\nend 0 7\n");
}

TEST_F(FakeBackendWarmupTest, AFailingBackendNamesTheSample) {
  testing::WriteFile(dir_.Join("warmup/row.bin"), Int32Bytes({7, 8, 9, 10}));
  const inference::ModelConfig config = Config(kFakeModel);
  auto instance = Instance(config, std::string(kFakeModelFile) + "fail_execute\n");
  ASSERT_TRUE(instance.ok()) << instance.status();
  const absl::Status status = WarmUpInstance(config, dir_.path(), 1, **instance);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("warm-up sample 'mixed' failed: "));
  EXPECT_THAT(std::string(status.message()), HasSubstr("fail_execute"));
}

}  // namespace
}  // namespace inferd::lifecycle

namespace inferd::lifecycle {
namespace {

TEST_F(WarmupTest, ASequenceModelGetsControlAndStateTensors) {
  ASSERT_TRUE(
      WarmUp(std::string(kBatchingInt32) + R"pb(
               sequence_batching { control_input
                                   [ {
                                     name: "START" control
                                     [ {
                                       kind: CONTROL_SEQUENCE_START
                                       int32_false_true: [ 0, 1 ]
                                     }]
                                   }
                                     , {
                                       name: "CORRID" control
                                       [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 }]
                                     }] state
                                   [ {
                                     input_name: "S_IN"
                                     output_name: "S_OUT"
                                     data_type: TYPE_INT32
                                     dims: [ 2 ]
                                     initial_state {
                                       name: "i"
                                       data_type: TYPE_INT32
                                       dims: [ 2 ]
                                       zero_data: true
                                     }
                                   }] } model_warmup
               [ {
                 name: "w"
                 batch_size: 3
                 inputs {
                   key: "INPUT0"
                   value {
                     data_type: TYPE_INT32
                     dims: [ 4 ]
                     zero_data: true
                   }
                 }
               }])pb",
             instance_)
          .ok());
  const auto received = instance_.received();
  ASSERT_EQ(received.size(), 1u);
  const Received& r = received[0];
  EXPECT_THAT(r.output_names, ElementsAre("OUTPUT0", "S_OUT"));
  ASSERT_EQ(r.inputs.size(), 4u);
  EXPECT_EQ(r.input(1).name, "START");
  EXPECT_THAT(r.input(1).shape, ElementsAre(3, 1));
  EXPECT_THAT(testing::TensorValues<int32_t>(r.input(1)), ElementsAre(1, 1, 1));
  EXPECT_EQ(r.input(2).name, "CORRID");
  EXPECT_THAT(testing::TensorValues<uint64_t>(r.input(2)), ElementsAre(1, 1, 1));
  EXPECT_EQ(r.input(3).name, "S_IN");
  EXPECT_THAT(r.input(3).shape, ElementsAre(3, 2));
  EXPECT_THAT(testing::TensorValues<int32_t>(r.input(3)), Each(0));
}

}  // namespace
}  // namespace inferd::lifecycle
