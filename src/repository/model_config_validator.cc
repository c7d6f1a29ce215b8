// SPDX-License-Identifier: Apache-2.0
#include "repository/model_config_validator.h"

#include <map>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "repository/sequence_batching_validator.h"
#include "repository/version_labels.h"

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
                  const inference::ModelTensorReshape& reshape, Problems& problems) {
  for (int64_t d : reshape.shape()) {
    if (d == 0 || d < -1)
      problems.push_back(absl::StrCat(what, ": reshape has an invalid dimension ", d));
  }
  if (reshape.shape_size() == 0) {
    // A scalar to the model: dims must hold exactly one element (no -1, product 1).
    if (FixedRuns(dims) != std::vector<uint64_t>{1}) {
      problems.push_back(
          absl::StrCat(what, ": an empty reshape is allowed only when dims hold one element"));
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
                 bool has_reshape, const inference::ModelTensorReshape& reshape,
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
  if (has_reshape && !dims.empty()) CheckReshape(what, dims, reshape, problems);
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

// A relative path that stays below <model>/warmup/.
bool IsPlainRelativePath(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  for (absl::string_view segment : absl::StrSplit(path, '/')) {
    if (segment == "..") return false;
  }
  return true;
}

// docs/configuration.md.
void CheckWarmup(const inference::ModelConfig& config, Problems& problems) {
  if (config.model_warmup_size() == 0) return;
  if (config.platform() == "ensemble") {
    problems.push_back("model_warmup is not allowed for ensembles");
  }
  std::map<std::string, const inference::ModelInput*> inputs;
  for (const auto& in : config.input()) inputs.emplace(in.name(), &in);
  for (int i = 0; i < config.model_warmup_size(); ++i) {
    const auto& sample = config.model_warmup(i);
    const std::string what = sample.name().empty()
                                 ? absl::StrCat("model_warmup #", i)
                                 : absl::StrCat("model_warmup '", sample.name(), "'");
    if (config.max_batch_size() > 0 &&
        sample.batch_size() > static_cast<uint32_t>(config.max_batch_size())) {
      problems.push_back(absl::StrCat(what, ": batch_size ", sample.batch_size(),
                                      " is larger than max_batch_size ", config.max_batch_size()));
    }
    if (config.max_batch_size() == 0 && sample.batch_size() > 1) {
      problems.push_back(absl::StrCat(what, ": batch_size ", sample.batch_size(),
                                      " needs batching, but max_batch_size is 0 (use 1)"));
    }
    // The map's order is unspecified; report in name order.
    const std::map<std::string, const inference::ModelWarmup::Input*> data = [&sample] {
      std::map<std::string, const inference::ModelWarmup::Input*> sorted;
      for (const auto& [name, input] : sample.inputs()) sorted.emplace(name, &input);
      return sorted;
    }();
    for (const auto& [name, input] : data) {
      const std::string where = absl::StrCat(what, ": input '", name, "'");
      const auto model_input = inputs.find(name);
      if (model_input == inputs.end()) {
        problems.push_back(absl::StrCat(where, " is not an input of the model"));
      } else if (input->data_type() != model_input->second->data_type()) {
        problems.push_back(
            absl::StrCat(where, ": data_type ", inference::DataType_Name(input->data_type()),
                         " does not match the input's ",
                         inference::DataType_Name(model_input->second->data_type())));
      }
      for (int64_t d : input->dims()) {
        if (d < 0) {
          problems.push_back(absl::StrCat(where, ": dimension ", d,
                                          " is invalid (warmup dims must be fully specified)"));
        }
      }
      switch (input->input_data_type_case()) {
        case inference::ModelWarmup::Input::INPUT_DATA_TYPE_NOT_SET:
          problems.push_back(
              absl::StrCat(where, ": set one of 'zero_data', 'random_data' or 'input_data_file'"));
          break;
        case inference::ModelWarmup::Input::kInputDataFile:
          if (!IsPlainRelativePath(input->input_data_file())) {
            problems.push_back(absl::StrCat(where, ": input_data_file '", input->input_data_file(),
                                            "' must be a relative path inside warmup/"));
          }
          break;
        default:
          break;
      }
    }
    for (const auto& [name, in] : inputs) {
      if (!in->optional() && !name.empty() && data.count(name) == 0) {
        problems.push_back(absl::StrCat(what, ": no data for input '", name, "'"));
      }
    }
  }
}

}  // namespace

absl::Status ValidateModelConfig(const inference::ModelConfig& config,
                                 const std::string& config_path) {
  Problems problems;
  if (config.max_batch_size() < 0) problems.push_back("'max_batch_size' must be >= 0");
  // An ensemble's steps are checked when it loads, against its composing
  // models (scheduling/ensemble_graph).
  if (config.platform() == "ensemble" && !config.has_ensemble_scheduling()) {
    problems.push_back("platform 'ensemble' needs 'ensemble_scheduling'");
  }
  if (config.platform() != "ensemble" && config.has_ensemble_scheduling()) {
    problems.push_back("'ensemble_scheduling' is only for platform 'ensemble'");
  }
  if (config.input_size() == 0) problems.push_back("the model has no inputs");
  if (config.output_size() == 0) problems.push_back("the model has no outputs");
  std::set<std::string> inputs, outputs;
  for (int i = 0; i < config.input_size(); ++i) {
    const auto& in = config.input(i);
    CheckTensor("input", i, in.name(), in.data_type(), in.dims(), in.has_reshape(), in.reshape(),
                inputs, problems);
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
                out.reshape(), outputs, problems);
  }
  CheckDynamicBatching(config, problems);
  CheckInstanceGroups(config, problems);
  CheckWarmup(config, problems);
  CheckSequenceBatching(config, problems);
  if (config.response_cache().enable() && config.model_transaction_policy().decoupled()) {
    // Triton refuses the same config, in these words.
    problems.push_back(absl::StrCat("response cache does not currently support model '",
                                    config.name(), "' with 'decoupled' transaction policy"));
  }
  if (config.version_policy().has_latest() &&
      config.version_policy().latest().num_versions() == 0) {
    problems.push_back("version_policy latest: 'num_versions' must be at least 1");
  }
  if (auto labels = VersionLabelsOf(config); !labels.ok()) {
    problems.push_back(std::string(labels.status().message()));
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(config_path, ": invalid model config: ", absl::StrJoin(problems, "; ")));
}

}  // namespace inferd::repository
