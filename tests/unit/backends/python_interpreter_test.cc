// SPDX-License-Identifier: Apache-2.0
// The default interpreter of Python models (py_interpreter.h), with fake
// python3 scripts that can or cannot "import numpy".
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "py_interpreter.h"

namespace inferd::python {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class PythonInterpreterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("inferd_interpreter_test_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // <root>/<folder>/python3: a script exiting 0 (numpy imports) or 1.
  std::string FakePython(const std::string& folder, bool has_numpy) {
    fs::create_directories(root_ / folder);
    const fs::path path = root_ / folder / "python3";
    std::ofstream(path) << "#!/bin/sh\nexit " << (has_numpy ? 0 : 1) << "\n";
    ::chmod(path.c_str(), 0755);
    return path.string();
  }
  std::string Folder(const std::string& folder) const { return (root_ / folder).string(); }

  fs::path root_;
};

TEST_F(PythonInterpreterTest, InferdPythonWinsOverEverything) {
  FakePython("good", true);
  const InterpreterChoice choice =
      ChooseInterpreter("/opt/env/bin/python3", "/flag/python3", Folder("good"));
  EXPECT_EQ(choice.path, "/opt/env/bin/python3");
  EXPECT_THAT(choice.reason, HasSubstr("INFERD_PYTHON"));
}

TEST_F(PythonInterpreterTest, TheFlagComesNext) {
  const InterpreterChoice choice = ChooseInterpreter("", "/flag/python3", "");
  EXPECT_EQ(choice.path, "/flag/python3");
  EXPECT_THAT(choice.reason, HasSubstr("--python"));
  EXPECT_FALSE(choice.warn);
}

TEST_F(PythonInterpreterTest, SkipsAPythonWithoutNumpy) {
  const std::string bad = FakePython("bad", false);
  const std::string good = FakePython("good", true);
  const InterpreterChoice choice =
      ChooseInterpreter("", "", Folder("empty") + ":" + Folder("bad") + "::" + Folder("good"));
  EXPECT_EQ(choice.path, good);
  EXPECT_THAT(choice.reason, HasSubstr("first python3 on PATH that can import numpy"));
  EXPECT_THAT(choice.reason, HasSubstr(bad));
  EXPECT_FALSE(choice.warn);
}

TEST_F(PythonInterpreterTest, FallsBackToTheSystemPython) {
  FakePython("bad", false);
  const InterpreterChoice choice = ChooseInterpreter("", "", Folder("bad"));
  if (::access("/usr/bin/python3", X_OK) != 0) {
    EXPECT_EQ(choice.path, "python3");
    EXPECT_TRUE(choice.warn);
    return;
  }
  EXPECT_EQ(choice.path, "/usr/bin/python3");
  // Whether it has numpy depends on the machine; the reason says which.
  EXPECT_EQ(choice.warn, !CanImportNumpy("/usr/bin/python3"));
  EXPECT_THAT(choice.reason, HasSubstr("no python3 on PATH"));
}

TEST_F(PythonInterpreterTest, ProbeAnswersFalseForWhatCannotRun) {
  EXPECT_FALSE(CanImportNumpy(Folder("missing") + "/python3"));
  EXPECT_TRUE(CanImportNumpy(FakePython("good", true)));
  EXPECT_FALSE(CanImportNumpy(FakePython("bad", false)));
}

}  // namespace
}  // namespace inferd::python
