// SPDX-License-Identifier: Apache-2.0
#include "repository/model_config_validator.h"

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace inferd::repository {
namespace {

using Problems = std::vector<std::string>;

// Products of the runs of fixed dimensions between -1 entries (unsigned, so
// that absurd dims wrap instead of overflowing).
std::vector<uint64_t> FixedRuns(const google::protobuf::RepeatedField<int64_t>& dims) {
  std::vector<uint64_t> runs(1, 1);
  for (int64_t d : dims) {
    if (d == -1) {
      runs.push_back(1);
    } else {
      runs.back() *= static_cast<uint64_t>(d);
    }
  }
  return runs;
}

void CheckReshape(const std::string& what, const google::protobuf::RepeatedField<int64_t>& dims,
                  const inference::ModelTensorReshape& reshape, bool batching, Problems& problems) {
  for (int64_t d : reshape.shape()) {
    if (d == 0 || d < -1)
      problems.push_back(absl::StrCat(what, ": reshape has an invalid dimension ", d));
  }
  if (reshape.shape_size() == 0) {
    // dims must hold exactly one element: no -1, product 1.
    if (!batching || FixedRuns(dims) != std::vector<uint64_t>{1}) {
      problems.push_back(absl::StrCat(
          what,
          ": an empty reshape is allowed only for batching models whose dims hold one element"));
    }
    return;
  }
  // Equal element counts: with -1 entries, the same number of them and equal
  // products of the fixed runs between them ([2,4,-1,6] <-> [8,-1,1,6]).
  if (FixedRuns(dims) != FixedRuns(reshape.shape())) {
    problems.push_back(
        absl::StrCat(what, ": reshape does not have the same element count as dims"));
  }
}

void CheckTensor(const std::string& kind, int index, const std::string& name,
                 inference::DataType type, const google::protobuf::RepeatedField<int64_t>& dims,
                 bool has_reshape, const inference::ModelTensorReshape& reshape, bool batching,
                 std::set<std::string>& seen, Problems& problems) {
  const std::string what =
      name.empty() ? absl::StrCat(kind, " #", index) : absl::StrCat(kind, " '", name, "'");
  if (name.empty()) problems.push_back(absl::StrCat(what, ": 'name' must be set"));
  if (!name.empty() && !seen.insert(name).second)
    problems.push_back(absl::StrCat(what, ": name is used twice"));
  if (type == inference::TYPE_INVALID)
    problems.push_back(absl::StrCat(what, ": 'data_type' must be set"));
  if (dims.empty()) problems.push_back(absl::StrCat(what, ": 'dims' must not be empty"));
  for (int64_t d : dims) {
    if (d == 0 || d < -1) {
      problems.push_back(
          absl::StrCat(what, ": dimension ", d, " is invalid (use >= 1, or -1 for any size)"));
    }
  }
  if (has_reshape && !dims.empty()) CheckReshape(what, dims, reshape, batching, problems);
}

void CheckDynamicBatching(const inference::ModelConfig& config, Problems& problems) {
  if (!config.has_dynamic_batching()) return;
  const auto& batching = config.dynamic_batching();
  for (int32_t size : batching.preferred_batch_size()) {
    if (size < 1 || (config.max_batch_size() > 0 && size > config.max_batch_size())) {
      problems.push_back(absl::StrCat("dynamic_batching: preferred_batch_size ", size,
                                      " is outside [1, max_batch_size ", config.max_batch_size(),
                                      "]"));
    }
  }
  const uint64_t levels = batching.priority_levels();
  if (levels > 0 &&
      (batching.default_priority_level() < 1 || batching.default_priority_level() > levels)) {
    problems.push_back("dynamic_batching: default_priority_level must be in [1, priority_levels]");
  }
  for (const auto& [level, policy] : batching.priority_queue_policy()) {
    if (level < 1 || level > levels) {
      problems.push_back(absl::StrCat("dynamic_batching: priority_queue_policy key ", level,
                                      " is outside [1, priority_levels]"));
    }
  }
  if (batching.preserve_ordering() && levels > 1) {
    problems.push_back(
        "dynamic_batching: preserve_ordering cannot be combined with several priority levels");
  }
  // A DELAYed request may wait forever, which would hold every later response.
  auto delays = [](const inference::ModelQueuePolicy& policy) {
    return policy.timeout_action() == inference::ModelQueuePolicy::DELAY &&
           policy.default_timeout_microseconds() > 0;
  };
  bool any_delay = delays(batching.default_queue_policy());
  for (const auto& [level, policy] : batching.priority_queue_policy())
    any_delay = any_delay || delays(policy);
  if (batching.preserve_ordering() && any_delay) {
    problems.push_back(
        "dynamic_batching: preserve_ordering cannot be combined with a DELAY queue timeout");
  }
}

void CheckInstanceGroups(const inference::ModelConfig& config, Problems& problems) {
  for (const auto& group : config.instance_group()) {
    const std::string what = absl::StrCat("instance_group '", group.name(), "'");
    if (group.kind() == inference::ModelInstanceGroup::KIND_GPU) {
      problems.push_back(
          absl::StrCat(what, ": KIND_GPU requested but this inferd build has no GPU support"));
    }
    if ((group.kind() == inference::ModelInstanceGroup::KIND_CPU ||
         group.kind() == inference::ModelInstanceGroup::KIND_MODEL) &&
        group.gpus_size() > 0) {
      problems.push_back(absl::StrCat(what, ": 'gpus' is not allowed for KIND_CPU or KIND_MODEL"));
    }
    if (group.count() < 0) problems.push_back(absl::StrCat(what, ": 'count' must not be negative"));
    if (group.profile_size() > 0 && config.platform() != "tensorrt_plan") {
      problems.push_back(absl::StrCat(what, ": 'profile' is only for tensorrt_plan"));
    }
  }
}

}  // namespace

absl::Status ValidateModelConfig(const inference::ModelConfig& config,
                                 const std::string& config_path) {
  Problems problems;
  const bool batching = config.max_batch_size() > 0;
  if (config.max_batch_size() < 0) problems.push_back("'max_batch_size' must be >= 0");
  if (config.platform() == "ensemble") {
    problems.push_back("ensembles are not supported yet");
  }
  if (config.input_size() == 0) problems.push_back("the model has no inputs");
  if (config.output_size() == 0) problems.push_back("the model has no outputs");
  std::set<std::string> inputs, outputs;
  for (int i = 0; i < config.input_size(); ++i) {
    const auto& in = config.input(i);
    CheckTensor("input", i, in.name(), in.data_type(), in.dims(), in.has_reshape(), in.reshape(),
                batching, inputs, problems);
    if (in.format() != inference::ModelInput::FORMAT_NONE && in.dims_size() != 3) {
      problems.push_back(
          absl::StrCat("input '", in.name(), "': NHWC/NCHW format needs exactly 3 dims"));
    }
    if (in.is_shape_tensor())
      problems.push_back(absl::StrCat("input '", in.name(), "': shape tensors are TensorRT only"));
  }
  for (int i = 0; i < config.output_size(); ++i) {
    const auto& out = config.output(i);
    CheckTensor("output", i, out.name(), out.data_type(), out.dims(), out.has_reshape(),
                out.reshape(), batching, outputs, problems);
  }
  CheckDynamicBatching(config, problems);
  CheckInstanceGroups(config, problems);
  if (config.has_sequence_batching()) problems.push_back("sequence_batching is not supported yet");
  if (config.version_policy().has_latest() &&
      config.version_policy().latest().num_versions() == 0) {
    problems.push_back("version_policy latest: 'num_versions' must be at least 1");
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(config_path, ": invalid model config: ", absl::StrJoin(problems, "; ")));
}

}  // namespace inferd::repository
