// SPDX-License-Identifier: Apache-2.0
// The model repository that the in-process Server tests run against: fake
// backend models that load, fail to load, fail to run, or auto-complete.
#pragma once

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "server/server.h"
#include "testing/fake_model.h"
#include "testing/temp_dir.h"

namespace inferd {

// identity: INPUT0 INT32 [4] -> OUTPUT0, INPUT1 BYTES [-1] -> OUTPUT1, batching up to 8.
inline constexpr char kIdentityIO[] = R"pb(
  max_batch_size: 8 input
  [ {
    name: "INPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }
    , {
      name: "INPUT1"
      data_type: TYPE_STRING
      dims: [ -1 ]
    }] output
  [ {
    name: "OUTPUT0"
    data_type: TYPE_INT32
    dims: [ 4 ]
  }
    , {
      name: "OUTPUT1"
      data_type: TYPE_STRING
      dims: [ -1 ]
    }])pb";

inline constexpr char kSingleIO[] = R"pb(
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
  }])pb";

inline void WriteTestRepository(const std::string& repo) {
  using testing::FakeConfig;
  testing::WriteFakeModel(repo, {"identity", FakeConfig(kIdentityIO)});
  testing::WriteFakeModel(repo, {"auto", FakeConfig()});  // completed from model.fake
  testing::WriteFakeModel(repo, {"scalar", FakeConfig(), "input X FP32 -1\noutput Y FP32 -1\n"});
  testing::WriteFakeModel(repo, {"plain", FakeConfig(kSingleIO)});  // max_batch_size 0
  testing::WriteFakeModel(repo, {"broken", FakeConfig(kSingleIO), "fail_load\n"});
  testing::WriteFakeModel(repo, {"failing", FakeConfig(kSingleIO), "fail_execute\n"});
  testing::WriteFakeModel(repo, {"unreadable", "bogus_field: 1\n"});
  testing::WriteFakeModel(repo, {"versions",
                                 FakeConfig(std::string(kSingleIO) + "version_policy { all { } }"),
                                 "",
                                 {1, 2, 3}});
  testing::WriteFile(repo + "/versions/3/model.fake", "fail_load\n");
}

inline ServerOptions TestOptions(const std::string& repo) {
  ServerOptions options;
  options.model_repositories = {repo};
  options.backend_directory = testing::FakeBackendDirectory();
  options.cpu_cores = 2;
  return options;
}

class ServerTestBase : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteTestRepository(repo_.path());
    auto server = Server::Create(TestOptions(repo_.path()));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
  }

  testing::TempDir repo_;
  std::unique_ptr<Server> server_;
};

}  // namespace inferd
