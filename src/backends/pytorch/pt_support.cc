// SPDX-License-Identifier: Apache-2.0
#include "pt_support.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <string>
#include <system_error>

namespace inferd::pt {

namespace {

Status InputError(const TensorConfig& config, const std::string& what) {
  return Status::InvalidArg("input '" + config.name + "': " + what);
}

bool FindInput(const INFERD_ServerApi& api, const INFERD_Request* request, const std::string& name,
               INFERD_DataType& datatype, RequestTensor& out) {
  const size_t count = api.RequestInputCount(request);
  for (size_t i = 0; i < count; ++i) {
    const char* input_name = nullptr;
    const int64_t* shape = nullptr;
    size_t rank = 0;
    api.RequestInput(request, i, &input_name, &datatype, &shape, &rank, &out.data, &out.byte_size);
    if (input_name == nullptr || name != input_name) continue;
    out.shape = std::span<const int64_t>(shape, shape == nullptr ? 0 : rank);
    return true;
  }
  return false;
}

// Replaces a single -1 of `dims` so that the element count is `elements`.
StatusOr<Dims> InferDims(Dims dims, int64_t elements, const std::string& name) {
  int64_t known = 1;
  int unknown = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      if (unknown >= 0) return Status::InvalidArg("'" + name + "': more than one -1 to infer");
      unknown = static_cast<int>(i);
    } else {
      known *= dims[i];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || elements % known != 0) {
      return Status::InvalidArg("'" + name + "': cannot view " + std::to_string(elements) +
                                " elements as " + DimsToString(dims));
    }
    dims[static_cast<size_t>(unknown)] = elements / known;
  } else if (known != elements) {
    return Status::InvalidArg("'" + name + "': cannot view " + std::to_string(elements) +
                              " elements as " + DimsToString(dims));
  }
  return dims;
}

// `shape` (batch dim first when batching) with its non-batch part replaced
// by `target` (-1 inferred).
StatusOr<Dims> Reshape(std::span<const int64_t> shape, bool batching, const Dims& target,
                       const std::string& name) {
  std::span<const int64_t> rest = batching && !shape.empty() ? shape.subspan(1) : shape;
  std::optional<int64_t> elements = ElementCount(rest);
  if (!elements) return Status::InvalidArg("'" + name + "': invalid shape");
  StatusOr<Dims> item = InferDims(target, *elements, name);
  if (!item.ok()) return item.status();
  Dims out;
  if (batching && !shape.empty()) out.push_back(shape[0]);
  out.insert(out.end(), item->begin(), item->end());
  return out;
}

}  // namespace

Status GatherInput(const RequestBatch& batch, const TensorConfig& config, bool batching,
                   std::vector<int64_t>& batch_sizes, GatheredInput& out) {
  out.parts.clear();
  for (size_t i = 0; i < batch.size(); ++i) {
    RequestTensor part;
    INFERD_DataType datatype = INFERD_TYPE_INVALID;
    if (!FindInput(batch.api(), batch.request(i), config.name, datatype, part)) continue;
    if (datatype != config.datatype) {
      return InputError(config, std::string("data type ") + DataTypeName(datatype) +
                                    " does not match the config's " +
                                    DataTypeName(config.datatype));
    }
    out.parts.push_back(part);
  }
  if (out.parts.empty() && config.optional) return Status();
  if (out.parts.size() != batch.size()) {
    return InputError(config, out.parts.empty() ? "missing from the request"
                                                : "given by only some requests of the batch");
  }
  // Byte sizes.
  const size_t element_size = ElementByteSize(config.datatype);
  if (element_size == 0) return InputError(config, "unsupported data type");
  for (const RequestTensor& part : out.parts) {
    std::optional<int64_t> elements = ElementCount(part.shape);
    if (!elements) return InputError(config, "invalid shape " + DimsToString(part.shape));
    const auto count = static_cast<uint64_t>(*elements);
    if (count > SIZE_MAX / element_size || count * element_size != part.byte_size) {
      return InputError(config, "shape " + DimsToString(part.shape) + " needs " +
                                    std::to_string(count * element_size) + " bytes but " +
                                    std::to_string(part.byte_size) + " were given");
    }
    if (part.data == nullptr && part.byte_size != 0) return InputError(config, "no data");
  }
  // Batch shape.
  const std::span<const int64_t> first = out.parts[0].shape;
  if (!batching) {
    if (out.parts.size() != 1) {
      return InputError(config, "several requests for a model that does not batch");
    }
    out.shape.assign(first.begin(), first.end());
  } else {
    const std::span<const int64_t> rest0 = first.empty() ? first : first.subspan(1);
    int64_t total = 0;
    std::vector<int64_t> these;
    for (const RequestTensor& part : out.parts) {
      if (part.shape.empty() || part.shape[0] < 0 || part.shape[0] > INT64_MAX - total) {
        return InputError(config, "bad batch dimension in shape " + DimsToString(part.shape));
      }
      const std::span<const int64_t> rest = part.shape.subspan(1);
      if (!std::equal(rest.begin(), rest.end(), rest0.begin(), rest0.end())) {
        return InputError(config, "requests of one batch disagree on shape: " +
                                      DimsToString(part.shape) + " vs " + DimsToString(first));
      }
      these.push_back(part.shape[0]);
      total += part.shape[0];
    }
    if (batch_sizes.empty()) {
      batch_sizes = these;
    } else if (batch_sizes != these) {
      return InputError(config, "batch size differs from the other inputs'");
    }
    out.shape.assign({total});
    out.shape.insert(out.shape.end(), rest0.begin(), rest0.end());
  }
  if (config.reshape) {
    StatusOr<Dims> shape = Reshape(out.shape, batching, *config.reshape, "input " + config.name);
    if (!shape.ok()) return shape.status();
    out.shape = std::move(*shape);
  }
  return Status();
}

StatusOr<Dims> ResponseShape(const TensorConfig* config, bool batching,
                             std::span<const int64_t> model_shape) {
  if (config == nullptr || !config->reshape) return Dims(model_shape.begin(), model_shape.end());
  return Reshape(model_shape, batching, config->dims, "output " + config->name);
}

// ---- Names, parameters, files, types ----------------------------------------

std::optional<size_t> IndexOfName(std::string_view name) {
  const size_t pos = name.rfind("__");
  if (pos == std::string_view::npos || pos + 2 == name.size()) return std::nullopt;
  const std::string_view digits = name.substr(pos + 2);
  size_t index = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return index;
}

namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

}  // namespace

StatusOr<TorchParameters> ParseParameters(const INFERD_ModelSpec& spec) {
  TorchParameters params;
  params.intra_op_threads = spec.default_intra_op_threads > 0 ? spec.default_intra_op_threads : 0;
  for (size_t i = 0; i < spec.parameter_count; ++i) {
    const INFERD_Parameter& p = spec.parameters[i];
    if (p.key == nullptr || p.value == nullptr) continue;
    // Triton's PyTorch backend spells them in capitals.
    const std::string key = Lower(p.key);
    const std::string_view value(p.value);
    if (key == "inference_mode") {
      const std::string lower = Lower(value);
      if (lower == "true" || lower == "1") {
        params.inference_mode = true;
      } else if (lower == "false" || lower == "0") {
        params.inference_mode = false;
      } else {
        return Status::InvalidArg("parameter '" + std::string(p.key) + "': invalid value '" +
                                  std::string(value) + "', expected true or false");
      }
      continue;
    }
    if (key != "intra_op_thread_count") continue;
    int parsed = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (ec != std::errc() || end != value.data() + value.size() || parsed < 0) {
      return Status::InvalidArg("parameter '" + std::string(p.key) + "': invalid value '" +
                                std::string(value) +
                                "', expected a thread count >= 0 (0: LibTorch's default)");
    }
    params.intra_op_threads = parsed;
  }
  return params;
}

StatusOr<std::string> ResolveModelFile(const char* model_path) {
  if (model_path == nullptr || *model_path == '\0') {
    return Status::InvalidArg("no model path given");
  }
  std::error_code ec;
  std::filesystem::path path(model_path);
  if (std::filesystem::is_directory(path, ec)) path /= "model.pt";
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Status(INFERD_ERROR_NOT_FOUND, "model file '" + path.string() + "' not found");
  }
  return path.string();
}

const char* DataTypeName(INFERD_DataType datatype) {
  switch (datatype) {
    case INFERD_TYPE_BOOL:
      return "BOOL";
    case INFERD_TYPE_UINT8:
      return "UINT8";
    case INFERD_TYPE_UINT16:
      return "UINT16";
    case INFERD_TYPE_UINT32:
      return "UINT32";
    case INFERD_TYPE_UINT64:
      return "UINT64";
    case INFERD_TYPE_INT8:
      return "INT8";
    case INFERD_TYPE_INT16:
      return "INT16";
    case INFERD_TYPE_INT32:
      return "INT32";
    case INFERD_TYPE_INT64:
      return "INT64";
    case INFERD_TYPE_FP16:
      return "FP16";
    case INFERD_TYPE_FP32:
      return "FP32";
    case INFERD_TYPE_FP64:
      return "FP64";
    case INFERD_TYPE_BYTES:
      return "BYTES";
    case INFERD_TYPE_BF16:
      return "BF16";
    default:
      return "INVALID";
  }
}

}  // namespace inferd::pt
