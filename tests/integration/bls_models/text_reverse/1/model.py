import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
            out = np.array([value[::-1] for value in text], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("TEXT_OUT", out)]))
        return responses
