# SPDX-License-Identifier: Apache-2.0
import os

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.held = []

    def execute(self, requests):
        for request in requests:
            mode = pb_utils.get_input_tensor_by_name(request, "MODE").as_numpy()[0].decode()
            if mode == "pid":
                request.get_response_sender().send(
                    pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([os.getpid()], np.int32))]),
                    flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                continue
            if mode == "hang":  # one response, then the sender is kept and never finished
                sender = request.get_response_sender()
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([7], np.int32))]))
                self.held.append(sender)
                continue
            if mode == "return":
                return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([1], np.int32))])]
            if mode == "raise":
                request.get_response_sender().send(
                    pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([1], np.int32))]))
                raise RuntimeError("gave up after one response")
            # "drop": neither responses nor the final flag
        return None
