// SPDX-License-Identifier: Apache-2.0
#include "testing/temp_dir.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace inferd::testing {
namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "inferd::testing: %s\n", what.c_str());
  std::abort();
}

}  // namespace

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  const std::filesystem::path base = std::filesystem::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    const auto candidate =
        base / ("inferd_test_" + std::to_string(::getpid()) + "_" +
                std::to_string(counter.fetch_add(1)) + "_" + std::to_string(stamp));
    std::error_code ec;
    if (std::filesystem::create_directory(candidate, ec)) {
      path_ = candidate.string();
      return;
    }
  }
  Fail("cannot create a temporary folder under " + base.string());
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Join(std::string_view relative) const {
  return (std::filesystem::path(path_) / relative).string();
}

void MakeDirectory(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) Fail("cannot create folder '" + path + "': " + ec.message());
}

void WriteFile(const std::string& path, std::string_view contents) {
  MakeDirectory(std::filesystem::path(path).parent_path().string());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (!out) Fail("cannot write '" + path + "'");
}

}  // namespace inferd::testing
