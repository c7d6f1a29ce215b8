# A BLS model written as for Triton: MODE picks how it calls TARGET.
#   sync     exec() with INPUT0/INPUT1 -> OUTPUT0/OUTPUT1, INFO = where they lived
#   async    one async_exec() per row, all outstanding at once (asyncio.gather)
#   error    exec(); an error response becomes this request's TritonError
#   timeout  exec(timeout=TIMEOUT_US); INFO = the error code and message
#   record   exec(); remembers the outcome for "report" (the client may be gone)
#   report   INFO = the last recorded outcome
#   bytes    exec() with TEXT -> TEXT_OUT
#   pid      INFO = this worker's pid (no BLS)
#   self     exec() to this model itself ("pid"): waits until execute_timeout
import asyncio
import os

import numpy as np
import triton_python_backend_utils as pb_utils


def where(array):
    """'mmap' for an array viewing the shared region, 'bytearray' for one
    viewing a message (inline)."""
    base = array
    while getattr(base, "base", None) is not None:
        base = base.base
    return type(base).__name__


def text(values):
    return pb_utils.Tensor("INFO", np.array([str(v).encode() for v in values], dtype=np.object_))


def scalar(request, name):
    tensor = pb_utils.get_input_tensor_by_name(request, name)
    return None if tensor is None else tensor.as_numpy().reshape(-1)[0]


class TritonPythonModel:
    def initialize(self, args):
        self.name = args["model_name"]
        self.last = "nothing recorded"

    async def execute(self, requests):
        return [await self.one(request) for request in requests]

    async def one(self, request):
        mode = scalar(request, "MODE").decode()
        target = scalar(request, "TARGET").decode()
        a = pb_utils.get_input_tensor_by_name(request, "INPUT0")
        b = pb_utils.get_input_tensor_by_name(request, "INPUT1")
        if mode == "pid":
            return pb_utils.InferenceResponse([text([os.getpid()])])
        if mode == "report":
            return pb_utils.InferenceResponse([text([self.last])])
        if mode == "async":
            rows = a.as_numpy().shape[0]
            calls = [pb_utils.InferenceRequest(
                model_name=target, requested_output_names=["OUTPUT0", "OUTPUT1"],
                inputs=[pb_utils.Tensor("INPUT0", a.as_numpy()[i:i + 1]),
                        pb_utils.Tensor("INPUT1", b.as_numpy()[i:i + 1])]).async_exec() for i in range(rows)]
            results = await asyncio.gather(*calls)
            for result in results:
                if result.has_error():
                    return pb_utils.InferenceResponse(error=result.error())
            return pb_utils.InferenceResponse([
                pb_utils.Tensor(name, np.concatenate(
                    [pb_utils.get_output_tensor_by_name(r, name).as_numpy() for r in results]))
                for name in ("OUTPUT0", "OUTPUT1")])
        if mode == "bytes":
            inputs = [pb_utils.get_input_tensor_by_name(request, "TEXT")]
            outputs = ["TEXT_OUT"]
        elif mode == "self":
            inputs = [pb_utils.Tensor("MODE", np.array([b"pid"], dtype=np.object_)),
                      pb_utils.Tensor("TARGET", np.array([b""], dtype=np.object_))]
            outputs = ["INFO"]
            target = self.name
        else:
            inputs = [a, b]
            outputs = ["OUTPUT0", "OUTPUT1"]
        timeout = scalar(request, "TIMEOUT_US")
        bls = pb_utils.InferenceRequest(model_name=target, requested_output_names=outputs, inputs=inputs,
                                        timeout=int(timeout) if timeout is not None else 0)
        response = bls.exec()
        if mode == "record":
            self.last = response.error().message() if response.has_error() else "ok"
        if mode in ("timeout", "record"):
            if response.has_error():
                return pb_utils.InferenceResponse([text([response.error().code(), response.error().message()])])
            return pb_utils.InferenceResponse([text(["ok"])])
        if response.has_error():
            return pb_utils.InferenceResponse(
                error=pb_utils.TritonError("BLS call failed: " + response.error().message(), response.error().code()))
        if mode in ("bytes", "self"):
            return pb_utils.InferenceResponse(response.output_tensors())
        out0 = pb_utils.get_output_tensor_by_name(response, "OUTPUT0")
        out1 = pb_utils.get_output_tensor_by_name(response, "OUTPUT1")
        return pb_utils.InferenceResponse([out0, out1, text([where(out0.as_numpy()), where(out1.as_numpy())])])
