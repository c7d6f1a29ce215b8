// SPDX-License-Identifier: Apache-2.0
// Helpers of the C API tests: owning wrappers for the C objects, the error
// check, the `simple` request, and a server over the example repositories.
// Only include/inferd/inferd.h is used, as an embedder would.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "inferd/inferd.h"

namespace capi_test {

struct ErrorDeleter {
  void operator()(INFERD_Error* e) const { INFERD_ErrorDelete(e); }
};
struct ServerDeleter {
  void operator()(INFERD_EmbeddedServer* s) const { INFERD_ServerDelete(s); }
};
struct OptionsDeleter {
  void operator()(INFERD_ServerOptions* o) const { INFERD_ServerOptionsDelete(o); }
};
struct RequestDeleter {
  void operator()(INFERD_InferRequest* r) const { INFERD_InferRequestDelete(r); }
};
struct ResponseDeleter {
  void operator()(INFERD_InferResponse* r) const { INFERD_InferResponseDelete(r); }
};
using Error = std::unique_ptr<INFERD_Error, ErrorDeleter>;
using Server = std::unique_ptr<INFERD_EmbeddedServer, ServerDeleter>;
using Options = std::unique_ptr<INFERD_ServerOptions, OptionsDeleter>;
using Request = std::unique_ptr<INFERD_InferRequest, RequestDeleter>;
using Response = std::unique_ptr<INFERD_InferResponse, ResponseDeleter>;

// "OK", or "<CODE>: <message>" (frees the error).
inline std::string Describe(INFERD_Error* raw) {
  Error error(raw);
  if (!error) return "OK";
  return std::string(INFERD_ErrorCodeName(INFERD_ErrorGetCode(error.get()))) + ": " +
         INFERD_ErrorGetMessage(error.get());
}

// The code of `raw` (frees it); -1 for success.
inline int CodeOf(INFERD_Error* raw) {
  Error error(raw);
  return error ? static_cast<int>(INFERD_ErrorGetCode(error.get())) : -1;
}

#define EXPECT_C_OK(call) EXPECT_EQ(::capi_test::Describe(call), "OK")
#define ASSERT_C_OK(call) ASSERT_EQ(::capi_test::Describe(call), "OK")

// A JSON string the library returned, freed with INFERD_StringDelete.
struct Json {
  char* text = nullptr;
  ~Json() { INFERD_StringDelete(text); }
  std::string str() const { return text == nullptr ? "" : text; }
};

inline Options NewOptions() {
  INFERD_ServerOptions* raw = nullptr;
  EXPECT_C_OK(INFERD_ServerOptionsNew(&raw));
  return Options(raw);
}

// Explicit mode over examples/models and the repeat backend's models, with
// `startup` models loaded by INFERD_ServerNew.
inline Server NewServer(const std::vector<std::string>& startup) {
  Options options = NewOptions();
  EXPECT_C_OK(INFERD_ServerOptionsAddModelRepository(options.get(), INFERD_EXAMPLE_MODELS));
  EXPECT_C_OK(INFERD_ServerOptionsAddModelRepository(options.get(), INFERD_REPEAT_MODELS));
  EXPECT_C_OK(
      INFERD_ServerOptionsSetModelControlMode(options.get(), INFERD_MODEL_CONTROL_EXPLICIT));
  for (const auto& model : startup) {
    EXPECT_C_OK(INFERD_ServerOptionsAddStartupModel(options.get(), model.c_str()));
  }
  EXPECT_C_OK(INFERD_ServerOptionsSetCpuCores(options.get(), 2));
  EXPECT_C_OK(INFERD_ServerOptionsSetLogLevel(options.get(), "warn"));
  INFERD_EmbeddedServer* raw = nullptr;
  EXPECT_C_OK(INFERD_ServerNew(&raw, options.get()));
  return Server(raw);
}

constexpr int kElements = 16;

// Inputs of `simple` whose release is counted, so a test sees that the
// server gives each one back exactly once.
struct SimpleInputs {
  int32_t input0[kElements];
  int32_t input1[kElements];
  std::mutex mu;
  std::condition_variable released_cv;
  int released = 0;

  explicit SimpleInputs(int32_t offset = 0) {
    for (int i = 0; i < kElements; ++i) {
      input0[i] = i + offset;
      input1[i] = 2 * i;
    }
  }
  static void Release(void* context) {
    auto* self = static_cast<SimpleInputs*>(context);
    std::lock_guard<std::mutex> lock(self->mu);
    ++self->released;
    self->released_cv.notify_all();
  }
  // Waits until `count` releases happened (the server may release after the
  // response, on its own thread).
  int WaitReleased(int count) {
    std::unique_lock<std::mutex> lock(mu);
    released_cv.wait(lock, [&] { return released >= count; });
    return released;
  }
};

// A request for `simple` [1, 16] lending `inputs`' memory.
inline Request SimpleRequest(SimpleInputs& inputs, const char* model = "simple") {
  INFERD_InferRequest* raw = nullptr;
  EXPECT_C_OK(INFERD_InferRequestNew(&raw, model, -1));
  const int64_t shape[2] = {1, kElements};
  EXPECT_C_OK(INFERD_InferRequestAddInput(raw, "INPUT0", INFERD_TYPE_INT32, shape, 2, inputs.input0,
                                          sizeof(inputs.input0), &SimpleInputs::Release, &inputs));
  EXPECT_C_OK(INFERD_InferRequestAddInput(raw, "INPUT1", INFERD_TYPE_INT32, shape, 2, inputs.input1,
                                          sizeof(inputs.input1), &SimpleInputs::Release, &inputs));
  return Request(raw);
}

struct Output {
  std::string name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  size_t byte_size = 0;
};

inline std::vector<Output> OutputsOf(const INFERD_InferResponse* response) {
  size_t count = 0;
  EXPECT_C_OK(INFERD_InferResponseOutputCount(response, &count));
  std::vector<Output> outputs;
  for (size_t i = 0; i < count; ++i) {
    Output out;
    const char* name = nullptr;
    const int64_t* shape = nullptr;
    size_t dims = 0;
    EXPECT_C_OK(INFERD_InferResponseOutput(response, i, &name, &out.datatype, &shape, &dims,
                                           &out.data, &out.byte_size));
    out.name = name;
    out.shape.assign(shape, shape + dims);
    outputs.push_back(out);
  }
  return outputs;
}

// Checks a `simple` response against its inputs (OUTPUT0 = sum, OUTPUT1 = difference).
inline void ExpectSimpleOutputs(const INFERD_InferResponse* response, const SimpleInputs& inputs) {
  const auto outputs = OutputsOf(response);
  ASSERT_EQ(outputs.size(), 2u);
  for (const Output& out : outputs) {
    EXPECT_EQ(out.datatype, INFERD_TYPE_INT32);
    EXPECT_EQ(out.shape, (std::vector<int64_t>{1, kElements}));
    ASSERT_EQ(out.byte_size, sizeof(int32_t) * kElements);
    const auto* values = static_cast<const int32_t*>(out.data);
    for (int i = 0; i < kElements; ++i) {
      const int32_t expected = out.name == "OUTPUT0" ? inputs.input0[i] + inputs.input1[i]
                                                     : inputs.input0[i] - inputs.input1[i];
      EXPECT_EQ(values[i], expected) << out.name << "[" << i << "]";
    }
  }
  EXPECT_EQ(outputs[0].name, "OUTPUT0");
  EXPECT_EQ(outputs[1].name, "OUTPUT1");
}

// Collects the callbacks of one INFERD_ServerInferAsync call.
struct Collector {
  struct Call {
    Response response;
    int error_code = -1;  // -1: none
    std::string error_message;
    uint32_t flags = 0;
  };
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Call> calls;
  bool final_seen = false;
  int calls_after_final = 0;

  static void OnResponse(void* context, INFERD_InferResponse* response, INFERD_Error* error,
                         uint32_t flags) {
    auto* self = static_cast<Collector*>(context);
    Call call;
    call.response.reset(response);
    if (error != nullptr) {
      call.error_code = INFERD_ErrorGetCode(error);
      call.error_message = INFERD_ErrorGetMessage(error);
      INFERD_ErrorDelete(error);
    }
    call.flags = flags;
    std::lock_guard<std::mutex> lock(self->mu);
    if (self->final_seen) ++self->calls_after_final;
    if (flags & INFERD_RESPONSE_FLAG_FINAL) self->final_seen = true;
    self->calls.push_back(std::move(call));
    self->cv.notify_all();
  }
  void WaitFinal() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return final_seen; });
  }
};

}  // namespace capi_test
