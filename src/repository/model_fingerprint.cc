// SPDX-License-Identifier: Apache-2.0
#include "repository/model_fingerprint.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "repository/model_versions.h"

namespace inferd::repository {
namespace {

// What one file or folder contributes to a digest.
struct Entry {
  std::string relative_path;  // from the model folder, '/'-separated
  uint32_t type = 0;          // S_IFMT bits of st_mode
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t inode = 0;
  uint64_t device = 0;
};

// 64-bit FNV-1a: simple, and the same in every process (unlike absl::Hash).
class Fnv1a {
 public:
  void Add(const void* data, size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) {
      hash_ ^= bytes[i];
      hash_ *= 0x100000001b3ULL;
    }
  }
  template <typename T>
  void AddValue(T value) {
    Add(&value, sizeof(value));
  }
  void AddString(std::string_view s) {
    AddValue<uint64_t>(s.size());  // length first: "ab"+"c" differs from "a"+"bc"
    Add(s.data(), s.size());
  }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// Stats `path`, following a symlink to what it names; a dangling symlink is
// described by the link itself. nullopt when the entry has vanished.
std::optional<Entry> StatEntry(const std::filesystem::path& path, std::string relative_path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && ::lstat(path.c_str(), &st) != 0) return std::nullopt;
  Entry entry;
  entry.relative_path = std::move(relative_path);
  entry.type = static_cast<uint32_t>(st.st_mode & S_IFMT);
  entry.size = S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
  entry.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  entry.inode = static_cast<uint64_t>(st.st_ino);
  entry.device = static_cast<uint64_t>(st.st_dev);
  return entry;
}

bool IsSymlink(const std::filesystem::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

// Appends every entry below `dir` (not `dir` itself). Symlinks are stated
// through, but a symlinked folder is not descended into, so that a link
// cycle cannot make the walk endless. Entries that vanish are skipped.
void Walk(const std::filesystem::path& dir, const std::string& relative_dir,
          std::vector<Entry>& out) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return;
  for (const std::filesystem::directory_iterator end; it != end;) {
    const std::filesystem::path path = it->path();
    const std::string relative = relative_dir + "/" + path.filename().string();
    std::optional<Entry> entry = StatEntry(path, relative);
    if (!entry) continue;
    const bool descend = entry->type == S_IFDIR && !IsSymlink(path);
    out.push_back(std::move(*entry));
    if (descend) Walk(path, relative, out);
    it.increment(ec);
    if (ec) return;
  }
}

uint64_t Digest(std::vector<Entry>& entries) {
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.relative_path < b.relative_path; });
  Fnv1a hash;
  hash.AddValue<uint64_t>(entries.size());
  for (const Entry& e : entries) {
    hash.AddString(e.relative_path);
    hash.AddValue(e.type);
    hash.AddValue(e.size);
    hash.AddValue(e.mtime_ns);
    hash.AddValue(e.inode);
    hash.AddValue(e.device);
  }
  return hash.value();
}

}  // namespace

ModelFingerprint FingerprintModel(const std::string& model_dir) {
  const std::filesystem::path root(model_dir);
  std::vector<Entry> model_files;
  std::map<int64_t, std::vector<Entry>> versions;

  std::error_code ec;
  std::filesystem::directory_iterator it(root, ec);
  if (ec) return {};
  for (const std::filesystem::directory_iterator end; it != end;) {
    const std::filesystem::path path = it->path();
    const std::string name = path.filename().string();
    std::optional<Entry> entry = StatEntry(path, name);
    if (!entry) continue;
    const bool is_directory = entry->type == S_IFDIR;
    const bool descend = is_directory && !IsSymlink(path);
    const std::optional<int64_t> version = is_directory ? ParseVersionFolder(name) : std::nullopt;
    std::vector<Entry>& bucket = version ? versions[*version] : model_files;
    bucket.push_back(std::move(*entry));
    if (descend) Walk(path, name, bucket);
    it.increment(ec);
    if (ec) return {};  // the folder went away (or became unreadable) mid-listing
  }
  // Do not report a half-read folder that has vanished in the meantime.
  if (!std::filesystem::is_directory(root, ec)) return {};

  ModelFingerprint fingerprint;
  fingerprint.model_files = Digest(model_files);
  for (auto& [version, entries] : versions) fingerprint.versions[version] = Digest(entries);
  return fingerprint;
}

}  // namespace inferd::repository
