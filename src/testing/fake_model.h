// SPDX-License-Identifier: Apache-2.0
// Writes models for the fake backend (src/testing/fake_backend) into a test
// repository, and names the backend directory that holds the fake library.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inferd::testing {

// The backend_directory under which <dir>/fake/libinferd_fake.so is built.
std::string FakeBackendDirectory();

struct FakeModelSpec {
  std::string name;
  // config.pbtxt contents; nullopt writes no config file. FakeConfig()
  // prepends the lines every fake model needs.
  std::optional<std::string> config;
  // `model.fake` contents, written into every version folder.
  std::string model_file = "input INPUT0 INT32 -1 4\noutput OUTPUT0 INT32 -1 4\n";
  std::vector<int64_t> versions = {1};
};

// `backend: "fake"` and `default_model_filename: "model.fake"` followed by `body`.
std::string FakeConfig(std::string_view body = "");
// Writes <repository>/<name>/config.pbtxt and <repository>/<name>/<v>/model.fake.
void WriteFakeModel(const std::string& repository, const FakeModelSpec& spec);

}  // namespace inferd::testing
