// SPDX-License-Identifier: Apache-2.0
#include "ort_errors.h"

namespace inferd::ort {

Status StatusFromOrtException(const Ort::Exception& e) {
  INFERD_ErrorCode code = INFERD_ERROR_INTERNAL;
  switch (e.GetOrtErrorCode()) {
    case ORT_NO_SUCHFILE:
      code = INFERD_ERROR_NOT_FOUND;
      break;
    case ORT_INVALID_ARGUMENT:
    case ORT_NO_MODEL:
    case ORT_INVALID_PROTOBUF:
    case ORT_INVALID_GRAPH:
      code = INFERD_ERROR_INVALID_ARG;
      break;
    case ORT_NOT_IMPLEMENTED:
      code = INFERD_ERROR_UNSUPPORTED;
      break;
    default:
      break;
  }
  return Status(code, std::string("onnxruntime: ") + e.what());
}

}  // namespace inferd::ort
