// SPDX-License-Identifier: Apache-2.0
#include "server/response_classification.h"

#include "absl/strings/str_cat.h"

namespace inferd {

absl::Status CheckClassificationRequest(const inference::ModelConfig& config,
                                        const core::InferRequest& request) {
  for (const auto& [name, count] : request.output_class_counts) {
    if (count <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("model '", config.name(), "' output '", name,
                                                     "': classification must be a positive class "
                                                     "count, got ",
                                                     count));
    }
    const inference::ModelOutput* output = nullptr;
    for (const auto& candidate : config.output()) {
      if (candidate.name() == name) output = &candidate;
    }
    if (output == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected inference output '", name, "' for model '", config.name(), "'"));
    }
    absl::Status classifiable =
        core::CheckClassifiable(static_cast<core::DataType>(output->data_type()));
    if (!classifiable.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("model '", config.name(), "' output '", name,
                                                     "': ", classifiable.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status ClassifyResponse(const std::map<std::string, int64_t, std::less<>>& class_counts,
                              bool batched, const core::ClassLabels& labels,
                              core::InferResponse& response) {
  for (core::Tensor& output : response.outputs) {
    const auto count = class_counts.find(output.name);
    if (count == class_counts.end()) continue;
    const auto found = labels.find(output.name);
    const std::vector<std::string>* output_labels =
        found == labels.end() ? nullptr : &found->second;
    auto classes = core::ClassifyTensor(output, count->second, batched, output_labels);
    if (!classes.ok()) {
      return absl::Status(classes.status().code(),
                          absl::StrCat("model '", response.model_name, "' version ",
                                       response.model_version, ": ", classes.status().message()));
    }
    output = *std::move(classes);
  }
  return absl::OkStatus();
}

void ClassifyResponsesOf(core::InferRequest& request, core::InferCallback& on_complete,
                         bool batched, std::shared_ptr<const core::ClassLabels> labels) {
  // The counts are copied: the request itself may be gone when the last
  // response arrives.
  auto classify = [counts = request.output_class_counts, batched,
                   labels = std::move(labels)](absl::StatusOr<core::InferResponse>& result) {
    if (!result.ok()) return;
    if (absl::Status status = ClassifyResponse(counts, batched, *labels, *result); !status.ok()) {
      result = std::move(status);
    }
  };
  on_complete = [classify,
                 done = std::move(on_complete)](absl::StatusOr<core::InferResponse> result) {
    classify(result);
    done(std::move(result));
  };
  if (request.on_partial_response) {
    request.on_partial_response = [classify, partial = std::move(request.on_partial_response)](
                                      absl::StatusOr<core::InferResponse> result) {
      classify(result);
      partial(std::move(result));
    };
  }
}

}  // namespace inferd
