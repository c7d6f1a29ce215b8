# SPDX-License-Identifier: Apache-2.0
"""The OCR pipeline's Python models (examples/models/ocr_det_pre and
ocr_recognize) run here without a server: inferd_python is their
triton_python_backend_utils, except that a BLS call (InferenceRequest.exec)
runs the named model with onnxruntime in this process. The server-side run,
with the real ensemble and BLS, is tests/integration/test_ocr_pipeline.py."""
import importlib.util
import json
import sys
import types

import numpy as np
import pytest

import inferd_python
from ocr_support import MODELS, NETWORKS, ocr_images, require_models, session


class Bls:
    """The models a BLS call can reach, and the calls made."""

    def __init__(self):
        self.sessions = {name: session(name) for name in ("ocr_cls", "ocr_rec")}
        self.calls = []          # (model name, input shape)
        self.fail = None         # a model name whose calls answer an error


@pytest.fixture(scope="module")
def bls():
    require_models()
    return Bls()


@pytest.fixture(scope="module")
def pb_utils(bls):
    """inferd_python under Triton's name, with exec() served by `bls`."""

    class BlsRequest(inferd_python.InferenceRequest):
        def __init__(self, *, model_name="", **kwargs):
            super().__init__(model_name=model_name, **kwargs)
            self.target = model_name

        def exec(self):
            (x,) = [t.as_numpy() for t in self.inputs()]
            bls.calls.append((self.target, x.shape))
            if bls.fail == self.target:
                return inferd_python.InferenceResponse(
                    error=inferd_python.TritonError(f"{self.target} is unavailable",
                                                    inferd_python.TritonError.UNAVAILABLE))
            (name,) = self.requested_output_names()
            assert name == NETWORKS[self.target]
            return inferd_python.InferenceResponse(
                output_tensors=[inferd_python.Tensor(name, bls.sessions[self.target](x))])

    module = types.ModuleType("triton_python_backend_utils")
    for name in inferd_python.__all__:
        setattr(module, name, getattr(inferd_python, name))
    module.InferenceRequest = BlsRequest
    saved = sys.modules.get(module.__name__)
    sys.modules[module.__name__] = module
    yield module
    if saved is None:
        del sys.modules[module.__name__]
    else:
        sys.modules[module.__name__] = saved


def load_model(name, pb_utils):
    """model.py of examples/models/<name>, initialised with its config (the
    parameters as the server passes them: JSON of the config)."""
    folder = MODELS / name / "1"
    sys.path.insert(0, str(folder))
    try:
        spec = importlib.util.spec_from_file_location(f"{name}_model", folder / "model.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(folder))
    model = module.TritonPythonModel()
    if hasattr(model, "initialize"):
        config = {"parameters": _parameters(MODELS / name / "config.pbtxt")}
        model.initialize({"model_config": json.dumps(config), "model_name": name,
                          "model_version": "1", "model_repository": str(MODELS / name)})
    return model


def _parameters(config_path):
    """The key/string_value pairs of a config.pbtxt's parameters (enough for
    these configs; the server's own parser is the real one)."""
    import re
    text = config_path.read_text()
    pairs = re.findall(r'key:\s*"([^"]+)"\s*value:\s*{\s*string_value:\s*"([^"]*)"', text)
    return {key: {"string_value": value} for key, value in pairs}


def request(**arrays):
    return inferd_python.InferenceRequest(
        inputs=[inferd_python.Tensor(name, array) for name, array in arrays.items()])


def output(response, name):
    assert not response.has_error(), response.error()
    return inferd_python.get_output_tensor_by_name(response, name).as_numpy()


@pytest.fixture(scope="module")
def models(pb_utils):
    return load_model("ocr_det_pre", pb_utils), load_model("ocr_recognize", pb_utils)


@pytest.fixture(scope="module")
def detect():
    require_models()
    return session("ocr_det")


def run_pipeline(models, detect, data):
    """The ensemble's three steps by hand."""
    pre, recognize = models
    image = np.array([data], dtype=np.object_)
    (pre_response,) = pre.execute([request(image=image)])
    x, shape = output(pre_response, "x"), output(pre_response, "shape")
    prob = detect(x)
    (response,) = recognize.execute([request(prob=prob, image=image, shape=shape)])
    return response


@pytest.mark.parametrize("image", ocr_images.all_images(), ids=lambda im: im.name)
def test_models_read_every_line(image, models, detect, bls):
    bls.calls.clear()
    response = run_pipeline(models, detect, image.data)
    text = output(response, "text")
    assert text.dtype == np.object_ and [t.decode() for t in text] == image.lines
    assert output(response, "boxes").shape == (len(image.lines), 4, 2)
    assert output(response, "scores").shape == (len(image.lines),)
    # ocr_cls gets every crop, in requests within its max_batch_size (4);
    # ocr_rec one line per request (the config's rec_batch_lines)
    cls_calls = [shape for model, shape in bls.calls if model == "ocr_cls"]
    rec_calls = [shape for model, shape in bls.calls if model == "ocr_rec"]
    assert sum(s[0] for s in cls_calls) == len(image.lines) and max(s[0] for s in cls_calls) <= 4
    assert len(rec_calls) == len(image.lines) and all(s[0] == 1 for s in rec_calls)


def test_undecodable_image_is_invalid_arg(models):
    pre, recognize = models
    (response,) = pre.execute([request(image=np.array([b"not an image"], dtype=np.object_))])
    assert response.has_error() and response.error().code() == inferd_python.TritonError.INVALID_ARG
    assert "cannot decode" in response.error().message()
    (response,) = recognize.execute([request(prob=np.zeros((1, 1, 32, 32), np.float32),
                                             image=np.array([b"junk"], dtype=np.object_),
                                             shape=np.array([32, 32, 32, 32], np.float32))])
    assert response.error().code() == inferd_python.TritonError.INVALID_ARG


def test_a_failing_bls_call_fails_that_request_only(models, detect, bls):
    images = ocr_images.all_images()
    bls.fail = "ocr_rec"
    try:
        failed = run_pipeline(models, detect, images[0].data)
    finally:
        bls.fail = None
    assert failed.has_error() and failed.error().message() == "ocr_rec: ocr_rec is unavailable"
    assert failed.error().code() == inferd_python.TritonError.UNAVAILABLE  # the callee's code
    assert [t.decode() for t in output(run_pipeline(models, detect, images[1].data), "text")] \
        == images[1].lines


def test_no_text_gives_empty_outputs(models, detect):
    import io

    from PIL import Image
    blank = io.BytesIO()
    Image.new("RGB", (64, 64), (255, 255, 255)).save(blank, format="PNG")
    response = run_pipeline(models, detect, blank.getvalue())
    assert output(response, "text").shape == (0,)
    assert output(response, "boxes").shape == (0, 4, 2)
    assert output(response, "scores").shape == (0,)
