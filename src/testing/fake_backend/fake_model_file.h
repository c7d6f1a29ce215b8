// SPDX-License-Identifier: Apache-2.0
// The text format of the fake backend's model file (`model.fake`), one
// directive per line, `#` starts a comment:
//   input  <name> <DATATYPE> <dim>...    a model input (-1: variable)
//   output <name> <DATATYPE> <dim>...    a model output; output i echoes input i
//   fail_load                            ModelCreate fails
//   fail_instance                        InstanceCreate fails
//   fail_execute                         every request completes with an error
// Test-only directives that make scheduling observable from outside:
//   block_until_exists <path>            Execute waits until <path> exists
//                                        (polled every millisecond)
//   block_until_exists_for_value <dir>   Execute waits until <dir>/<v> exists,
//                                        v = the batch's first value (below)
//   block_load_until_exists <path>       ModelCreate waits until <path> exists
//                                        (polled every millisecond), so a test
//                                        can hold a version in LOADING
//   log_executions <path>                Execute appends "start <instance> <v>..."
//                                        on entry (before blocking) and
//                                        "end <instance> <v>..." when done, one v
//                                        per request: the first element of its
//                                        first input read as INT32 ("-" if none)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inferd/backend.h"

namespace inferd::fake {

struct FakeTensor {
  std::string name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::vector<int64_t> dims;
};

struct FakeModelFile {
  std::vector<FakeTensor> inputs;
  std::vector<FakeTensor> outputs;
  bool fail_load = false;
  bool fail_instance = false;
  bool fail_execute = false;
  std::string block_until_exists;            // empty: never blocks
  std::string block_until_exists_for_value;  // a folder; empty: never blocks
  std::string block_load_until_exists;       // empty: ModelCreate never blocks
  std::string log_executions;                // empty: no log
};

// Parses `text`; on a malformed line returns false and sets `error`.
bool ParseFakeModelFile(const std::string& text, FakeModelFile* file, std::string* error);
// Reads and parses the file at `path`; false with `error` when unreadable.
bool ReadFakeModelFile(const std::string& path, FakeModelFile* file, std::string* error);

}  // namespace inferd::fake
