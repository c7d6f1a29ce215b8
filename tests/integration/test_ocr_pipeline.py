# SPDX-License-Identifier: Apache-2.0
"""The OCR pipeline end to end in the real server: examples/models/ocr, an
ensemble (ocr_det_pre in Python → ocr_det in ONNX Runtime → ocr_recognize in
Python, which calls ocr_cls and ocr_rec through BLS), sent rendered PNG and
JPEG images (ocr_images.py) over HTTP and gRPC with tritonclient. Python
models run on Debian's python3 (conftest: INFERD_PYTHON), with python3-pil.
"""
import concurrent.futures
import io

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from PIL import Image
from tritonclient.utils import InferenceServerException

from conftest import EXAMPLES
import ocr_images

IMAGES = ocr_images.all_images()
CLIENTS = {"http": httpclient, "grpc": grpcclient}
PIPELINE = ("ocr", "ocr_det_pre", "ocr_det", "ocr_recognize", "ocr_cls", "ocr_rec")


@pytest.fixture(scope="module", autouse=True)
def models_present():
    for name, file in (("ocr_det", "model.onnx"), ("ocr_rec", "model.onnx"),
                       ("ocr_recognize", "ppocr_keys_v1.txt")):
        if not (EXAMPLES / name / "1" / file).exists():
            pytest.fail(f"examples/models/{name}/1/{file} is missing: run scripts/fetch_models.sh")


def url(server, protocol):
    return server.http_url if protocol == "http" else server.grpc_url


def read(protocol, address, data, client=None):
    """One image through `ocr`: (text lines, boxes, scores)."""
    module = CLIENTS[protocol]
    own = client is None
    client = client or module.InferenceServerClient(address)
    try:
        image = module.InferInput("image", [1], "BYTES")
        image.set_data_from_numpy(np.array([data], dtype=np.object_))
        outputs = [module.InferRequestedOutput(name) for name in ("text", "boxes", "scores")]
        result = client.infer("ocr", [image], outputs=outputs)
        text = [t.decode("utf-8") for t in result.as_numpy("text").reshape(-1)]
        return text, result.as_numpy("boxes"), result.as_numpy("scores")
    finally:
        if own:
            client.close()


def inside(box, point):
    """Whether a point is inside a box whose corners run clockwise on screen."""
    return all((q[0] - p[0]) * (point[1] - p[1]) - (q[1] - p[1]) * (point[0] - p[0]) >= 0
               for p, q in zip(box, np.roll(box, -1, axis=0)))


def test_pipeline_models_are_ready(server):
    with httpclient.InferenceServerClient(server.http_url) as client:
        for name in PIPELINE:
            assert client.is_model_ready(name), name
        config = client.get_model_config("ocr")
        assert config["platform"] == "ensemble"
        assert [step["model_name"] for step in config["ensemble_scheduling"]["step"]] == \
            ["ocr_det_pre", "ocr_det", "ocr_recognize"]
        metadata = client.get_model_metadata("ocr")
        assert [(i["name"], i["datatype"], i["shape"]) for i in metadata["inputs"]] == \
            [("image", "BYTES", [1])]
        assert {o["name"]: (o["datatype"], o["shape"]) for o in metadata["outputs"]} == {
            "text": ("BYTES", [-1]), "boxes": ("FP32", [-1, 4, 2]), "scores": ("FP32", [-1])}


@pytest.mark.parametrize("protocol", CLIENTS)
@pytest.mark.parametrize("image", IMAGES, ids=lambda im: im.name)
def test_reads_every_line_exactly(server, protocol, image):
    text, boxes, scores = read(protocol, url(server, protocol), image.data)
    assert text == image.lines
    assert boxes.dtype == np.float32 and boxes.shape == (len(image.lines), 4, 2)
    assert scores.dtype == np.float32 and scores.shape == (len(image.lines),)
    assert (scores > 0.8).all() and (scores <= 1.0).all(), scores
    width, height = image.size
    for box, centre in zip(boxes, image.centres):
        assert inside(box, centre), (box, centre)   # in original-image pixels
        assert (box[:, 0] >= 0).all() and (box[:, 0] <= width).all()
        assert (box[:, 1] >= 0).all() and (box[:, 1] <= height).all()
        tl, tr, br, bl = box
        assert tl[0] < tr[0] and bl[0] < br[0] and tl[1] < bl[1] and tr[1] < br[1]


def test_concurrent_requests_each_get_their_own_lines(server):
    """Requests in flight together (both protocols, every image twice) go
    through the shared steps without mixing their data."""
    jobs = [(protocol, image) for protocol in CLIENTS for image in IMAGES] * 2
    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        futures = [pool.submit(read, protocol, url(server, protocol), image.data)
                   for protocol, image in jobs]
        for (protocol, image), future in zip(jobs, futures):
            assert future.result(timeout=120)[0] == image.lines, (protocol, image.name)


@pytest.mark.parametrize("protocol", CLIENTS)
def test_image_with_no_text_gives_empty_outputs(server, protocol):
    blank = io.BytesIO()
    Image.new("RGB", (320, 200), (250, 250, 250)).save(blank, format="PNG")
    text, boxes, scores = read(protocol, url(server, protocol), blank.getvalue())
    assert text == [] and boxes.shape == (0, 4, 2) and scores.shape == (0,)


@pytest.mark.parametrize("protocol", CLIENTS)
def test_undecodable_image_is_the_clients_error(server, protocol):
    with pytest.raises(InferenceServerException) as error:
        read(protocol, url(server, protocol), b"this is not an image")
    assert "cannot decode the image" in error.value.message()
    expected = "400" if protocol == "http" else "StatusCode.INVALID_ARGUMENT"
    assert error.value.status() == expected
    # the pipeline goes on serving
    assert read(protocol, url(server, protocol), IMAGES[0].data)[0] == IMAGES[0].lines
