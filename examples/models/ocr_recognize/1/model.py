# SPDX-License-Identifier: Apache-2.0
"""Step 3 of the `ocr` ensemble: the detector's probability map, the original
image and its shape → the text lines found (`text`, `boxes`, `scores`).

What happens in between depends on the image — how many lines, how wide —
so it is a Python model calling the other models itself (BLS) rather than
more ensemble steps: ocr_cls for every crop's direction, then ocr_rec for
their text. A Triton-style Python model: it runs unchanged on Triton's
Python backend. The work is in ocr_core.py (no Triton import), shared with
ocr_det_pre, bench/ocr_inprocess.py and the tests.
"""
import json
import os

import numpy as np

import ocr_core
import triton_python_backend_utils as pb_utils

CLS_MODEL, CLS_INPUT, CLS_OUTPUT = "ocr_cls", "x", "softmax_0.tmp_0"
REC_MODEL, REC_INPUT, REC_OUTPUT = "ocr_rec", "x", "softmax_11.tmp_0"


class CallFailed(Exception):
    """A BLS call answered an error; the request fails with its code."""

    def __init__(self, model_name, error):
        super().__init__(f"{model_name}: {error.message()}")
        self.code = error.code()


def _infer(model_name, input_name, output_name, x):
    """One BLS call: x in, the named output out; an error answer raises."""
    response = pb_utils.InferenceRequest(
        model_name=model_name,
        requested_output_names=[output_name],
        inputs=[pb_utils.Tensor(input_name, x)],
    ).exec()
    if response.has_error():
        raise CallFailed(model_name, response.error())
    return pb_utils.get_output_tensor_by_name(response, output_name).as_numpy()


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        parameters = config.get("parameters", {})
        def parameter(key, default):
            return int(parameters.get(key, {}).get("string_value", default))

        cls_batch = parameter("cls_max_batch_size", "4")
        self.rec_batch_lines = parameter("rec_batch_lines", str(ocr_core.REC_BATCH_LINES))
        folder = os.path.dirname(os.path.abspath(__file__))
        self.charset = ocr_core.load_charset(os.path.join(folder, "ppocr_keys_v1.txt"))

        def classify(x):
            # in pieces that fit ocr_cls's max_batch_size
            return np.concatenate([_infer(CLS_MODEL, CLS_INPUT, CLS_OUTPUT, x[i:i + cls_batch])
                                   for i in range(0, len(x), cls_batch)])

        def recognise(x):
            return _infer(REC_MODEL, REC_INPUT, REC_OUTPUT, x)

        self.networks = ocr_core.Networks(detect=None, classify=classify, recognise=recognise)

    def execute(self, requests):
        responses = []
        for request in requests:
            prob = pb_utils.get_input_tensor_by_name(request, "prob").as_numpy()
            encoded = pb_utils.get_input_tensor_by_name(request, "image").as_numpy().reshape(-1)
            shape = pb_utils.get_input_tensor_by_name(request, "shape").as_numpy().reshape(-1)
            try:
                if len(encoded) != 1 or len(shape) != 4:
                    raise ValueError("expected one image and its 4-element shape")
                image = ocr_core.decode_image(bytes(encoded[0]))
                result = ocr_core.recognise_lines(image, prob, shape, self.networks, self.charset,
                                                  rec_batch_lines=self.rec_batch_lines)
            except ValueError as error:
                responses.append(pb_utils.InferenceResponse(
                    error=pb_utils.TritonError(str(error), pb_utils.TritonError.INVALID_ARG)))
                continue
            except CallFailed as error:
                responses.append(pb_utils.InferenceResponse(
                    error=pb_utils.TritonError(str(error), error.code)))
                continue
            text = np.array([t.encode("utf-8") for t in result.text], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("text", text),
                pb_utils.Tensor("boxes", result.boxes),
                pb_utils.Tensor("scores", result.scores)]))
        return responses
