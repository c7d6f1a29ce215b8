import os
import time

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            if (x == -1).any():
                os._exit(3)
            if (x == -2).any():
                time.sleep(3600)
            if (x >= 100).any():
                time.sleep(0.02)  # busy: a kill almost always finds a batch in flight
            pid = np.full(x.shape, os.getpid(), dtype=np.int64)
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("OUTPUT0", x), pb_utils.Tensor("PID", pid)]))
        return responses
