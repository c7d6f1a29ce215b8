# SPDX-License-Identifier: Apache-2.0
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            mode = pb_utils.get_input_tensor_by_name(request, "MODE").as_numpy()[0].decode()
            if mode == "return":
                return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([1], np.int32))])]
            if mode == "raise":
                request.get_response_sender().send(
                    pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([1], np.int32))]))
                raise RuntimeError("gave up after one response")
            # "drop": neither responses nor the final flag
        return None
