# SPDX-License-Identifier: Apache-2.0
"""inferd's Python backend, Python side: the worker process that runs a
Triton-style model.py, and the `triton_python_backend_utils` API such models
import (also importable as `inferd_python`).

Supported: Tensor, InferenceRequest/InferenceResponse, decoupled models
(request.get_response_sender(), TRITONSERVER_RESPONSE_COMPLETE_FINAL), the
request's parameters() and correlation_id(), BLS
(InferenceRequest(model_name=...).exec() and async_exec(), decoupled=True
for decoupled targets, in initialize and execute, which may be
`async def`), TritonError, Logger, ModelConfig for auto_complete_config, the
config and dtype helpers. Not supported: GPU tensors (TritonModelException).
BF16 tensors are numpy uint16 bit patterns.
"""
from ._types import numpy_to_triton_type, triton_string_to_numpy, triton_to_numpy_type
from .config import (ModelConfig, get_input_config_by_name, get_output_config_by_name,
                     using_decoupled_model_transaction_policy)
from .errors import TritonError, TritonModelException
from .logger import Logger, LogLevel
from .request import InferenceRequest, get_input_tensor_by_name
from .response import InferenceResponse, get_output_tensor_by_name
from .tensor import Tensor

# Sequence flags of InferenceRequest.flags(), as in Triton.
TRITONSERVER_REQUEST_FLAG_SEQUENCE_START = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_END = 2
# The flag of InferenceResponseSender.send() that ends a request's responses.
TRITONSERVER_RESPONSE_COMPLETE_FINAL = 1

__all__ = [
    "InferenceRequest",
    "InferenceResponse",
    "LogLevel",
    "Logger",
    "ModelConfig",
    "TRITONSERVER_REQUEST_FLAG_SEQUENCE_END",
    "TRITONSERVER_REQUEST_FLAG_SEQUENCE_START",
    "TRITONSERVER_RESPONSE_COMPLETE_FINAL",
    "Tensor",
    "TritonError",
    "TritonModelException",
    "get_input_config_by_name",
    "get_input_tensor_by_name",
    "get_output_config_by_name",
    "get_output_tensor_by_name",
    "numpy_to_triton_type",
    "triton_string_to_numpy",
    "triton_to_numpy_type",
    "using_decoupled_model_transaction_policy",
]
