import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            response = pb_utils.InferenceRequest(
                model_name="simple", requested_output_names=["OUTPUT0", "OUTPUT1"],
                inputs=request.inputs()).exec()
            if response.has_error():
                responses.append(pb_utils.InferenceResponse(error=response.error()))
                continue
            # Doubled, so the test can tell that this model ran.
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor(t.name(), t.as_numpy() * 2) for t in response.output_tensors()]))
        return responses
