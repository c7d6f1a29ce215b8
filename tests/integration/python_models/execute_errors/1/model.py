import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            mode = int(x[0])
            if mode == 1:
                responses.append(pb_utils.InferenceResponse(
                    error=pb_utils.TritonError("value 1 is not allowed",
                                               pb_utils.TritonError.INVALID_ARG)))
            elif mode == 2:
                raise RuntimeError("execute failed on purpose")
            elif mode == 3:
                responses.append(pb_utils.InferenceResponse(output_tensors=[]))
            else:
                responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", x)]))
        return responses
