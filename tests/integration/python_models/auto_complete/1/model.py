import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    @staticmethod
    def auto_complete_config(auto_complete_model_config):
        auto_complete_model_config.add_input(
            {"name": "TEXT", "data_type": "TYPE_STRING", "dims": [-1]})
        auto_complete_model_config.add_output(
            {"name": "LENGTH", "data_type": "TYPE_INT64", "dims": [-1]})
        return auto_complete_model_config

    def execute(self, requests):
        import numpy as np
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
            lengths = np.array([len(t) for t in text.reshape(-1)], dtype=np.int64)
            responses.append(pb_utils.InferenceResponse(
                [pb_utils.Tensor("LENGTH", lengths.reshape(text.shape))]))
        return responses
