# SPDX-License-Identifier: Apache-2.0
"""Aggregates the stream of the decoupled model "square" (BLS)."""
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    async def execute(self, requests):
        responses = []
        for request in requests:
            n = pb_utils.get_input_tensor_by_name(request, "IN")
            mode = pb_utils.get_input_tensor_by_name(request, "MODE").as_numpy()[0].decode()
            call = pb_utils.InferenceRequest(model_name="square", requested_output_names=["OUT"], inputs=[n])
            if mode == "unary":
                response = call.exec()
                responses.append(pb_utils.InferenceResponse(error=response.error()) if response.has_error()
                                 else pb_utils.InferenceResponse(error=pb_utils.TritonError("exec() worked")))
                continue
            stream = call.exec(decoupled=True) if mode == "sync" else await call.async_exec(decoupled=True)
            total, count, error = 0, 0, None
            for response in stream:
                count += 1
                if response.has_error():
                    error = response.error()
                    continue
                # The last response is empty when square sent the final flag alone.
                out = pb_utils.get_output_tensor_by_name(response, "OUT")
                if out is not None:
                    total += int(out.as_numpy()[0])
            if error is not None:
                responses.append(pb_utils.InferenceResponse(error=error))
                continue
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("SUM", np.array([total], np.int32)),
                                                         pb_utils.Tensor("COUNT", np.array([count], np.int32))]))
        return responses
