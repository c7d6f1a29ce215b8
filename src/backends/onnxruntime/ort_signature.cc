// SPDX-License-Identifier: Apache-2.0
#include "ort_signature.h"

#include <initializer_list>
#include <string>
#include <vector>

#include "ort_errors.h"
#include "ort_model.h"
#include "ort_model_file.h"
#include "ort_session_config.h"
#include "ort_type_mapping.h"
#include "shape_util.h"

namespace inferd::ort {
namespace {

struct TensorInfo {
  std::string name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  Dims dims;
};

StatusOr<TensorInfo> DescribeTensor(std::string name, const Ort::TypeInfo& type_info) {
  if (type_info.GetONNXType() != ONNX_TYPE_TENSOR) {
    return Status::InvalidArg("tensor '" + name +
                              "' is not a tensor (sequence, map or optional types are "
                              "not supported)");
  }
  auto tensor_info = type_info.GetTensorTypeAndShapeInfo();
  const ONNXTensorElementDataType onnx_type = tensor_info.GetElementType();
  std::optional<INFERD_DataType> datatype = FromOnnxType(onnx_type);
  if (!datatype) {
    return Status::InvalidArg("tensor '" + name + "' has unsupported element type " +
                              OnnxTypeName(onnx_type));
  }
  Dims dims = tensor_info.GetShape();
  for (int64_t& dim : dims) {
    if (dim < 0) dim = -1;  // symbolic and unknown dims alike
  }
  return TensorInfo{std::move(name), *datatype, std::move(dims)};
}

// The three lists of named values an ORT session has. Overridable
// initializers are inputs with a default value, which a request may omit.
enum class Kind { kInput, kOverridable, kOutput };

size_t Count(const Ort::Session& session, Kind kind) {
  switch (kind) {
    case Kind::kInput:
      return session.GetInputCount();
    case Kind::kOverridable:
      return session.GetOverridableInitializerCount();
    case Kind::kOutput:
      return session.GetOutputCount();
  }
  return 0;
}

std::string Name(const Ort::Session& session, Kind kind, size_t i) {
  Ort::AllocatorWithDefaultOptions allocator;
  switch (kind) {
    case Kind::kInput:
      return session.GetInputNameAllocated(i, allocator).get();
    case Kind::kOverridable:
      return session.GetOverridableInitializerNameAllocated(i, allocator).get();
    case Kind::kOutput:
      return session.GetOutputNameAllocated(i, allocator).get();
  }
  return "";
}

Ort::TypeInfo Type(const Ort::Session& session, Kind kind, size_t i) {
  switch (kind) {
    case Kind::kInput:
      return session.GetInputTypeInfo(i);
    case Kind::kOverridable:
      return session.GetOverridableInitializerTypeInfo(i);
    case Kind::kOutput:
      return session.GetOutputTypeInfo(i);
  }
  return Ort::TypeInfo(nullptr);
}

StatusOr<std::vector<TensorInfo>> DescribeAll(const Ort::Session& session, Kind kind) {
  std::vector<TensorInfo> out;
  for (size_t i = 0; i < Count(session, kind); ++i) {
    StatusOr<TensorInfo> info = DescribeTensor(Name(session, kind, i), Type(session, kind, i));
    if (!info.ok()) return info.status();
    out.push_back(std::move(*info));
  }
  return out;
}

// Finds `config` among the session's values of the given kinds and compares
// data types.
Status CheckTensor(const TensorConfig& config, const Ort::Session& session,
                   std::initializer_list<Kind> kinds) {
  const char* what = *kinds.begin() == Kind::kOutput ? "output" : "input";
  for (Kind kind : kinds) {
    for (size_t i = 0; i < Count(session, kind); ++i) {
      if (Name(session, kind, i) != config.name) continue;
      StatusOr<TensorInfo> info = DescribeTensor(config.name, Type(session, kind, i));
      if (!info.ok()) return info.status();
      if (info->datatype == config.datatype) return Status();
      return Status::InvalidArg(std::string(what) + " '" + config.name + "' is " +
                                DataTypeName(info->datatype) + " in the model but " +
                                DataTypeName(config.datatype) + " in the config");
    }
  }
  return Status::InvalidArg("configured " + std::string(what) + " '" + config.name +
                            "' is not in the model");
}

}  // namespace

Status DescribeModel(const INFERD_ServerApi& api, const INFERD_ModelSpec& spec,
                     INFERD_Signature* signature) {
  const std::string name = spec.name != nullptr ? spec.name : "";
  StatusOr<std::string> path = ResolveModelFile(spec.model_path);
  if (!path.ok()) return WithContext(path.status(), "model '" + name + "'");
  StatusOr<Ort::Session> session =
      OpenSession(name, *path, MakeSessionOptions(DescribeSessionConfig()));
  if (!session.ok()) return session.status();

  // Overridable initializers are left out: they have defaults, and the
  // signature cannot mark an input optional, so listing them would make a
  // completed config require them.
  StatusOr<std::vector<TensorInfo>> inputs = DescribeAll(*session, Kind::kInput);
  if (!inputs.ok()) return WithContext(inputs.status(), "model '" + name + "'");
  StatusOr<std::vector<TensorInfo>> outputs = DescribeAll(*session, Kind::kOutput);
  if (!outputs.ok()) return WithContext(outputs.status(), "model '" + name + "'");
  for (const TensorInfo& input : *inputs) {
    api.SignatureAddInput(signature, input.name.c_str(), input.datatype, input.dims.data(),
                          input.dims.size());
  }
  for (const TensorInfo& output : *outputs) {
    api.SignatureAddOutput(signature, output.name.c_str(), output.datatype, output.dims.data(),
                           output.dims.size());
  }
  return Status();
}

Status CheckConfigAgainstSession(const OrtModel& model, const Ort::Session& session) {
  for (const TensorConfig& input : model.inputs()) {
    INFERD_ORT_RETURN_IF_ERROR(CheckTensor(input, session, {Kind::kInput, Kind::kOverridable}));
  }
  for (const TensorConfig& output : model.outputs()) {
    INFERD_ORT_RETURN_IF_ERROR(CheckTensor(output, session, {Kind::kOutput}));
  }
  return Status();
}

}  // namespace inferd::ort
