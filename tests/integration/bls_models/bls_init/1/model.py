import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        x = np.arange(16, dtype=np.int32).reshape(1, 16)
        response = pb_utils.InferenceRequest(
            model_name="simple", requested_output_names=["OUTPUT0"],
            inputs=[pb_utils.Tensor("INPUT0", x), pb_utils.Tensor("INPUT1", x)]).exec()
        if response.has_error():
            raise RuntimeError("BLS in initialize failed: " + response.error().message())
        # Copied: BLS outputs are valid only until initialize() returns.
        self.table = pb_utils.get_output_tensor_by_name(response, "OUTPUT0").as_numpy().copy()

    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", self.table)]) for _ in requests]
