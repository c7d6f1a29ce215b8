// SPDX-License-Identifier: Apache-2.0
#include "repository/model_config_parser.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"

namespace inferd::repository {
namespace {

// Collects every problem instead of protobuf's default of logging to stderr.
class CollectingErrorCollector final : public google::protobuf::io::ErrorCollector {
 public:
  explicit CollectingErrorCollector(std::string_view file_name) : file_name_(file_name) {}

  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    // protobuf counts from 0; editors count from 1.
    errors_.push_back(absl::StrCat(file_name_, ":", line + 1, ":", column + 1, ": ", message));
  }
  void AddWarning(int line, google::protobuf::io::ColumnNumber column,
                  const std::string& message) override {
    AddError(line, column, message);
  }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::string file_name_;
  std::vector<std::string> errors_;
};

}  // namespace

absl::StatusOr<inference::ModelConfig> ParseModelConfig(std::string_view text,
                                                        std::string_view file_name) {
  CollectingErrorCollector errors(file_name);
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  inference::ModelConfig config;
  const bool ok = parser.ParseFromString(std::string(text), &config);
  if (!ok || !errors.errors().empty()) {
    if (errors.errors().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(file_name), ": failed to parse model config"));
    }
    return absl::InvalidArgumentError(absl::StrJoin(errors.errors(), "; "));
  }
  return config;
}

}  // namespace inferd::repository
