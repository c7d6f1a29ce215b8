// SPDX-License-Identifier: Apache-2.0
#include "fake_model_file.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace inferd::fake {
namespace {

INFERD_DataType TypeFromName(const std::string& name) {
  static const std::pair<const char*, INFERD_DataType> kTypes[] = {
      {"BOOL", INFERD_TYPE_BOOL},     {"UINT8", INFERD_TYPE_UINT8},
      {"UINT16", INFERD_TYPE_UINT16}, {"UINT32", INFERD_TYPE_UINT32},
      {"UINT64", INFERD_TYPE_UINT64}, {"INT8", INFERD_TYPE_INT8},
      {"INT16", INFERD_TYPE_INT16},   {"INT32", INFERD_TYPE_INT32},
      {"INT64", INFERD_TYPE_INT64},   {"FP16", INFERD_TYPE_FP16},
      {"FP32", INFERD_TYPE_FP32},     {"FP64", INFERD_TYPE_FP64},
      {"BYTES", INFERD_TYPE_BYTES},   {"BF16", INFERD_TYPE_BF16},
  };
  for (const auto& [text, type] : kTypes) {
    if (name == text) return type;
  }
  return INFERD_TYPE_INVALID;  // reported to the server as-is: it must refuse it
}

bool ParseTensor(std::istringstream& words, FakeTensor* tensor, std::string* error) {
  std::string type;
  if (!(words >> tensor->name >> type)) {
    *error = "expected '<name> <DATATYPE> <dim>...'";
    return false;
  }
  tensor->datatype = TypeFromName(type);
  std::string dim;
  while (words >> dim) {
    char* end = nullptr;
    const long long value = std::strtoll(dim.c_str(), &end, 10);
    if (end == dim.c_str() || *end != '\0') {
      *error = "bad dimension '" + dim + "'";
      return false;
    }
    tensor->dims.push_back(value);
  }
  return true;
}

// The rest of the line after the directive, without surrounding blanks.
bool ParsePath(std::istringstream& words, std::string* path, std::string* error) {
  std::getline(words >> std::ws, *path);
  while (!path->empty() && std::isspace(static_cast<unsigned char>(path->back()))) path->pop_back();
  if (path->empty()) *error = "expected a path";
  return !path->empty();
}

}  // namespace

bool ParseFakeModelFile(const std::string& text, FakeModelFile* file, std::string* error) {
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string directive;
    if (!(words >> directive)) continue;
    bool ok = true;
    if (directive == "input" || directive == "output") {
      FakeTensor tensor;
      ok = ParseTensor(words, &tensor, error);
      (directive == "input" ? file->inputs : file->outputs).push_back(std::move(tensor));
    } else if (directive == "fail_load") {
      file->fail_load = true;
    } else if (directive == "fail_instance") {
      file->fail_instance = true;
    } else if (directive == "fail_execute") {
      file->fail_execute = true;
    } else if (directive == "block_until_exists") {
      ok = ParsePath(words, &file->block_until_exists, error);
    } else if (directive == "block_until_exists_for_value") {
      ok = ParsePath(words, &file->block_until_exists_for_value, error);
    } else if (directive == "block_load_until_exists") {
      ok = ParsePath(words, &file->block_load_until_exists, error);
    } else if (directive == "log_executions") {
      ok = ParsePath(words, &file->log_executions, error);
    } else {
      ok = false;
      *error = "unknown directive '" + directive + "'";
    }
    if (!ok) {
      *error = "line " + std::to_string(number) + ": " + *error;
      return false;
    }
  }
  return true;
}

bool ReadFakeModelFile(const std::string& path, FakeModelFile* file, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot open fake model file '" + path + "'";
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (!ParseFakeModelFile(text.str(), file, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

}  // namespace inferd::fake
