// SPDX-License-Identifier: Apache-2.0
#include "scheduling/ensemble_graph.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/data_type.h"
#include "core/shape.h"

namespace inferd::scheduling {
namespace {

// What a tensor must be: its element type and full shape (a leading -1 for
// a batching model's batch dimension; -1 anywhere matches anything).
struct TensorType {
  inference::DataType datatype = inference::TYPE_INVALID;
  core::Shape shape;
  std::string origin;  // who declared it, for messages
};

template <typename Dims>
core::Shape FullShape(bool batching, const Dims& dims) {
  core::Shape shape;
  if (batching) shape.push_back(-1);
  shape.insert(shape.end(), dims.begin(), dims.end());
  return shape;
}

bool ShapesAgree(const core::Shape& a, const core::Shape& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != -1 && b[i] != -1 && a[i] != b[i]) return false;
  }
  return true;
}

std::string Describe(const TensorType& type) {
  return absl::StrCat(inference::DataType_Name(type.datatype), " ", core::ShapeToString(type.shape),
                      " (", type.origin, ")");
}

// Builds the graph step by step, collecting every problem.
class GraphBuilder {
 public:
  GraphBuilder(const inference::ModelConfig& ensemble, const ComposingConfigLookup& lookup)
      : ensemble_(ensemble), lookup_(lookup) {
    graph_ = std::make_shared<EnsembleGraph>();
    graph_->name = ensemble.name();
  }

  absl::StatusOr<std::shared_ptr<const EnsembleGraph>> Build() {
    const bool batching = ensemble_.max_batch_size() > 0;
    if (!ensemble_.has_ensemble_scheduling() || ensemble_.ensemble_scheduling().step_size() == 0) {
      problems_.push_back("'ensemble_scheduling' must have at least one step");
    }
    for (const char* field : {"instance_group", "optimization", "dynamic_batching",
                              "sequence_batching", "model_warmup"}) {
      if (HasField(field)) {
        problems_.push_back(absl::StrCat("an ensemble must not set '", field, "'"));
      }
    }
    for (const auto& in : ensemble_.input()) {
      const int t = Tensor(in.name());
      graph_->inputs.push_back(t);
      Declare(t, -1, {in.data_type(), FullShape(batching, in.dims()), "ensemble input"});
    }
    const auto& steps = ensemble_.ensemble_scheduling().step();
    for (int i = 0; i < steps.size(); ++i) AddStep(i, steps[i], batching);
    for (const auto& out : ensemble_.output()) {
      const int t = Tensor(out.name());
      graph_->outputs.push_back(t);
      graph_->output_names.push_back(out.name());
      Read(t, {out.data_type(), FullShape(batching, out.dims()), "ensemble output"});
    }
    CheckProducedAndConsumed();
    CheckAcyclic();
    if (!problems_.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ensemble '", ensemble_.name(), "' is invalid: ", absl::StrJoin(problems_, "; ")));
    }
    return std::shared_ptr<const EnsembleGraph>(std::move(graph_));
  }

 private:
  bool HasField(std::string_view field) const {
    if (field == "instance_group") return ensemble_.instance_group_size() > 0;
    if (field == "optimization") return ensemble_.has_optimization();
    if (field == "dynamic_batching") return ensemble_.has_dynamic_batching();
    if (field == "sequence_batching") return ensemble_.has_sequence_batching();
    return ensemble_.model_warmup_size() > 0;
  }

  int Tensor(const std::string& name) {
    const int found = graph_->FindTensor(name);
    if (found >= 0) return found;
    graph_->tensor_names.push_back(name);
    graph_->producer.push_back(kNoProducer);
    graph_->consumers.emplace_back();
    types_.emplace_back();
    return static_cast<int>(graph_->tensor_names.size()) - 1;
  }

  // `writer` (a step index, or -1 for the ensemble's inputs) produces `t`.
  void Declare(int t, int writer, TensorType type) {
    const std::string& name = graph_->tensor_names[t];
    if (graph_->producer[t] != kNoProducer) {
      problems_.push_back(absl::StrCat("ensemble tensor '", name, "' is written twice: by ",
                                       WriterName(graph_->producer[t]), " and by ",
                                       WriterName(writer)));
      return;
    }
    graph_->producer[t] = writer;
    // A reader seen earlier (steps may be listed in any order) is checked now.
    for (const auto& reader : pending_reads_[t]) Compare(t, type, reader);
    types_[t] = std::move(type);
  }

  // Checks a read of `t` against its writer (the caller records the reader).
  void Read(int t, TensorType type) {
    if (types_[t]) {
      Compare(t, *types_[t], type);
    } else {
      pending_reads_[t].push_back(std::move(type));
    }
  }

  void Compare(int t, const TensorType& written, const TensorType& read) {
    if (written.datatype == read.datatype && ShapesAgree(written.shape, read.shape)) return;
    problems_.push_back(absl::StrCat("ensemble tensor '", graph_->tensor_names[t],
                                     "' is written as ", Describe(written), " but read as ",
                                     Describe(read)));
  }

  std::string WriterName(int writer) const {
    return writer < 0 ? std::string("the ensemble's inputs") : graph_->steps[writer].label;
  }

  void AddStep(int index, const inference::ModelEnsembling::Step& spec, bool batching) {
    EnsembleStep step;
    step.model_name = spec.model_name();
    step.label = absl::StrCat("step ", index + 1, " ('", spec.model_name(), "')");
    if (spec.model_version() > 0) step.model_version = std::to_string(spec.model_version());
    const int s = static_cast<int>(graph_->steps.size());
    graph_->steps.push_back(step);
    EnsembleStep& added = graph_->steps.back();
    if (spec.model_name().empty()) {
      problems_.push_back(absl::StrCat("step ", index + 1, ": 'model_name' is empty"));
      return;
    }
    if (spec.model_name() == ensemble_.name()) {
      problems_.push_back(absl::StrCat(added.label, ": an ensemble cannot call itself"));
      return;
    }
    if (spec.input_map().empty()) problems_.push_back(added.label + ": 'input_map' is empty");
    if (spec.output_map().empty()) problems_.push_back(added.label + ": 'output_map' is empty");
    auto found = lookup_(spec.model_name(), spec.model_version());
    const std::shared_ptr<const inference::ModelConfig> config =
        found.ok() ? *found : std::shared_ptr<const inference::ModelConfig>();
    if (!found.ok() || config == nullptr) {
      problems_.push_back(absl::StrCat(
          added.label, ": model '", spec.model_name(), "'",
          spec.model_version() > 0 ? absl::StrCat(" version ", spec.model_version()) : "",
          " is not loaded", found.ok() ? "" : absl::StrCat(" (", found.status().message(), ")")));
    }
    if (config != nullptr && config->model_transaction_policy().decoupled()) {
      // Each response of a decoupled step would start its own run of the
      // steps after it; inferd's ensembles run each step once per request
      // (docs/configuration.md, "Ensembles").
      problems_.push_back(absl::StrCat(
          added.label, ": model '", spec.model_name(),
          "' is decoupled (it may answer many times); inferd's ensembles run each step once per "
          "request, so a decoupled model cannot be a step: call it from a Python model with "
          "exec(decoupled=True) instead"));
    }
    const bool step_batches = config != nullptr && config->max_batch_size() > 0;
    if (config != nullptr && batching) {
      if (!step_batches) {
        // Allowed when shapes line up: a non-batching model then sees the
        // ensemble's batch dimension as its first dimension.
      } else if (config->max_batch_size() < ensemble_.max_batch_size()) {
        problems_.push_back(absl::StrCat(added.label, ": the ensemble's max_batch_size ",
                                         ensemble_.max_batch_size(), " is larger than '",
                                         spec.model_name(), "''s ", config->max_batch_size()));
      }
    }
    // Maps in name order, so that messages and bindings are deterministic.
    const std::map<std::string, std::string> input_map(spec.input_map().begin(),
                                                       spec.input_map().end());
    const std::map<std::string, std::string> output_map(spec.output_map().begin(),
                                                        spec.output_map().end());
    for (const auto& [model_input, tensor] : input_map) {
      const int t = Tensor(tensor);
      added.inputs.push_back({model_input, t});
      // A reader even when the read cannot be checked (unknown model or
      // input), so that the problem is not reported again as "never read"
      // or as a cycle (the step would wait for `t` without being woken).
      graph_->consumers[t].push_back(s);
      if (config == nullptr) continue;
      const auto* in = FindInput(*config, model_input);
      if (in == nullptr) {
        problems_.push_back(absl::StrCat(added.label, ": input_map names '", model_input,
                                         "', which is not an input of '", spec.model_name(), "'"));
        continue;
      }
      Read(t, {in->data_type(), FullShape(step_batches, in->dims()),
               absl::StrCat(added.label, " input '", model_input, "'")});
    }
    if (config != nullptr) {
      for (const auto& in : config->input()) {
        if (!in.optional() && input_map.count(in.name()) == 0) {
          problems_.push_back(absl::StrCat(added.label, ": input '", in.name(), "' of '",
                                           spec.model_name(), "' is not mapped (input_map)"));
        }
      }
    }
    for (const auto& [model_output, tensor] : output_map) {
      const int t = Tensor(tensor);
      added.outputs.push_back({model_output, t});
      added.output_names.push_back(model_output);
      const auto* out = config == nullptr ? nullptr : FindOutput(*config, model_output);
      if (config != nullptr && out == nullptr) {
        problems_.push_back(absl::StrCat(added.label, ": output_map names '", model_output,
                                         "', which is not an output of '", spec.model_name(), "'"));
      }
      if (out == nullptr) {
        // Still marks the tensor as written, so that the problem is not
        // reported a second time as "never written".
        if (graph_->producer[t] == kNoProducer) graph_->producer[t] = s;
        continue;
      }
      Declare(t, s,
              {out->data_type(), FullShape(step_batches, out->dims()),
               absl::StrCat(added.label, " output '", model_output, "'")});
    }
  }

  static const inference::ModelInput* FindInput(const inference::ModelConfig& config,
                                                const std::string& name) {
    for (const auto& in : config.input()) {
      if (in.name() == name) return &in;
    }
    return nullptr;
  }
  static const inference::ModelOutput* FindOutput(const inference::ModelConfig& config,
                                                  const std::string& name) {
    for (const auto& out : config.output()) {
      if (out.name() == name) return &out;
    }
    return nullptr;
  }

  void CheckProducedAndConsumed() {
    const std::set<int> outputs(graph_->outputs.begin(), graph_->outputs.end());
    for (size_t t = 0; t < graph_->tensor_names.size(); ++t) {
      const std::string& name = graph_->tensor_names[t];
      const bool read = !graph_->consumers[t].empty() || outputs.count(static_cast<int>(t));
      if (graph_->producer[t] == kNoProducer) {
        problems_.push_back(absl::StrCat("ensemble tensor '", name, "' is never written",
                                         outputs.count(static_cast<int>(t))
                                             ? " (an ensemble output no step produces)"
                                             : " (not an ensemble input, and no step's output)"));
      } else if (!read) {
        problems_.push_back(absl::StrCat(
            "ensemble tensor '", name, "' is never read",
            graph_->producer[t] < 0
                ? " (an ensemble input no step uses)"
                : absl::StrCat(" (written by ", graph_->steps[graph_->producer[t]].label,
                               "; map it to an ensemble output or drop it)")));
      }
    }
  }

  // Kahn's algorithm over steps; whatever never becomes ready is on a cycle
  // (or behind one).
  void CheckAcyclic() {
    const size_t n = graph_->steps.size();
    std::vector<int> waiting(n, 0);
    for (size_t s = 0; s < n; ++s) {
      for (const auto& in : graph_->steps[s].inputs) {
        if (graph_->producer[in.tensor] >= 0) ++waiting[s];
      }
    }
    std::vector<int> ready;
    for (size_t s = 0; s < n; ++s) {
      if (waiting[s] == 0) ready.push_back(static_cast<int>(s));
    }
    size_t done = 0;
    while (!ready.empty()) {
      const int s = ready.back();
      ready.pop_back();
      ++done;
      for (const auto& out : graph_->steps[s].outputs) {
        if (graph_->producer[out.tensor] != s) continue;
        for (int reader : graph_->consumers[out.tensor]) {
          if (--waiting[reader] == 0) ready.push_back(reader);
        }
      }
    }
    if (done == n) return;
    std::vector<std::string> stuck;
    for (size_t s = 0; s < n; ++s) {
      if (waiting[s] > 0) stuck.push_back(graph_->steps[s].label);
    }
    problems_.push_back(absl::StrCat("the steps form a cycle: ", absl::StrJoin(stuck, ", "),
                                     " wait for each other's outputs"));
  }

  static constexpr int kNoProducer = -2;
  const inference::ModelConfig& ensemble_;
  const ComposingConfigLookup& lookup_;
  std::shared_ptr<EnsembleGraph> graph_;
  std::vector<std::optional<TensorType>> types_;
  std::map<int, std::vector<TensorType>> pending_reads_;
  std::vector<std::string> problems_;
};

}  // namespace

int EnsembleGraph::FindTensor(std::string_view tensor) const {
  for (size_t i = 0; i < tensor_names.size(); ++i) {
    if (tensor_names[i] == tensor) return static_cast<int>(i);
  }
  return -1;
}

std::vector<bool> EnsembleGraph::StepsFor(const std::vector<int>& wanted) const {
  std::vector<bool> needed(steps.size(), false);
  std::vector<int> tensors = wanted;
  std::vector<bool> seen(tensor_names.size(), false);
  while (!tensors.empty()) {
    const int t = tensors.back();
    tensors.pop_back();
    if (t < 0 || seen[t]) continue;
    seen[t] = true;
    const int s = producer[t];
    if (s < 0 || needed[s]) continue;
    needed[s] = true;
    for (const auto& in : steps[s].inputs) tensors.push_back(in.tensor);
  }
  return needed;
}

std::vector<std::string> ComposingModels(const inference::ModelConfig& ensemble) {
  std::set<std::string> names;
  for (const auto& step : ensemble.ensemble_scheduling().step()) {
    if (!step.model_name().empty()) names.insert(step.model_name());
  }
  return {names.begin(), names.end()};
}

absl::StatusOr<std::shared_ptr<const EnsembleGraph>> BuildEnsembleGraph(
    const inference::ModelConfig& ensemble, const ComposingConfigLookup& lookup) {
  return GraphBuilder(ensemble, lookup).Build();
}

}  // namespace inferd::scheduling
