// SPDX-License-Identifier: Apache-2.0
#include "repository/model_config_fill.h"

#include <array>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/file_system.h"
#include "repository/model_versions.h"

namespace inferd::repository {
namespace {

struct KnownBackend {
  std::string_view backend;
  std::string_view platform;
  std::string_view file_name;
};

// Backends whose platform pair Triton checks, with their default file.
constexpr std::array<KnownBackend, 4> kKnown = {{
    {"onnxruntime", "onnxruntime_onnx", "model.onnx"},
    {"pytorch", "pytorch_libtorch", "model.pt"},
    {"tensorrt", "tensorrt_plan", "model.plan"},
    {"tensorflow", "tensorflow_savedmodel", "model.savedmodel"},
}};

std::string_view BackendForPlatform(std::string_view platform) {
  if (platform == "onnxruntime_onnx") return "onnxruntime";
  if (platform == "pytorch_libtorch" || platform == "libtorch" || platform == "torch_aoti") {
    return "pytorch";
  }
  if (platform == "tensorrt_plan") return "tensorrt";
  if (platform == "tensorflow_savedmodel" || platform == "tensorflow_graphdef") return "tensorflow";
  return {};
}

std::string DefaultFileName(std::string_view backend, std::string_view platform) {
  if (platform == "tensorflow_graphdef") return "model.graphdef";
  if (platform == "torch_aoti") return "model.pt2";
  for (const auto& known : kKnown) {
    if (known.backend == backend) return std::string(known.file_name);
  }
  if (backend == "python") return "model.py";
  if (backend == "openvino") return "model.xml";
  // Any other (custom) backend B reads model.B.
  return backend.empty()
             ? std::string()
             : absl::StrCat("model.", absl::string_view(backend.data(), backend.size()));
}

// The backend a known default file name selects; empty for any other name.
std::string_view BackendForFileName(std::string_view file) {
  for (const auto& known : kKnown) {
    if (known.file_name == file) return known.backend;
  }
  if (file == "model.pt2") return "pytorch";
  if (file == "model.graphdef") return "tensorflow";
  if (file == "model.py") return "python";
  if (file == "model.xml") return "openvino";
  return {};
}

// Triton's order of probing an unconfigured model's first version folder.
std::pair<std::string_view, std::string_view> ProbeModelFile(const std::string& model_dir) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kProbe = {{
      {"model.savedmodel", "tensorflow"},
      {"model.graphdef", "tensorflow"},
      {"model.plan", "tensorrt"},
      {"model.onnx", "onnxruntime"},
      {"model.xml", "openvino"},
      {"model.pt", "pytorch"},
      {"model.pt2", "pytorch"},
      {"model.py", "python"},
  }};
  // The lowest version folder (Triton takes the lexicographically first
  // subfolder, which picks a stray "warmup" or "01" over the versions).
  const auto versions = ListVersions(model_dir);
  if (versions.empty()) return {};
  const std::string first = base::JoinPath(model_dir, std::to_string(versions.front()));
  for (const auto& [file, backend] : kProbe) {
    if (base::FileExists(base::JoinPath(first, file))) return {file, backend};
  }
  return {};
}

absl::Status CheckPair(const inference::ModelConfig& config) {
  for (const auto& known : kKnown) {
    if (known.backend != config.backend()) continue;
    if (BackendForPlatform(config.platform()) != known.backend) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected 'platform' and 'backend' pair, got: '", config.platform(),
                       "', '", config.backend(), "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status FillBackendAndPlatform(const std::string& model_name, const std::string& model_dir,
                                    inference::ModelConfig& config) {
  if (config.name().empty()) config.set_name(model_name);
  if (config.name() != model_name) {
    return absl::InvalidArgumentError(absl::StrCat(
        "config name '", config.name(), "' does not match the model folder '", model_name, "'"));
  }
  if (config.platform() == "ensemble") {
    if (!config.backend().empty()) {
      return absl::InvalidArgumentError("an ensemble must not set 'backend'");
    }
    return absl::OkStatus();
  }
  if (config.backend().empty() && !config.platform().empty()) {
    config.set_backend(std::string(BackendForPlatform(config.platform())));
  }
  if (config.backend().empty()) {
    config.set_backend(std::string(BackendForFileName(config.default_model_filename())));
  }
  if (config.backend().empty()) {
    auto [file, backend] = ProbeModelFile(model_dir);
    // No known file: a custom backend named by the folder, <something>.<backend>.
    const size_t dot = model_name.find('.');
    if (backend.empty() && dot != std::string::npos && dot + 1 < model_name.size()) {
      backend = std::string_view(model_name).substr(dot + 1);
    }
    if (backend.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("could not determine the backend of model '", model_name,
                       "': set 'backend' or 'platform' in config.pbtxt, or add a version folder "
                       "with a model file"));
    }
    config.set_backend(std::string(backend));
    if (config.default_model_filename().empty() && !file.empty()) {
      config.set_default_model_filename(std::string(file));
    }
  }
  if (config.platform().empty()) {
    for (const auto& known : kKnown) {
      if (known.backend == config.backend() && known.backend != "tensorflow") {
        config.set_platform(std::string(known.platform));
      }
    }
  }
  if (config.default_model_filename().empty()) {
    config.set_default_model_filename(DefaultFileName(config.backend(), config.platform()));
  }
  // TensorFlow needs its platform; Triton derives it from the file name.
  if (config.backend() == "tensorflow" && config.platform().empty()) {
    if (config.default_model_filename() == "model.graphdef")
      config.set_platform("tensorflow_graphdef");
    if (config.default_model_filename() == "model.savedmodel")
      config.set_platform("tensorflow_savedmodel");
  }
  return CheckPair(config);
}

void NormalizeModelConfig(inference::ModelConfig& config) {
  if (!config.has_version_policy())
    config.mutable_version_policy()->mutable_latest()->set_num_versions(1);
  if (config.has_dynamic_batching() && config.dynamic_batching().preferred_batch_size_size() == 0 &&
      config.max_batch_size() > 0) {
    config.mutable_dynamic_batching()->add_preferred_batch_size(config.max_batch_size());
  }
  if (config.has_sequence_batching()) {
    // Triton's defaults, shown by the config endpoint: the direct strategy
    // and a one-second idle timeout.
    auto* sequence = config.mutable_sequence_batching();
    if (!sequence->has_direct() && !sequence->has_oldest()) sequence->mutable_direct();
    if (sequence->max_sequence_idle_microseconds() == 0) {
      sequence->set_max_sequence_idle_microseconds(1'000'000);
    }
  }
  if (config.platform() == "ensemble") return;
  if (config.instance_group_size() == 0) config.add_instance_group();
  const bool threaded_cpu_default =
      config.backend() == "onnxruntime" || config.backend() == "tensorflow";
  for (int i = 0; i < config.instance_group_size(); ++i) {
    auto* group = config.mutable_instance_group(i);
    if (group->name().empty()) group->set_name(absl::StrCat(config.name(), "_", i));
    if (group->kind() == inference::ModelInstanceGroup::KIND_AUTO) {
      group->set_kind(inference::ModelInstanceGroup::KIND_CPU);  // no GPU support in this build
    }
    if (group->count() < 1) {
      group->set_count(
          group->kind() == inference::ModelInstanceGroup::KIND_CPU && threaded_cpu_default ? 2 : 1);
    }
  }
  auto* optimization = config.mutable_optimization();
  if (!optimization->has_input_pinned_memory())
    optimization->mutable_input_pinned_memory()->set_enable(true);
  if (!optimization->has_output_pinned_memory())
    optimization->mutable_output_pinned_memory()->set_enable(true);
}

}  // namespace inferd::repository
