// SPDX-License-Identifier: Apache-2.0
#include "repository/s3_listing_xml.h"

#include <expat.h>

#include <functional>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace inferd::repository {
namespace {

// Collects the text of every element, keyed by its path from the root
// ("ListBucketResult/Contents/Key"), and calls `on_end` when one ends.
class XmlWalker {
 public:
  using EndHandler = std::function<void(const std::string& path, const std::string& text)>;
  explicit XmlWalker(EndHandler on_end) : on_end_(std::move(on_end)) {}

  absl::Status Parse(absl::string_view xml) {
    std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(XML_ParserCreate("UTF-8"),
                                                                        &XML_ParserFree);
    if (!parser) return absl::ResourceExhaustedError("cannot create an XML parser");
    XML_SetUserData(parser.get(), this);
    XML_SetElementHandler(parser.get(), &XmlWalker::Start, &XmlWalker::End);
    XML_SetCharacterDataHandler(parser.get(), &XmlWalker::Text);
    if (XML_Parse(parser.get(), xml.data(), static_cast<int>(xml.size()), XML_TRUE) ==
        XML_STATUS_ERROR) {
      return absl::InvalidArgumentError(
          absl::StrCat("malformed XML at line ", XML_GetCurrentLineNumber(parser.get()), ": ",
                       XML_ErrorString(XML_GetErrorCode(parser.get()))));
    }
    return absl::OkStatus();
  }
  const std::string& root() const { return root_; }

 private:
  // Drops a namespace prefix ("s3:Key" -> "Key"); S3 uses a default namespace.
  static std::string LocalName(const XML_Char* name) {
    absl::string_view view(name);
    const size_t colon = view.find(':');
    return std::string(colon == absl::string_view::npos ? view : view.substr(colon + 1));
  }
  static void Start(void* data, const XML_Char* name, const XML_Char**) {
    auto* self = static_cast<XmlWalker*>(data);
    if (self->stack_.empty()) self->root_ = LocalName(name);
    self->stack_.push_back(LocalName(name));
    self->text_.clear();
  }
  static void End(void* data, const XML_Char*) {
    auto* self = static_cast<XmlWalker*>(data);
    self->on_end_(absl::StrJoin(self->stack_, "/"), self->text_);
    self->stack_.pop_back();
    self->text_.clear();
  }
  static void Text(void* data, const XML_Char* text, int length) {
    static_cast<XmlWalker*>(data)->text_.append(text, static_cast<size_t>(length));
  }

  EndHandler on_end_;
  std::vector<std::string> stack_;
  std::string text_;
  std::string root_;
};

std::string Unquote(std::string etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return etag;
}

}  // namespace

absl::StatusOr<ListObjectsPage> ParseListObjectsV2(std::string_view xml_in) {
  const absl::string_view xml(xml_in.data(), xml_in.size());
  ListObjectsPage page;
  ObjectInfo current;
  std::string bad_size;
  XmlWalker walker([&](const std::string& path, const std::string& text) {
    if (path == "ListBucketResult/Contents/Key") {
      current.key = text;
    } else if (path == "ListBucketResult/Contents/ETag") {
      current.etag = Unquote(text);
    } else if (path == "ListBucketResult/Contents/Size") {
      if (!absl::SimpleAtoi(text, &current.size)) bad_size = text;
    } else if (path == "ListBucketResult/Contents") {
      page.objects.push_back(std::move(current));
      current = ObjectInfo{};
    } else if (path == "ListBucketResult/IsTruncated") {
      page.truncated = text == "true";
    } else if (path == "ListBucketResult/NextContinuationToken") {
      page.next_continuation_token = text;
    }
  });
  if (auto parsed = walker.Parse(xml); !parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the object listing is not valid XML: ", parsed.message()));
  }
  if (walker.root() != "ListBucketResult") {
    return absl::InvalidArgumentError(absl::StrCat(
        "the object listing is not a ListBucketResult (root element '", walker.root(), "')"));
  }
  if (!bad_size.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the object listing has a Size that is not a number: '", bad_size, "'"));
  }
  if (page.truncated && page.next_continuation_token.empty()) {
    return absl::InvalidArgumentError(
        "the object listing is truncated but has no NextContinuationToken");
  }
  return page;
}

std::optional<S3ErrorBody> ParseS3Error(std::string_view xml_in) {
  const absl::string_view xml(xml_in.data(), xml_in.size());
  S3ErrorBody error;
  XmlWalker walker([&](const std::string& path, const std::string& text) {
    if (path == "Error/Code") error.code = text;
    if (path == "Error/Message") error.message = text;
  });
  if (!walker.Parse(xml).ok() || walker.root() != "Error" || error.code.empty()) {
    return std::nullopt;
  }
  return error;
}

}  // namespace inferd::repository
