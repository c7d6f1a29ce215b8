// SPDX-License-Identifier: Apache-2.0
#include "server/response_cache.h"

#include <charconv>
#include <iterator>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"

namespace inferd {
namespace {

// The index node, the list node, the Entry and its strings' headers: a
// round figure over what they take on x86-64.
constexpr size_t kEntryOverhead = 256;
constexpr size_t kOutputOverhead = sizeof(core::Tensor) + 16;

}  // namespace

ResponseCache::ResponseCache(size_t capacity_bytes) : capacity_(capacity_bytes) {
  stats_.capacity_bytes = capacity_bytes;
}

size_t ResponseCache::Charge(const ResponseCacheKey& key,
                             const std::vector<core::Tensor>& outputs) {
  size_t charge = kEntryOverhead + key.material_size();
  for (const core::Tensor& t : outputs) {
    charge += kOutputOverhead + t.name.size() + t.shape.size() * sizeof(int64_t) + t.data.size;
  }
  return charge;
}

std::optional<std::vector<core::Tensor>> ResponseCache::Lookup(const ResponseCacheKey& key) {
  std::shared_ptr<const Entry> entry;
  {
    base::MutexLock lock(&mu_);
    auto it = index_.find(key.digest());
    if (it == index_.end()) {
      ++stats_.misses;
      return std::nullopt;
    }
    lru_.splice(lru_.begin(), lru_, it->second);
    entry = *it->second;
  }
  // Outside the lock: the comparison reads every input byte.
  if (!key.Matches(entry->material)) {
    base::MutexLock lock(&mu_);
    ++stats_.misses;  // a digest collision: another request's answer
    return std::nullopt;
  }
  {
    base::MutexLock lock(&mu_);
    ++stats_.hits;
  }
  std::vector<core::Tensor> outputs = entry->outputs;
  for (core::Tensor& t : outputs) t.data.owner = entry;
  return outputs;
}

bool ResponseCache::Insert(const ResponseCacheKey& key, const std::vector<core::Tensor>& outputs) {
  const size_t charge = Charge(key, outputs);
  if (charge > capacity_) {
    base::MutexLock lock(&mu_);
    ++stats_.oversize;
    return false;
  }
  // Built outside the lock: the copies are the expensive part.
  auto entry = std::make_shared<Entry>();
  entry->digest = key.digest();
  entry->material = key.Flatten();
  entry->charge = charge;
  size_t payload_size = 0;
  for (const core::Tensor& t : outputs) payload_size += t.data.size;
  entry->payload.reserve(payload_size);
  for (const core::Tensor& t : outputs) entry->payload.append(t.data.data, t.data.size);
  entry->outputs.reserve(outputs.size());
  size_t at = 0;
  for (const core::Tensor& t : outputs) {
    core::Tensor copy{t.name, t.datatype, t.shape, core::Buffer{}};
    copy.data.data = entry->payload.data() + at;
    copy.data.size = t.data.size;
    at += t.data.size;
    entry->outputs.push_back(std::move(copy));
  }
  base::MutexLock lock(&mu_);
  if (auto it = index_.find(entry->digest); it != index_.end()) EraseLocked(it->second);
  while (stats_.bytes + charge > capacity_ && !lru_.empty()) {
    EraseLocked(std::prev(lru_.end()));
    ++stats_.evictions;
  }
  lru_.push_front(std::move(entry));
  index_.emplace(key.digest(), lru_.begin());
  stats_.bytes += charge;
  ++stats_.entries;
  ++stats_.insertions;
  return true;
}

void ResponseCache::EraseLocked(Lru::iterator it) {
  stats_.bytes -= (*it)->charge;
  --stats_.entries;
  index_.erase((*it)->digest);
  lru_.erase(it);
}

ResponseCacheStats ResponseCache::Stats() const {
  base::MutexLock lock(&mu_);
  return stats_;
}

absl::StatusOr<size_t> ParseCacheConfig(const std::vector<std::string>& values) {
  std::optional<size_t> size;
  for (const std::string& value : values) {
    const size_t comma = value.find(',');
    if (comma == std::string::npos || comma == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--cache-config '", value, "': expected <cache>,<key>=<value>, e.g. local,size=1048576"));
    }
    const std::string_view cache = std::string_view(value).substr(0, comma);
    const std::string_view setting = std::string_view(value).substr(comma + 1);
    if (cache != "local") {
      return absl::InvalidArgumentError(absl::StrCat("--cache-config '", value,
                                                     "': unknown cache '", std::string(cache),
                                                     "' (inferd has the 'local' cache only)"));
    }
    const size_t equals = setting.find('=');
    if (equals == std::string_view::npos || setting.substr(0, equals) != "size") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--cache-config '", value, "': the local cache takes one setting, size=<bytes>"));
    }
    const std::string_view number = setting.substr(equals + 1);
    size_t bytes = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), bytes);
    if (error != std::errc() || end != number.data() + number.size() || bytes == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--cache-config '", value, "': size must be a positive number of bytes"));
    }
    size = bytes;
  }
  if (!size) {
    return absl::InvalidArgumentError("--cache-config: the local cache needs size=<bytes>");
  }
  return *size;
}

}  // namespace inferd
