# A Python model written the way Triton's users write them (the add_sub
# example's shape): every call here is triton_python_backend_utils API.
import json

import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.model_config = json.loads(args["model_config"])
        self.dtypes = [
            pb_utils.triton_string_to_numpy(
                pb_utils.get_output_config_by_name(self.model_config, name)["data_type"])
            for name in ("OUTPUT0", "OUTPUT1")
        ]

    def execute(self, requests):
        responses = []
        for request in requests:
            a = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            b = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
            outputs = [
                pb_utils.Tensor("OUTPUT0", (a + b).astype(self.dtypes[0])),
                pb_utils.Tensor("OUTPUT1", (a - b).astype(self.dtypes[1])),
            ]
            responses.append(pb_utils.InferenceResponse(output_tensors=outputs))
        return responses

    def finalize(self):
        print("add_sub: cleaning up")
