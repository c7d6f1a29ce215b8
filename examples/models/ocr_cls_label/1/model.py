# SPDX-License-Identifier: Apache-2.0
"""ocr_cls's softmax [batch, 2] → the predicted text angle ("0" or "180") and
its probability, per row. A Triton-style Python model: it runs unchanged on
Triton's Python backend too."""
import numpy as np
import triton_python_backend_utils as pb_utils

ANGLES = np.array([b"0", b"180"], dtype=np.object_)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            probabilities = pb_utils.get_input_tensor_by_name(request, "probabilities").as_numpy()
            best = probabilities.argmax(axis=1)
            angle = ANGLES[best].reshape(-1, 1)
            score = probabilities[np.arange(len(best)), best].reshape(-1, 1).astype(np.float32)
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("angle", angle), pb_utils.Tensor("score", score)]))
        return responses
