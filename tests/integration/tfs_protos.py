# SPDX-License-Identifier: Apache-2.0
"""TF Serving's own Python client, for the tests of inferd's TF Serving APIs.

The generated modules of PyPI's tensorflow-serving-api (installed with
--no-deps: its TensorFlow dependency is not needed) import TensorFlow's core
protos (tensorflow.core.framework.tensor_pb2, ...), which only TensorFlow
ships. They are compiled here, with grpcio-tools, from the .proto files the
server itself is built from (proto/tfserving): the client's own modules then
talk to the server, and a field number that differs from TF Serving's shows
up as a failing test.
"""
import importlib
import pathlib
import sys
import types

from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROTOS = ROOT / "proto" / "tfserving"
# TensorFlow's own files; TF Serving's (tensorflow_serving/apis) come from the wheel.
CORE = ["tensorflow/core", "xla/tsl"]


def load(out_dir):
    """Compiles the core protos into `out_dir` and returns the client modules."""
    out_dir = pathlib.Path(out_dir)
    files = sorted(str(p.relative_to(PROTOS)) for top in CORE for p in (PROTOS / top).rglob("*.proto"))
    code = protoc.main(["protoc", f"-I{PROTOS}", f"--python_out={out_dir}", *files])
    if code != 0:
        raise RuntimeError(f"protoc failed ({code}) on {files}")
    sys.path.insert(0, str(out_dir))
    names = {
        "tensor_pb2": "tensorflow.core.framework.tensor_pb2",
        "types_pb2": "tensorflow.core.framework.types_pb2",
        "predict_pb2": "tensorflow_serving.apis.predict_pb2",
        "get_model_metadata_pb2": "tensorflow_serving.apis.get_model_metadata_pb2",
        "get_model_status_pb2": "tensorflow_serving.apis.get_model_status_pb2",
        "classification_pb2": "tensorflow_serving.apis.classification_pb2",
        "prediction_service_pb2_grpc": "tensorflow_serving.apis.prediction_service_pb2_grpc",
        "model_service_pb2_grpc": "tensorflow_serving.apis.model_service_pb2_grpc",
    }
    return types.SimpleNamespace(**{k: importlib.import_module(v) for k, v in names.items()})
