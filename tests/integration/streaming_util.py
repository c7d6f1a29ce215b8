# SPDX-License-Identifier: Apache-2.0
"""Helpers for the streaming tests: a repository with the decoupled example
model repeat_int32 (examples/backends/repeat) beside ordinary ONNX models,
and a collector for tritonclient's gRPC stream callbacks."""
import pathlib
import queue

import numpy as np
import tritonclient.grpc as grpcclient

from conftest import BACKENDS, EXAMPLES, ROOT

REPEAT = "repeat_int32"
REPEAT_MODELS = ROOT / "examples" / "backends" / "repeat" / "models"
WAIT = 60  # seconds any single answer may take before a test fails


def streaming_repo(folder):
    """`folder` with repeat_int32, simple and string_identity (symlinks)."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if not (BACKENDS / "repeat" / "libinferd_repeat.so").exists():
        raise AssertionError(f"the repeat backend is missing in {BACKENDS}: build inferd_repeat")
    (folder / REPEAT).symlink_to(REPEAT_MODELS / REPEAT)
    for name in ("simple", "string_identity"):
        (folder / name).symlink_to(EXAMPLES / name)
    return folder


def repeat_inputs(values, delays=None, wait=None):
    """grpcclient inputs of repeat_int32: IN, and DELAY / WAIT when given."""
    tensors = []
    for name, data, dtype in (("IN", values, np.int32), ("DELAY", delays, np.uint32),
                              ("WAIT", None if wait is None else [wait], np.uint32)):
        if data is None:
            continue
        array = np.array(data, dtype=dtype)
        tensor = grpcclient.InferInput(name, list(array.shape),
                                       "INT32" if dtype is np.int32 else "UINT32")
        tensor.set_data_from_numpy(array)
        tensors.append(tensor)
    return tensors


def simple_inputs(a, b):
    tensors = []
    for name, value in (("INPUT0", a), ("INPUT1", b)):
        tensor = grpcclient.InferInput(name, [1, 16], "INT32")
        tensor.set_data_from_numpy(np.full((1, 16), value, dtype=np.int32))
        tensors.append(tensor)
    return tensors


class Answers:
    """Everything a stream's callback received, in order: (result, error)."""

    def __init__(self):
        self.queue = queue.Queue()

    def __call__(self, result, error):
        self.queue.put((result, error))

    def take(self, count):
        """The next `count` answers (fails after WAIT seconds)."""
        return [self.queue.get(timeout=WAIT) for _ in range(count)]

    def rest(self):
        out = []
        while not self.queue.empty():
            out.append(self.queue.get_nowait())
        return out


def final_flag(result):
    return result.get_response().parameters["triton_final_response"].bool_param


def summary(result):
    """(id, {output: list}, final) of one stream response."""
    response = result.get_response()
    outputs = {o.name: result.as_numpy(o.name).tolist() for o in response.outputs}
    return response.id, outputs, final_flag(result)
