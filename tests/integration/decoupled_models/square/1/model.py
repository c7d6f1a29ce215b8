# SPDX-License-Identifier: Apache-2.0
"""IN = n: n responses OUT = n from a thread per request, then the final
flag alone; execute() returns at once (Triton's decoupled pattern). A
negative n is answered with an error response (without the final flag),
then the final flag."""
import threading

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            n = int(pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()[0])
            threading.Thread(target=self.respond, args=(request.get_response_sender(), n)).start()
        return None

    def respond(self, sender, n):
        if n < 0:
            sender.send(pb_utils.InferenceResponse(error=pb_utils.TritonError(
                f"IN must be >= 0, got {n}", pb_utils.TritonError.INVALID_ARG)))
        for _ in range(n):
            sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([n], np.int32))]))
        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
