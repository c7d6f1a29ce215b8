// SPDX-License-Identifier: Apache-2.0
// The server side of INFERD_Request: one validated inference request on its
// way through a backend, the response being built for it, and the promise
// that its callback runs exactly once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/infer_request.h"
#include "inferd/backend.h"

namespace inferd::backends {

// What a model version declares about its outputs, used to check what a
// backend hands back. Immutable and shared by all requests of the version.
struct OutputSpec {
  std::string name;
  core::DataType datatype = core::DataType::kInvalid;
  core::Shape dims;  // config dims, without the batch dimension
  bool has_reshape = false;
};

struct ModelIO {
  std::string model_name;
  int64_t model_version = 0;
  int32_t max_batch_size = 0;
  std::vector<OutputSpec> outputs;
  const OutputSpec* FindOutput(std::string_view name) const;
};

}  // namespace inferd::backends

// Defined in the global namespace because backend.h declares it there.
struct INFERD_Request {
  // `pin` keeps the model version (and its backend library) alive while the
  // request is in flight. `output_names` are the outputs to produce, in the
  // order the response lists them. `batch_size` is 1 for non-batching models.
  INFERD_Request(std::unique_ptr<inferd::core::InferRequest> request,
                 inferd::core::InferCallback on_complete,
                 std::shared_ptr<const inferd::backends::ModelIO> io,
                 std::vector<std::string> output_names, int64_t batch_size,
                 std::shared_ptr<const void> pin);
  // Answers Internal when nobody completed the request: a bug costs one error
  // response, never a hung client.
  ~INFERD_Request();
  INFERD_Request(const INFERD_Request&) = delete;
  INFERD_Request& operator=(const INFERD_Request&) = delete;

  // Checks and stores one backend output.
  absl::Status AddOutput(std::string_view name, INFERD_DataType datatype, const int64_t* shape,
                         size_t shape_count, inferd::core::Buffer data);
  // Calls the callback with the response (status OK) or the error. Once only.
  void Complete(absl::Status status);

  const inferd::core::InferRequest& request() const { return *request_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  int64_t batch_size() const { return batch_size_; }

 private:
  absl::Status CheckOutputSize(const inferd::backends::OutputSpec& spec, const inferd::core::Shape& shape,
                               const inferd::core::Buffer& data) const;
  inferd::core::Shape ClientShape(const inferd::backends::OutputSpec& spec, inferd::core::Shape shape) const;

  std::unique_ptr<inferd::core::InferRequest> request_;
  inferd::core::InferCallback on_complete_;
  std::shared_ptr<const inferd::backends::ModelIO> io_;
  std::vector<std::string> output_names_;
  int64_t batch_size_;
  std::shared_ptr<const void> pin_;
  std::vector<std::optional<inferd::core::Tensor>> outputs_;  // by output_names_ index
  bool completed_ = false;
};
