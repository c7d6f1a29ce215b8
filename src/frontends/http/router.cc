// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/router.h"

#include <optional>
#include <vector>

#include "absl/strings/ascii.h"

namespace inferd::frontends::http {
namespace {

using Segments = std::vector<std::string_view>;
using Outcome = RouteResult::Outcome;

enum class Allowed { kGet, kPost, kGetOrPost };

// Splits "/v2/models/m" into {"v2","models","m"}; nullopt for an empty
// segment (a double or trailing slash), which no route pattern accepts.
std::optional<Segments> SplitPath(std::string_view path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  Segments segments;
  size_t start = 1;
  while (true) {
    const size_t end = path.find('/', start);
    const std::string_view segment = path.substr(start, end - start);
    if (segment.empty()) return std::nullopt;
    segments.push_back(segment);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return segments;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The Python client percent-encodes model names; a malformed escape or an
// encoded '/' matches nothing, as a literal one would not.
std::optional<std::string> PercentDecode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out.push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return std::nullopt;
    const int hi = HexValue(in[i + 1]);
    const int lo = HexValue(in[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '/' || c == '\0') return std::nullopt;
    out.push_back(c);
    i += 2;
  }
  return out;
}

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

RouteResult Found(HttpMethod method, Allowed allowed, RouteMatch match) {
  const bool ok = (allowed == Allowed::kGet && method == HttpMethod::kGet) ||
                  (allowed == Allowed::kPost && method == HttpMethod::kPost) ||
                  (allowed == Allowed::kGetOrPost && method != HttpMethod::kOther);
  return RouteResult{ok ? Outcome::kMatched : Outcome::kMethodNotAllowed, std::move(match)};
}

RouteResult NotFound() { return RouteResult{Outcome::kNotFound, {}}; }

RouteMatch Only(Route route) {
  RouteMatch match;
  match.route = route;
  return match;
}

// Matches what follows /v2/models/{M}[/versions/{V}].
RouteResult MatchModelAction(HttpMethod method, const Segments& rest, bool has_version,
                             RouteMatch match) {
  if (rest.empty()) {
    match.route = Route::kModelMetadata;
    return Found(method, Allowed::kGet, std::move(match));
  }
  if (rest.size() == 2 && rest[0] == "trace" && rest[1] == "setting" && !has_version) {
    match.route = Route::kModelTraceSetting;
    return Found(method, Allowed::kGetOrPost, std::move(match));
  }
  if (rest.size() != 1) return NotFound();
  struct Action {
    std::string_view name;
    Route route;
    Allowed allowed;
  };
  static constexpr Action kActions[] = {
      {"ready", Route::kModelReady, Allowed::kGet},
      {"config", Route::kModelConfig, Allowed::kGet},
      {"infer", Route::kModelInfer, Allowed::kPost},
      {"stats", Route::kModelStats, Allowed::kGet},
      {"generate", Route::kModelGenerate, Allowed::kPost},
      {"generate_stream", Route::kModelGenerateStream, Allowed::kPost},
  };
  for (const Action& action : kActions) {
    if (rest[0] == action.name) {
      match.route = action.route;
      return Found(method, action.allowed, std::move(match));
    }
  }
  return NotFound();
}

RouteResult MatchModels(HttpMethod method, const Segments& s) {
  // s = {"v2","models",...}
  if (s.size() == 3 && s[2] == "stats") {
    return Found(method, Allowed::kGet, Only(Route::kModelStats));
  }
  if (s.size() < 3) return NotFound();
  RouteMatch match;
  auto model = PercentDecode(s[2]);
  if (!model) return NotFound();
  match.model = std::move(*model);
  Segments rest(s.begin() + 3, s.end());
  bool has_version = false;
  if (!rest.empty() && rest[0] == "versions") {
    if (rest.size() < 2 || !IsDigits(rest[1])) return NotFound();
    match.version = std::string(rest[1]);
    has_version = true;
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  return MatchModelAction(method, rest, has_version, std::move(match));
}

RouteResult MatchRepository(HttpMethod method, Segments s) {
  // s = {"v2","repository",[repo],...}
  RouteMatch match;
  const bool named = s.size() == 4 || s.size() == 6;
  if (named) {
    auto repo = PercentDecode(s[2]);
    if (!repo) return NotFound();
    match.repository = std::move(*repo);
    s.erase(s.begin() + 2);
  }
  if (s.size() == 3 && s[2] == "index") {
    match.route = Route::kRepositoryIndex;
    return Found(method, Allowed::kPost, std::move(match));
  }
  if (s.size() != 5 || s[2] != "models") return NotFound();
  auto model = PercentDecode(s[3]);
  if (!model) return NotFound();
  match.model = std::move(*model);
  if (s[4] == "load") {
    match.route = Route::kRepositoryLoad;
  } else if (s[4] == "unload") {
    match.route = Route::kRepositoryUnload;
  } else {
    return NotFound();
  }
  return Found(method, Allowed::kPost, std::move(match));
}

RouteResult MatchSharedMemory(HttpMethod method, const Segments& s, bool cuda) {
  // s = {"v2","<kind>sharedmemory",[region, R],action}
  RouteMatch match;
  std::string_view action;
  if (s.size() == 3) {
    action = s[2];
  } else if (s.size() == 5 && s[2] == "region") {
    auto region = PercentDecode(s[3]);
    if (!region) return NotFound();
    match.region = std::move(*region);
    action = s[4];
  } else {
    return NotFound();
  }
  if (action == "status") {
    match.route = cuda ? Route::kCudaSharedMemoryStatus : Route::kSystemSharedMemoryStatus;
    return Found(method, Allowed::kGet, std::move(match));
  }
  if (action == "register" && !match.region.empty()) {
    match.route = cuda ? Route::kCudaSharedMemoryRegister : Route::kSystemSharedMemoryRegister;
    return Found(method, Allowed::kPost, std::move(match));
  }
  if (action == "unregister") {
    match.route = cuda ? Route::kCudaSharedMemoryUnregister : Route::kSystemSharedMemoryUnregister;
    return Found(method, Allowed::kPost, std::move(match));
  }
  return NotFound();
}

RouteResult MatchFixed(HttpMethod method, const Segments& s) {
  if (s.size() == 1) return Found(method, Allowed::kGet, Only(Route::kServerMetadata));
  if (s.size() == 3 && s[1] == "health" && (s[2] == "live" || s[2] == "ready")) {
    const Route route = s[2] == "live" ? Route::kHealthLive : Route::kHealthReady;
    return Found(method, Allowed::kGet, Only(route));
  }
  if (s.size() == 3 && s[1] == "trace" && s[2] == "setting") {
    return Found(method, Allowed::kGetOrPost, Only(Route::kTraceSetting));
  }
  if (s.size() == 2 && s[1] == "logging") {
    return Found(method, Allowed::kGetOrPost, Only(Route::kLogging));
  }
  return NotFound();
}

}  // namespace

HttpMethod MethodFromString(std::string_view method) {
  if (method == "GET") return HttpMethod::kGet;
  if (method == "POST") return HttpMethod::kPost;
  return HttpMethod::kOther;
}

RouteResult MatchRoute(HttpMethod method, std::string_view target) {
  const std::string_view path = target.substr(0, target.find_first_of("?#"));
  const auto segments = SplitPath(path);
  if (!segments || segments->empty() || (*segments)[0] != "v2") return NotFound();
  const Segments& s = *segments;
  if (s.size() >= 2 && s[1] == "models") return MatchModels(method, s);
  if (s.size() >= 3 && s[1] == "repository") return MatchRepository(method, s);
  if (s.size() >= 3 && s[1] == "systemsharedmemory") return MatchSharedMemory(method, s, false);
  if (s.size() >= 3 && s[1] == "cudasharedmemory") return MatchSharedMemory(method, s, true);
  return MatchFixed(method, s);
}

}  // namespace inferd::frontends::http
