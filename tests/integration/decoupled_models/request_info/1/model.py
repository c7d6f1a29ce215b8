# SPDX-License-Identifier: Apache-2.0
"""X = 0: returns the response; X = 1: sends it through the response sender
and returns None for that request (Triton allows both for ordinary models)."""
import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            correlation_id = request.correlation_id()
            response = pb_utils.InferenceResponse([
                pb_utils.Tensor("PARAMETERS", np.array([request.parameters().encode()], np.object_)),
                pb_utils.Tensor("CORRELATION_ID", np.array(
                    [json.dumps([type(correlation_id).__name__, correlation_id]).encode()], np.object_)),
                pb_utils.Tensor("FLAGS", np.array([request.flags()], np.int32)),
                pb_utils.Tensor("CANCELLED", np.array([int(request.is_cancelled())], np.int32)),
            ])
            if int(pb_utils.get_input_tensor_by_name(request, "X").as_numpy()[0]) == 1:
                request.get_response_sender().send(response, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                response = None
            responses.append(response)
        return responses
