// SPDX-License-Identifier: Apache-2.0
#include "frontends/tfserving/rest_router.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace inferd::frontends::tfserving {
namespace {

std::optional<RestAction> VerbAction(absl::string_view verb) {
  if (verb == "predict") return RestAction::kPredict;
  if (verb == "classify") return RestAction::kClassify;
  if (verb == "regress") return RestAction::kRegress;
  return std::nullopt;
}

bool IsName(absl::string_view segment) {
  return !segment.empty() && segment.find(':') == absl::string_view::npos;
}

}  // namespace

absl::StatusOr<RestRoute> MatchRestRoute(std::string_view method_in, std::string_view target) {
  // Debian's Abseil has its own string_view.
  const absl::string_view method(method_in.data(), method_in.size());
  const absl::string_view path(target.data(), target.find_first_of("?#") == std::string_view::npos
                                                  ? target.size()
                                                  : target.find_first_of("?#"));
  if (path.substr(0, 4) != "/v1/") return absl::NotFoundError("Not Found");
  const auto malformed =
      absl::InvalidArgumentError(absl::StrCat("Malformed request: ", method, " ", path));
  constexpr absl::string_view kModels = "/v1/models/";
  if (path.substr(0, kModels.size()) != kModels) return malformed;
  std::vector<absl::string_view> segments = absl::StrSplit(path.substr(kModels.size()), '/');
  RestRoute route;
  // A verb (":predict") ends the last segment.
  std::optional<RestAction> verb;
  absl::string_view& last = segments.back();
  if (const size_t colon = last.rfind(':'); colon != absl::string_view::npos) {
    verb = VerbAction(last.substr(colon + 1));
    if (!verb) return malformed;
    last = last.substr(0, colon);
  }
  if (!verb && segments.size() > 1 && segments.back() == "metadata") {
    route.action = RestAction::kMetadata;
    segments.pop_back();
  }
  if (!IsName(segments[0])) return malformed;
  route.model = std::string(segments[0]);
  if (segments.size() == 3 && segments[1] == "versions") {
    int64_t version = 0;
    if (!absl::SimpleAtoi(segments[2], &version) || segments[2].front() == '-' ||
        segments[2].front() == '+') {
      return malformed;
    }
    route.version = version;
  } else if (segments.size() == 3 && segments[1] == "labels" && IsName(segments[2])) {
    route.label = std::string(segments[2]);
  } else if (segments.size() != 1) {
    return malformed;
  }
  if (verb) {
    if (method != "POST") return malformed;
    route.action = *verb;
  } else if (method != "GET") {
    return malformed;
  }
  return route;
}

}  // namespace inferd::frontends::tfserving
