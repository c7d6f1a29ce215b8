// SPDX-License-Identifier: Apache-2.0
// Building request tensors and waiting for InferCallback results in tests.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "core/infer_request.h"

namespace inferd::testing {

// A tensor owning a copy of `values`.
template <typename T>
core::Tensor MakeTensor(std::string name, core::DataType datatype, core::Shape shape,
                        const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return core::Tensor{std::move(name), datatype, std::move(shape),
                      core::Buffer::Own(std::move(bytes))};
}

// The KServe length-prefixed BYTES encoding of `elements`.
std::string EncodeBytes(const std::vector<std::string>& elements);
std::vector<std::string> DecodeBytes(std::string_view data);
// A BYTES tensor holding `elements`.
core::Tensor MakeBytesTensor(std::string name, core::Shape shape,
                             const std::vector<std::string>& elements);

// The bytes of `tensor` read as values of T.
template <typename T>
std::vector<T> TensorValues(const core::Tensor& tensor) {
  std::vector<T> values(tensor.data.size / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), tensor.data.data, values.size() * sizeof(T));
  return values;
}

// Captures the one result of an InferCallback, which may arrive on any thread.
class CallbackResult {
 public:
  CallbackResult() = default;
  CallbackResult(const CallbackResult&) = delete;
  CallbackResult& operator=(const CallbackResult&) = delete;

  // The callback to hand over; `this` must outlive its call. Counts calls so
  // tests can check "exactly once".
  core::InferCallback Callback();
  // Blocks until the callback ran, then returns what it received.
  const absl::StatusOr<core::InferResponse>& Wait();
  int calls() const;

 private:
  absl::Notification done_;
  mutable absl::Mutex mu_;
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
  absl::StatusOr<core::InferResponse> result_ = absl::UnknownError("no result yet");
};

}  // namespace inferd::testing
