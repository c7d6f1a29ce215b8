// SPDX-License-Identifier: Apache-2.0
#include "echo/model_spec.h"

#include <charconv>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace inferd::bench {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

size_t ElementByteSize(std::string_view datatype) {
  if (datatype == "BOOL" || datatype == "INT8" || datatype == "UINT8") return 1;
  if (datatype == "INT16" || datatype == "UINT16" || datatype == "FP16" || datatype == "BF16") {
    return 2;
  }
  if (datatype == "INT64" || datatype == "UINT64" || datatype == "FP64") return 8;
  return 4;  // INT32, UINT32, FP32, and BYTES (an empty string is its 4-byte length)
}

void WriteString(JsonWriter& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void WriteDims(JsonWriter& writer, const std::vector<int64_t>& dims) {
  writer.StartArray();
  for (int64_t dim : dims) writer.Int64(dim);
  writer.EndArray();
}

// Metadata shape: a leading -1 when the model batches (perf_analyzer skips it).
std::vector<int64_t> MetadataShape(const ModelSpec& model, const TensorSpec& tensor) {
  std::vector<int64_t> shape;
  if (model.max_batch_size > 0) shape.push_back(-1);
  shape.insert(shape.end(), tensor.dims.begin(), tensor.dims.end());
  return shape;
}

void WriteTensorMetadata(JsonWriter& writer, const ModelSpec& model,
                         const std::vector<TensorSpec>& tensors) {
  writer.StartArray();
  for (const TensorSpec& tensor : tensors) {
    writer.StartObject();
    writer.Key("name");
    WriteString(writer, tensor.name);
    writer.Key("datatype");
    WriteString(writer, tensor.datatype);
    writer.Key("shape");
    WriteDims(writer, MetadataShape(model, tensor));
    writer.EndObject();
  }
  writer.EndArray();
}

std::string ConfigDataType(std::string_view datatype) {
  return datatype == "BYTES" ? "TYPE_STRING" : absl::StrCat("TYPE_", std::string(datatype));
}

void WriteConfigTensors(JsonWriter& writer, const std::vector<TensorSpec>& tensors, bool input) {
  writer.StartArray();
  for (const TensorSpec& tensor : tensors) {
    writer.StartObject();
    writer.Key("name");
    WriteString(writer, tensor.name);
    writer.Key("data_type");
    WriteString(writer, ConfigDataType(tensor.datatype));
    if (input) {
      writer.Key("format");
      writer.String("FORMAT_NONE");
      writer.Key("optional");
      writer.Bool(false);
    }
    writer.Key("dims");
    WriteDims(writer, tensor.dims);
    writer.Key("is_shape_tensor");
    writer.Bool(false);
    writer.EndObject();
  }
  writer.EndArray();
}

}  // namespace

absl::StatusOr<TensorSpec> ParseTensorSpec(std::string_view flag) {
  std::vector<std::string> parts = absl::StrSplit(absl::string_view(flag.data(), flag.size()), ':');
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", std::string(flag), "' is not NAME:DATATYPE:D1,D2,..."));
  }
  TensorSpec tensor{parts[0], parts[1], {}};
  inference::DataType type = inference::TYPE_INVALID;
  if (!inference::DataType_Parse(ConfigDataType(tensor.datatype), &type) ||
      type == inference::TYPE_INVALID) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", parts[0], "' has an unknown datatype '", parts[1], "'"));
  }
  if (parts[2].empty()) return tensor;
  for (absl::string_view dim : absl::StrSplit(parts[2], ',')) {
    int64_t value = 0;
    auto [end, error] = std::from_chars(dim.data(), dim.data() + dim.size(), value);
    if (error != std::errc() || end != dim.data() + dim.size() || value < -1) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", parts[0], "' has a bad dimension '", dim, "'"));
    }
    tensor.dims.push_back(value);
  }
  return tensor;
}

std::vector<int64_t> OutputShape(const ModelSpec& model, const TensorSpec& output, int64_t batch) {
  std::vector<int64_t> shape;
  if (model.max_batch_size > 0) shape.push_back(batch);
  for (int64_t dim : output.dims) shape.push_back(dim < 0 ? 1 : dim);
  return shape;
}

size_t OutputByteSize(const TensorSpec& output, const std::vector<int64_t>& shape) {
  size_t elements = 1;
  for (int64_t dim : shape) elements *= static_cast<size_t>(dim);
  return elements * ElementByteSize(output.datatype);
}

std::string ServerMetadataJson() {
  return R"({"name":"echo","version":"0.1.0","extensions":["binary_tensor_data","model_configuration"]})";
}

std::string ModelMetadataJson(const ModelSpec& model) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("name");
  WriteString(writer, model.name);
  writer.Key("versions");
  writer.StartArray();
  WriteString(writer, model.version);
  writer.EndArray();
  writer.Key("platform");
  WriteString(writer, model.platform);
  writer.Key("inputs");
  WriteTensorMetadata(writer, model, model.inputs);
  writer.Key("outputs");
  WriteTensorMetadata(writer, model, model.outputs);
  writer.EndObject();
  return buffer.GetString();
}

std::string ModelConfigJson(const ModelSpec& model) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("name");
  WriteString(writer, model.name);
  writer.Key("platform");
  WriteString(writer, model.platform);
  writer.Key("max_batch_size");
  writer.Int(model.max_batch_size);
  writer.Key("input");
  WriteConfigTensors(writer, model.inputs, /*input=*/true);
  writer.Key("output");
  WriteConfigTensors(writer, model.outputs, /*input=*/false);
  writer.EndObject();
  return buffer.GetString();
}

std::string InferResponseJson(const ModelSpec& model, std::string_view id, int64_t batch,
                              size_t& blob_bytes) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  if (!id.empty()) {
    writer.Key("id");
    WriteString(writer, id);
  }
  writer.Key("model_name");
  WriteString(writer, model.name);
  writer.Key("model_version");
  WriteString(writer, model.version);
  writer.Key("outputs");
  writer.StartArray();
  blob_bytes = 0;
  for (const TensorSpec& output : model.outputs) {
    const std::vector<int64_t> shape = OutputShape(model, output, batch);
    const size_t bytes = OutputByteSize(output, shape);
    blob_bytes += bytes;
    writer.StartObject();
    writer.Key("name");
    WriteString(writer, output.name);
    writer.Key("datatype");
    WriteString(writer, output.datatype);
    writer.Key("shape");
    WriteDims(writer, shape);
    writer.Key("parameters");
    writer.StartObject();
    writer.Key("binary_data_size");
    writer.Uint64(bytes);
    writer.EndObject();
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
  return buffer.GetString();
}

void FillServerMetadata(inference::ServerMetadataResponse& response) {
  response.set_name("echo");
  response.set_version("0.1.0");
  response.add_extensions("binary_tensor_data");
  response.add_extensions("model_configuration");
}

void FillModelMetadata(const ModelSpec& model, inference::ModelMetadataResponse& response) {
  response.set_name(model.name);
  response.add_versions(model.version);
  response.set_platform(model.platform);
  for (const TensorSpec& input : model.inputs) {
    auto* tensor = response.add_inputs();
    tensor->set_name(input.name);
    tensor->set_datatype(input.datatype);
    for (int64_t dim : MetadataShape(model, input)) tensor->add_shape(dim);
  }
  for (const TensorSpec& output : model.outputs) {
    auto* tensor = response.add_outputs();
    tensor->set_name(output.name);
    tensor->set_datatype(output.datatype);
    for (int64_t dim : MetadataShape(model, output)) tensor->add_shape(dim);
  }
}

inference::ModelConfig ModelConfigProto(const ModelSpec& model) {
  inference::ModelConfig config;
  config.set_name(model.name);
  config.set_platform(model.platform);
  config.set_max_batch_size(model.max_batch_size);
  inference::DataType type = inference::TYPE_INVALID;
  for (const TensorSpec& spec : model.inputs) {
    auto* input = config.add_input();
    input->set_name(spec.name);
    if (inference::DataType_Parse(ConfigDataType(spec.datatype), &type)) input->set_data_type(type);
    for (int64_t dim : spec.dims) input->add_dims(dim);
  }
  for (const TensorSpec& spec : model.outputs) {
    auto* output = config.add_output();
    output->set_name(spec.name);
    if (inference::DataType_Parse(ConfigDataType(spec.datatype), &type))
      output->set_data_type(type);
    for (int64_t dim : spec.dims) output->add_dims(dim);
  }
  return config;
}

void FillInferResponse(const ModelSpec& model, const std::string& id, int64_t batch,
                       inference::ModelInferResponse& response) {
  response.set_model_name(model.name);
  response.set_model_version(model.version);
  response.set_id(id);
  for (const TensorSpec& spec : model.outputs) {
    const std::vector<int64_t> shape = OutputShape(model, spec, batch);
    auto* output = response.add_outputs();
    output->set_name(spec.name);
    output->set_datatype(spec.datatype);
    for (int64_t dim : shape) output->add_shape(dim);
    response.add_raw_output_contents()->assign(OutputByteSize(spec, shape), '\0');
  }
}

}  // namespace inferd::bench
