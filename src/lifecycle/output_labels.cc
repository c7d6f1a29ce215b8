// SPDX-License-Identifier: Apache-2.0
#include "lifecycle/output_labels.h"

#include <filesystem>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "base/file_system.h"

namespace inferd::lifecycle {
namespace {

// A label file is named relative to the model folder and stays inside it:
// the repository load API lets clients write configs, and a label file is
// read back to them through classification.
bool StaysInModelFolder(const std::string& name) {
  const std::filesystem::path path(name);
  if (name.empty() || path.is_absolute()) return false;
  for (const auto& part : path) {
    if (part == "..") return false;
  }
  return true;
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    // A final newline ends the last line rather than starting an empty one.
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const core::ClassLabels>> LoadOutputLabels(
    const inference::ModelConfig& config, const std::string& model_dir) {
  auto labels = std::make_shared<core::ClassLabels>();
  for (const auto& output : config.output()) {
    if (output.label_filename().empty()) continue;
    if (!StaysInModelFolder(output.label_filename())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output '", output.name(), "' of model '", config.name(), "': label_filename '",
          output.label_filename(), "' must be a path inside the model folder"));
    }
    const std::string path = base::JoinPath(model_dir, output.label_filename());
    auto text = base::ReadFile(path);
    if (!text.ok()) {
      return absl::Status(text.status().code(),
                          absl::StrCat("output '", output.name(), "' of model '", config.name(),
                                       "': cannot read its label_filename '",
                                       output.label_filename(), "': ", text.status().message()));
    }
    (*labels)[output.name()] = SplitLines(*text);
  }
  return labels;
}

}  // namespace inferd::lifecycle
