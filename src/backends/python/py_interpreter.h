// SPDX-License-Identifier: Apache-2.0
// The interpreter a Python model runs on when its config names none
// (EXECUTION_ENV_PATH unset): one with numpy, chosen once per process.
#pragma once

#include <string>
#include <string_view>

namespace inferd::python {

struct InterpreterChoice {
  std::string path;    // what the worker is started with
  std::string reason;  // why, for the log
  bool warn = false;   // none with numpy was found
};

// In order: `inferd_python` (the INFERD_PYTHON environment variable), then
// `configured` (--python / --backend-config=python,interpreter=...), then the
// first python3 in `search_path` (PATH's syntax) that can import numpy, then
// /usr/bin/python3, then plain "python3". Empty strings count as unset.
// Probes by running `<python3> -c "import numpy"`: slow (a numpy import per
// candidate), so call it through DefaultInterpreter.
InterpreterChoice ChooseInterpreter(std::string_view inferd_python, std::string_view configured,
                                    std::string_view search_path);

// ChooseInterpreter with this process's INFERD_PYTHON and PATH, computed once
// per `configured` value and logged the first time.
const InterpreterChoice& DefaultInterpreter(std::string_view configured);

// True when `python` (a path) exits 0 from `-c "import numpy"` within a few seconds.
bool CanImportNumpy(const std::string& python);

}  // namespace inferd::python
