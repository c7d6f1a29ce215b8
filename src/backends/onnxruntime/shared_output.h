// SPDX-License-Identifier: Apache-2.0
// Keeps an ORT output tensor alive while the server still sends it. Each
// response output handed to the server holds one reference (released through
// INFERD_ReleaseFn), so one batched output can back every request's slice.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <atomic>
#include <memory>
#include <string>
#include <utility>

namespace inferd::ort {

// Thread-safe reference count: the server may release on any thread.
class SharedOutput {
 public:
  // Starts with one reference, owned by the caller.
  static SharedOutput* Create(Ort::Value value) { return new SharedOutput(std::move(value)); }

  const Ort::Value& value() const { return value_; }
  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }

  // An INFERD_ReleaseFn: drops one reference of `self`, freeing the tensor
  // with the last one.
  static void Unref(void* self) {
    auto* output = static_cast<SharedOutput*>(self);
    if (output->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::unique_ptr<SharedOutput> last(output);
    }
  }

 private:
  explicit SharedOutput(Ort::Value value) : value_(std::move(value)) {}

  Ort::Value value_;
  std::atomic<int> refs_{1};
};

// An INFERD_ReleaseFn for a heap std::string handed over with release().
inline void DeleteString(void* text) {
  std::unique_ptr<std::string> owned(static_cast<std::string*>(text));
}

}  // namespace inferd::ort
