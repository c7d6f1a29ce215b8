# SPDX-License-Identifier: Apache-2.0
"""Step 1 of the `ocr` ensemble: an encoded image → the text detector's
input x [1, 3, H, W] and `shape` (original height and width, x's height and
width), which ocr_recognize needs to map boxes back onto the image.

A Triton-style Python model: it runs unchanged on Triton's Python backend.
The work is in ocr_core.py (no Triton import), shared with ocr_recognize,
bench/ocr_inprocess.py and the tests.
"""
import ocr_core
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            encoded = pb_utils.get_input_tensor_by_name(request, "image").as_numpy().reshape(-1)
            if len(encoded) != 1:
                responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError(
                    f"'image' must hold one encoded image, got {len(encoded)}",
                    pb_utils.TritonError.INVALID_ARG)))
                continue
            try:
                image = ocr_core.decode_image(bytes(encoded[0]))
            except ValueError as error:
                responses.append(pb_utils.InferenceResponse(
                    error=pb_utils.TritonError(str(error), pb_utils.TritonError.INVALID_ARG)))
                continue
            x, shape = ocr_core.det_preprocess(image)
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("x", x), pb_utils.Tensor("shape", shape)]))
        return responses
