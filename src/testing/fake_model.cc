// SPDX-License-Identifier: Apache-2.0
#include "testing/fake_model.h"

#include "absl/strings/str_cat.h"
#include "testing/temp_dir.h"

namespace inferd::testing {

std::string FakeBackendDirectory() { return INFERD_TEST_BACKEND_DIR; }

std::string FakeConfig(std::string_view body) {
  return absl::StrCat("backend: \"fake\"\ndefault_model_filename: \"model.fake\"\n",
                      absl::string_view(body.data(), body.size()));
}

void WriteFakeModel(const std::string& repository, const FakeModelSpec& spec) {
  const std::string dir = absl::StrCat(repository, "/", spec.name);
  MakeDirectory(dir);
  if (spec.config) WriteFile(absl::StrCat(dir, "/config.pbtxt"), *spec.config);
  for (int64_t version : spec.versions) {
    WriteFile(absl::StrCat(dir, "/", version, "/model.fake"), spec.model_file);
  }
}

}  // namespace inferd::testing
