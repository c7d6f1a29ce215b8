// SPDX-License-Identifier: Apache-2.0
#include "ort_input_builder.h"

#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "bytes_codec.h"
#include "ort_type_mapping.h"
#include "shape_util.h"

namespace inferd::ort {
namespace {

// One request's view of an input; memory owned by the request.
struct RequestTensor {
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::span<const int64_t> shape;
  const void* data = nullptr;
  size_t byte_size = 0;
  int64_t elements = 0;  // filled by CheckSizes
};

Status InputError(const TensorConfig& config, const std::string& what) {
  return Status::InvalidArg("input '" + config.name + "': " + what);
}

bool FindInput(const INFERD_ServerApi& api, const INFERD_Request* request, const std::string& name,
               RequestTensor& out) {
  const size_t count = api.RequestInputCount(request);
  for (size_t i = 0; i < count; ++i) {
    const char* input_name = nullptr;
    const int64_t* shape = nullptr;
    size_t rank = 0;
    api.RequestInput(request, i, &input_name, &out.datatype, &shape, &rank, &out.data,
                     &out.byte_size);
    if (input_name == nullptr || name != input_name) continue;
    out.shape = std::span<const int64_t>(shape, shape == nullptr ? 0 : rank);
    return true;
  }
  return false;
}

// Collects the input from every request; leaves `parts` empty when an
// optional input is absent from all of them.
Status Gather(const RequestBatch& batch, const TensorConfig& config,
              std::vector<RequestTensor>& parts) {
  for (size_t i = 0; i < batch.size(); ++i) {
    RequestTensor part;
    if (FindInput(batch.api(), batch.request(i), config.name, part)) {
      if (part.datatype != config.datatype) {
        return InputError(config, std::string("data type ") + DataTypeName(part.datatype) +
                                      " does not match the config's " +
                                      DataTypeName(config.datatype));
      }
      parts.push_back(part);
    }
  }
  if (parts.empty() && config.optional) return Status();
  if (parts.size() != batch.size()) {
    return InputError(config, parts.empty() ? "missing from the request"
                                            : "given by only some requests of the batch");
  }
  return Status();
}

// The shape of the whole batch: the requests' first dims summed for batching
// models, the one request's shape otherwise.
StatusOr<Dims> BatchShape(const TensorConfig& config, bool batching,
                          const std::vector<RequestTensor>& parts, std::vector<int64_t>& sizes) {
  if (!batching) {
    if (parts.size() != 1)
      return InputError(config, "several requests for a model that does not batch");
    return Dims(parts[0].shape.begin(), parts[0].shape.end());
  }
  const std::span<const int64_t> rest0 =
      parts[0].shape.empty() ? parts[0].shape : parts[0].shape.subspan(1);
  int64_t total = 0;
  std::vector<int64_t> these;
  for (const RequestTensor& part : parts) {
    if (part.shape.empty() || part.shape[0] < 0 || part.shape[0] > INT64_MAX - total) {
      return InputError(config, "bad batch dimension in shape " + DimsToString(part.shape));
    }
    const std::span<const int64_t> rest = part.shape.subspan(1);
    if (!std::equal(rest.begin(), rest.end(), rest0.begin(), rest0.end())) {
      return InputError(
          config, "requests of one batch disagree on shape: " + DimsToString(part.shape) + " vs " +
                      DimsToString(parts[0].shape));
    }
    these.push_back(part.shape[0]);
    total += part.shape[0];
  }
  if (sizes.empty()) {
    sizes = these;
  } else if (sizes != these) {
    return InputError(config, "batch size differs from the other inputs'");
  }
  Dims shape{total};
  shape.insert(shape.end(), rest0.begin(), rest0.end());
  return shape;
}

// Fills each part's element count and checks fixed-size byte counts.
Status CheckSizes(const TensorConfig& config, std::vector<RequestTensor>& parts) {
  const size_t element_size = ElementByteSize(config.datatype);
  for (RequestTensor& part : parts) {
    std::optional<int64_t> elements = ElementCount(part.shape);
    if (!elements) return InputError(config, "invalid shape " + DimsToString(part.shape));
    part.elements = *elements;
    if (part.data == nullptr && part.byte_size != 0) return InputError(config, "no data");
    if (config.datatype == INFERD_TYPE_BYTES) continue;
    const auto count = static_cast<uint64_t>(*elements);
    if (count > SIZE_MAX / element_size || count * element_size != part.byte_size) {
      return InputError(config, "shape " + DimsToString(part.shape) + " needs " +
                                    std::to_string(count * element_size) + " bytes but " +
                                    std::to_string(part.byte_size) + " were given");
    }
  }
  return Status();
}

// The shape the model sees: the batch shape, or the config's `reshape` of it.
StatusOr<Dims> ModelShape(const TensorConfig& config, bool batching, const Dims& shape) {
  if (!config.reshape) return shape;
  if (!batching) return ResolveDims(*config.reshape, config.dims, shape, config.name);
  const std::span<const int64_t> rest = std::span<const int64_t>(shape).subspan(1);
  StatusOr<Dims> item = ResolveDims(*config.reshape, config.dims, rest, config.name);
  if (!item.ok()) return item.status();
  Dims out{shape[0]};
  out.insert(out.end(), item->begin(), item->end());
  return out;
}

StatusOr<Ort::Value> MakeStringTensor(const TensorConfig& config,
                                      const std::vector<RequestTensor>& parts, const Dims& shape) {
  std::vector<std::string_view> elements;
  for (const RequestTensor& part : parts) {
    INFERD_ORT_RETURN_IF_ERROR(
        ParseBytesTensor(part.data, part.byte_size, part.elements, config.name, elements));
  }
  Ort::AllocatorWithDefaultOptions allocator;
  Ort::Value value = Ort::Value::CreateTensor(allocator, shape.data(), shape.size(),
                                              ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING);
  for (size_t i = 0; i < elements.size(); ++i) {
    // Element by element with explicit lengths: FillStringTensor would stop
    // at the first NUL byte, and BYTES may hold binary data.
    char* buffer = value.GetResizedStringTensorElementBuffer(i, elements[i].size());
    if (!elements[i].empty()) std::memcpy(buffer, elements[i].data(), elements[i].size());
  }
  return value;
}

Ort::Value MakeFixedTensor(const TensorConfig& config, const std::vector<RequestTensor>& parts,
                           const Dims& shape, const Ort::MemoryInfo& cpu) {
  const ONNXTensorElementDataType type = *ToOnnxType(config.datatype);
  const size_t element_size = ElementByteSize(config.datatype);
  const RequestTensor& first = parts[0];
  const bool aligned = reinterpret_cast<uintptr_t>(first.data) % element_size == 0;
  if (parts.size() == 1 && first.byte_size > 0 && aligned) {
    // Zero copy: ORT only reads inputs, and the request outlives the Run.
    return Ort::Value::CreateTensor(cpu, const_cast<void*>(first.data), first.byte_size,
                                    shape.data(), shape.size(), type);
  }
  Ort::AllocatorWithDefaultOptions allocator;
  Ort::Value value = Ort::Value::CreateTensor(allocator, shape.data(), shape.size(), type);
  auto* out = static_cast<char*>(value.GetTensorMutableRawData());
  for (const RequestTensor& part : parts) {
    if (part.byte_size == 0) continue;
    std::memcpy(out, part.data, part.byte_size);
    out += part.byte_size;
  }
  return value;
}

Status BuildOne(const OrtModel& model, const RequestBatch& batch, const TensorConfig& config,
                const Ort::MemoryInfo& cpu, BatchInputs& out) {
  std::vector<RequestTensor> parts;
  INFERD_ORT_RETURN_IF_ERROR(Gather(batch, config, parts));
  if (parts.empty()) return Status();  // optional and absent
  if (!ToOnnxType(config.datatype)) return InputError(config, "invalid data type");
  StatusOr<Dims> shape = BatchShape(config, model.batching(), parts, out.batch_sizes);
  if (!shape.ok()) return shape.status();
  INFERD_ORT_RETURN_IF_ERROR(CheckSizes(config, parts));
  StatusOr<Dims> model_shape = ModelShape(config, model.batching(), *shape);
  if (!model_shape.ok()) return model_shape.status();
  if (config.datatype == INFERD_TYPE_BYTES) {
    StatusOr<Ort::Value> value = MakeStringTensor(config, parts, *model_shape);
    if (!value.ok()) return value.status();
    out.values.push_back(std::move(*value));
  } else {
    out.values.push_back(MakeFixedTensor(config, parts, *model_shape, cpu));
  }
  out.names.push_back(config.name.c_str());
  return Status();
}

}  // namespace

Status BuildInputs(const OrtModel& model, const RequestBatch& batch, const Ort::MemoryInfo& cpu,
                   BatchInputs& out) {
  for (const TensorConfig& config : model.inputs()) {
    INFERD_ORT_RETURN_IF_ERROR(BuildOne(model, batch, config, cpu, out));
  }
  return Status();
}

}  // namespace inferd::ort
