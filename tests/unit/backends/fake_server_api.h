// SPDX-License-Identifier: Apache-2.0
// A minimal server side of include/inferd/backend.h for testing backend
// libraries in isolation: errors, signatures and requests are plain structs
// the test fills and inspects. Thread-safe for distinct requests, as the ABI
// requires.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "inferd/backend.h"

// The ABI's opaque types, defined here the way a server would.
struct INFERD_Error {
  INFERD_ErrorCode code;
  std::string message;
};

struct INFERD_Signature {
  struct Tensor {
    std::string name;
    INFERD_DataType datatype;
    std::vector<int64_t> dims;
  };
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};

struct INFERD_Request {
  struct Input {
    std::string name;
    INFERD_DataType datatype;
    std::vector<int64_t> shape;
    std::string data;   // raw bytes (BYTES: length-prefixed)
    size_t offset = 0;  // the tensor starts this far into `data` (to misalign it)
  };
  struct Output {
    std::string name;
    INFERD_DataType datatype;
    std::vector<int64_t> shape;
    std::string data;             // copied at ResponseAddOutput
    const void* pointer;          // what the backend handed over
    bool changed_before_release;  // its memory changed before completion
  };
  std::vector<Input> inputs;
  std::vector<std::string> requested_outputs;
  bool reject_outputs = false;  // ResponseAddOutput fails, as for a bad output

  // Filled by the backend through the api.
  uint64_t compute_start_ns = 0;  // RequestReportComputeTimes
  uint64_t compute_end_ns = 0;
  std::vector<Output> outputs;
  int completions = 0;
  std::unique_ptr<INFERD_Error> error;
  int pending_releases = 0;  // handed-over buffers not yet released
  std::vector<std::pair<INFERD_ReleaseFn, void*>> release_fns;
};

namespace inferd::testing {

// The function table; releases handed-over outputs when the request
// completes (as a server does once the response is sent).
const INFERD_ServerApi* FakeServerApi();

// Builds a request input from typed values.
template <typename T>
INFERD_Request::Input MakeInput(std::string name, INFERD_DataType datatype,
                                std::vector<int64_t> shape, const std::vector<T>& values) {
  std::string data(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  return {std::move(name), datatype, std::move(shape), std::move(data), 0};
}

// Length-prefixed BYTES encoding of `elements`.
std::string EncodeBytes(const std::vector<std::string>& elements);
std::vector<std::string> DecodeBytes(const std::string& data);

// Reinterprets an output's bytes as values of T.
template <typename T>
std::vector<T> OutputValues(const INFERD_Request::Output& output) {
  std::vector<T> values(output.data.size() / sizeof(T));
  if (!values.empty())
    std::copy_n(output.data.data(), values.size() * sizeof(T),
                reinterpret_cast<char*>(values.data()));
  return values;
}

}  // namespace inferd::testing
