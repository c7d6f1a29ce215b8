// SPDX-License-Identifier: Apache-2.0
// image_preprocess: an inferd backend that turns encoded images into the
// normalized float tensor a vision model takes. It is an example of the
// backend ABI (include/inferd/backend.h, docs/backends.md), built out of tree
// against the installed inferd package.
//
// Model contract (checked when the model loads):
//   input  0: TYPE_STRING (BYTES) dims [1]: one JPEG or PNG file per batch row
//   output 0: TYPE_FP32 dims [3, H, W]: CHW, (pixel / 255 - mean) / std
// Config `parameters` (all optional): height (48), width (192), mean and std
// (one value for all channels or three comma-separated ones; 0.5 and 0.5),
// color_order ("RGB" or "BGR"; RGB).
//
// BYTES rather than UINT8 [-1] because a batch holds images of different
// encoded sizes: a BYTES element carries its own length, while requests of a
// UINT8 [-1] input would only batch together when their byte counts agree.
#include "inferd/backend.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "decode.h"
#include "preprocess.h"

struct INFERD_BackendModel {
  const INFERD_ServerApi* api = nullptr;
  std::string name;
  std::string input_name;
  std::string output_name;
  bool batching = false;
  image_preprocess::PreprocessOptions options;
};

// The instance holds no state of its own: decoding is done on the calling
// thread, so instances only add parallelism.
struct INFERD_BackendInstance {
  const INFERD_BackendModel* model = nullptr;
};

namespace {

using image_preprocess::PreprocessOptions;

// A failure on its way to an INFERD_Error (made only at the ABI boundary, so
// that none is created and then dropped: the ABI has no way to free one).
struct Failure {
  INFERD_ErrorCode code = INFERD_ERROR_INTERNAL;
  std::string message;
};

bool ParseFloat(const std::string& text, float* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  *value = std::strtof(text.c_str(), &end);
  return end != nullptr && *end == '\0';
}

// "0.5" or "0.485,0.456,0.406"
bool ParseTriple(const std::string& text, std::array<float, 3>* values) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    std::string part = text.substr(begin, comma == std::string::npos ? comma : comma - begin);
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    parts.push_back(part);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (parts.size() != 1 && parts.size() != 3) return false;
  for (size_t c = 0; c < 3; ++c) {
    if (!ParseFloat(parts[parts.size() == 1 ? 0 : c], &(*values)[c])) return false;
  }
  return true;
}

bool ParseSide(const std::string& text, int* value) {
  char* end = nullptr;
  const long parsed = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || parsed < 1 || parsed > image_preprocess::kMaxSide) {
    return false;
  }
  *value = static_cast<int>(parsed);
  return true;
}

bool ReadParameters(const INFERD_ModelSpec& spec, PreprocessOptions* options, Failure* failure) {
  for (size_t i = 0; i < spec.parameter_count; ++i) {
    const std::string key = spec.parameters[i].key;
    const std::string value = spec.parameters[i].value;
    bool ok = true;
    if (key == "height") {
      ok = ParseSide(value, &options->height);
    } else if (key == "width") {
      ok = ParseSide(value, &options->width);
    } else if (key == "mean") {
      ok = ParseTriple(value, &options->mean);
    } else if (key == "std") {
      ok = ParseTriple(value, &options->std);
      for (float s : options->std) ok = ok && s != 0.0f;
    } else if (key == "color_order") {
      ok = value == "RGB" || value == "BGR";
      options->bgr = value == "BGR";
    }  // other keys belong to someone else (e.g. the server) and are ignored
    if (!ok) {
      *failure = {INFERD_ERROR_INVALID_ARG,
                  "image_preprocess: invalid parameter " + key + ": '" + value + "'"};
      return false;
    }
  }
  return true;
}

bool CheckDims(const INFERD_TensorSpec& tensor, const std::vector<int64_t>& want) {
  if (tensor.dims_count != want.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if (tensor.dims[i] != want[i] && tensor.dims[i] != -1) return false;
  }
  return true;
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

bool CreateModel(const INFERD_ServerApi* api, const INFERD_ModelSpec* spec,
                 std::unique_ptr<INFERD_BackendModel>* out, Failure* failure) {
  // This header's minor version is what the backend was compiled against; a
  // server of the same major but an older minor has a shorter table.
  if (api->version_major != INFERD_BACKEND_API_VERSION_MAJOR ||
      spec->struct_size < sizeof(INFERD_ModelSpec)) {
    *failure = {INFERD_ERROR_UNSUPPORTED, "image_preprocess: incompatible inferd server"};
    return false;
  }
  auto model = std::make_unique<INFERD_BackendModel>();
  model->api = api;
  model->name = spec->name;
  model->batching = spec->max_batch_size > 0;
  if (!ReadParameters(*spec, &model->options, failure)) return false;
  const std::vector<int64_t> input_dims = {1};
  const std::vector<int64_t> output_dims = {3, model->options.height, model->options.width};
  if (spec->input_count != 1 || spec->inputs[0].datatype != INFERD_TYPE_BYTES ||
      !CheckDims(spec->inputs[0], input_dims) || spec->inputs[0].reshape_dims != nullptr) {
    *failure = {INFERD_ERROR_INVALID_ARG,
                "image_preprocess: the model needs exactly one input of TYPE_STRING with dims "
                "[1] (one encoded image per batch row)"};
    return false;
  }
  if (spec->output_count != 1 || spec->outputs[0].datatype != INFERD_TYPE_FP32 ||
      !CheckDims(spec->outputs[0], output_dims) || spec->outputs[0].reshape_dims != nullptr) {
    *failure = {INFERD_ERROR_INVALID_ARG,
                "image_preprocess: the model needs exactly one output of TYPE_FP32 with dims " +
                    DimsText(output_dims) + " (parameters height and width)"};
    return false;
  }
  model->input_name = spec->inputs[0].name;
  model->output_name = spec->outputs[0].name;
  *out = std::move(model);
  return true;
}

// Splits a BYTES tensor (per element: uint32 little-endian length, bytes).
bool SplitBytes(const uint8_t* data, size_t size, size_t count,
                std::vector<std::pair<const uint8_t*, size_t>>* elements) {
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    if (size - offset < 4) return false;
    uint32_t length = 0;
    for (int b = 0; b < 4; ++b) length |= static_cast<uint32_t>(data[offset + b]) << (8 * b);
    offset += 4;
    if (size - offset < length) return false;
    elements->emplace_back(data + offset, length);
    offset += length;
  }
  return offset == size;
}

void FreeBuffer(void* context) { std::free(context); }

// Runs one request; on success its output has been handed to the server. On
// failure either `failure` is set or, when the server refused the output,
// `*server_error` holds the server's error (ours to pass on).
bool RunRequest(const INFERD_BackendModel& model, INFERD_Request* request, Failure* failure,
                INFERD_Error** server_error) {
  const INFERD_ServerApi* api = model.api;
  const uint8_t* data = nullptr;
  size_t byte_size = 0;
  const int64_t* shape = nullptr;
  size_t shape_count = 0;
  bool found = false;
  for (size_t i = 0, n = api->RequestInputCount(request); i < n && !found; ++i) {
    const char* name = nullptr;
    INFERD_DataType datatype = INFERD_TYPE_INVALID;
    const void* bytes = nullptr;
    api->RequestInput(request, i, &name, &datatype, &shape, &shape_count, &bytes, &byte_size);
    found = model.input_name == name;
    data = static_cast<const uint8_t*>(bytes);
  }
  if (!found) {  // the server validates requests against the config; be safe anyway
    *failure = {INFERD_ERROR_INVALID_ARG,
                "image_preprocess: input " + model.input_name + " is missing"};
    return false;
  }
  size_t images = 1;
  for (size_t i = 0; i < shape_count; ++i) images *= static_cast<size_t>(shape[i]);
  std::vector<std::pair<const uint8_t*, size_t>> encoded;
  if (!SplitBytes(data, byte_size, images, &encoded)) {
    *failure = {INFERD_ERROR_INVALID_ARG, "image_preprocess: malformed BYTES tensor"};
    return false;
  }
  bool wanted = false;
  for (size_t i = 0, n = api->RequestOutputCount(request); i < n; ++i) {
    wanted = wanted || model.output_name == api->RequestOutputName(request, i);
  }
  if (!wanted) return true;  // nothing to compute

  const auto& options = model.options;
  const size_t per_image = 3 * static_cast<size_t>(options.height) * options.width;
  float* out = static_cast<float*>(std::malloc(per_image * images * sizeof(float)));
  if (out == nullptr) {
    *failure = {INFERD_ERROR_INTERNAL, "image_preprocess: out of memory"};
    return false;
  }
  image_preprocess::RgbImage image;
  std::string error;
  for (size_t i = 0; i < images; ++i) {
    if (!image_preprocess::DecodeImage(encoded[i].first, encoded[i].second, &image, &error)) {
      std::free(out);
      *failure = {INFERD_ERROR_INVALID_ARG,
                  "image_preprocess: image " + std::to_string(i) + " of the request: " + error};
      return false;
    }
    image_preprocess::ResizeNormalize(image, options, out + i * per_image);
  }
  std::vector<int64_t> out_shape;
  if (model.batching) out_shape.push_back(static_cast<int64_t>(images));
  out_shape.insert(out_shape.end(), {3, options.height, options.width});
  // Ownership of `out` passes to the server, which calls FreeBuffer once the
  // response is sent, or before ResponseAddOutput returns an error.
  *server_error = api->ResponseAddOutput(request, model.output_name.c_str(), INFERD_TYPE_FP32,
                                         out_shape.data(), out_shape.size(), out,
                                         per_image * images * sizeof(float), &FreeBuffer, out);
  return *server_error == nullptr;
}

}  // namespace

extern "C" {

INFERD_BACKEND_EXPORT uint32_t INFERD_BackendApiVersion(void) {
  return INFERD_BACKEND_API_VERSION_MAJOR << 16 | INFERD_BACKEND_API_VERSION_MINOR;
}

// INFERD_BackendDescribeModel is not exported: this backend has no model file
// to read, so its config.pbtxt must be complete.

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendModelCreate(const INFERD_ServerApi* api,
                                                              const INFERD_ModelSpec* spec,
                                                              INFERD_BackendModel** model) {
  Failure failure;
  try {
    std::unique_ptr<INFERD_BackendModel> created;
    if (CreateModel(api, spec, &created, &failure)) {
      *model = created.release();
      return nullptr;
    }
  } catch (const std::exception& e) {  // no exception may cross the C ABI
    failure = {INFERD_ERROR_INTERNAL, std::string("image_preprocess: ") + e.what()};
  }
  return api->ErrorNew(failure.code, failure.message.c_str());
}

INFERD_BACKEND_EXPORT void INFERD_BackendModelDelete(INFERD_BackendModel* model) { delete model; }

INFERD_BACKEND_EXPORT INFERD_Error* INFERD_BackendInstanceCreate(
    INFERD_BackendModel* model, uint32_t index, INFERD_BackendInstance** instance) {
  *instance = new (std::nothrow) INFERD_BackendInstance{model};
  if (*instance == nullptr) return model->api->ErrorNew(INFERD_ERROR_INTERNAL, "out of memory");
  return nullptr;
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceDelete(INFERD_BackendInstance* instance) {
  delete instance;
}

INFERD_BACKEND_EXPORT void INFERD_BackendInstanceExecute(INFERD_BackendInstance* instance,
                                                         INFERD_Request** requests,
                                                         size_t request_count) {
  const INFERD_BackendModel& model = *instance->model;
  const INFERD_ServerApi* api = model.api;
  // RequestReportComputeTimes exists since ABI 1.1: check the server's table.
  const bool report_times =
      api->struct_size >= offsetof(INFERD_ServerApi, RequestReportComputeTimes) +
                              sizeof(api->RequestReportComputeTimes);
  // Requests are independent: one bad image fails only its own request.
  for (size_t r = 0; r < request_count; ++r) {
    INFERD_Request* request = requests[r];
    Failure failure;
    INFERD_Error* server_error = nullptr;
    bool done = false;
    const uint64_t start = report_times ? api->NowNanoseconds() : 0;
    try {
      done = RunRequest(model, request, &failure, &server_error);
    } catch (const std::exception& e) {
      failure = {INFERD_ERROR_INTERNAL, std::string("image_preprocess: ") + e.what()};
    }
    if (!done) {
      // Each request is completed exactly once, with a server error passed
      // on as it came or a new one.
      api->RequestComplete(request, server_error != nullptr
                                        ? server_error
                                        : api->ErrorNew(failure.code, failure.message.c_str()));
      continue;
    }
    if (report_times) api->RequestReportComputeTimes(request, start, api->NowNanoseconds());
    api->RequestComplete(request, nullptr);
  }
}

}  // extern "C"
