// SPDX-License-Identifier: Apache-2.0
// A uniquely named folder under the system temp directory that is removed,
// with everything in it, when the TempDir goes away; plus a file writer for
// building model repositories in tests.
#pragma once

#include <string>
#include <string_view>

namespace inferd::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path()/relative.
  std::string Join(std::string_view relative) const;

 private:
  std::string path_;
};

// Writes `contents` to `path`, creating missing parent folders. Aborts the
// test binary on failure (a broken temp folder makes every result moot).
void WriteFile(const std::string& path, std::string_view contents);
// Creates `path` and its parents.
void MakeDirectory(const std::string& path);

}  // namespace inferd::testing
