# SPDX-License-Identifier: Apache-2.0
"""An out-of-tree backend built against the INSTALLED inferd package and served.

The session fixture installs the build under test into a temporary prefix
(`cmake --install`), builds examples/backends/image_preprocess against it with
find_package(inferd) in a folder of its own, installs the result next to the
installed ONNX Runtime backend (<prefix>/lib/backends/<name>/) and serves the
example model from there, together with the ONNX `simple` model (which checks
that the installed ONNX Runtime backend still finds its library).
The outputs are compared with a numpy version of the same bilinear resize and
normalization, computed from pixels decoded by Pillow.

The example's text_direction model calls another model from the backend
(ABI 1.3): it sends its tensor to ocr_cls (examples/models, PaddleOCR's
text-direction classifier) and returns ocr_cls's outputs, which must equal
what ocr_cls gives for the same tensor sent directly.
"""
import io
import os
import pathlib
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from PIL import Image
from tritonclient.utils import InferenceServerException

from conftest import BINARY, EXAMPLES, ROOT, RunningServer

EXAMPLE = ROOT / "examples" / "backends" / "image_preprocess"
MODEL = "image_preprocess"
HEIGHT, WIDTH = 48, 192

# The same backend without batching and with every parameter set.
UNBATCHED = "preprocess_unbatched"
UNBATCHED_CONFIG = """
backend: "image_preprocess"
input [ { name: "IMAGE" data_type: TYPE_STRING dims: [ 1 ] } ]
output [ { name: "PIXELS" data_type: TYPE_FP32 dims: [ 3, 32, 100 ] } ]
parameters { key: "height" value: { string_value: "32" } }
parameters { key: "width" value: { string_value: "100" } }
parameters { key: "mean" value: { string_value: "0.485, 0.456, 0.406" } }
parameters { key: "std" value: { string_value: "0.229,0.224,0.225" } }
parameters { key: "color_order" value: { string_value: "BGR" } }
"""

# text_direction (examples/backends/image_preprocess/models) calls this one.
TARGET = "ocr_cls"
DIRECTION = "text_direction"
PROBS = "softmax_0.tmp_0"  # ocr_cls's output, forwarded under its name
TENSOR = "x"               # ocr_cls's input; text_direction returns it too when asked

# ocr_cls again, with its input fixed to 3 x 48 x 192 by the config.
FIXED_TARGET = "ocr_cls_fixed"
FIXED_TARGET_CONFIG = """
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ 3, 48, 192 ] } ]
output [ { name: "softmax_0.tmp_0" data_type: TYPE_FP32 dims: [ 2 ] } ]
"""


def calling_config(next_model, height=48, width=192, next_input="x"):
    return f"""
backend: "image_preprocess"
max_batch_size: 8
input [ {{ name: "IMAGE" data_type: TYPE_STRING dims: [ 1 ] }} ]
output [ {{ name: "softmax_0.tmp_0" data_type: TYPE_FP32 dims: [ 2 ] }} ]
parameters {{ key: "height" value: {{ string_value: "{height}" }} }}
parameters {{ key: "width" value: {{ string_value: "{width}" }} }}
parameters {{ key: "next_model" value: {{ string_value: "{next_model}" }} }}
parameters {{ key: "next_model_input" value: {{ string_value: "{next_input}" }} }}
"""


# Models whose call to the next model fails, and what the client must read.
FAILING_CALLS = {
    # The next model does not exist: UNAVAILABLE (the model the client called does).
    "calls_missing": (calling_config("no_such_model"), "no_such_model", 503, "UNAVAILABLE"),
    # The next model refuses the tensor: 3 x 32 x 100 where it takes 3 x 48 x 192.
    "calls_wrong_shape": (calling_config(FIXED_TARGET, height=32, width=100), FIXED_TARGET, 400,
                          "INVALID_ARGUMENT"),
    # The next model has no such input.
    "calls_wrong_input": (calling_config(TARGET, next_input="not_x"), "not_x", 400,
                          "INVALID_ARGUMENT"),
}
# next_model without next_model_input: the model does not load (served
# apart: an unavailable model makes the server unready).
BAD_CONFIG = "calls_without_input"
BAD_CONFIG_TEXT = calling_config(TARGET).replace(
    'parameters { key: "next_model_input" value: { string_value: "x" } }', "")


def add_model(repo, name, config, model_file=None):
    (repo / name / "1").mkdir(parents=True)
    (repo / name / "config.pbtxt").write_text(config)
    if model_file is not None:
        (repo / name / "1" / "model.onnx").symlink_to(model_file)


def target_model_file():
    model = EXAMPLES / TARGET / "1" / "model.onnx"
    if not model.exists():
        pytest.fail("examples/models/ocr_cls is missing: run scripts/fetch_models.sh (make setup)")
    return model


def calls_repo(repo):
    """`repo` with ocr_cls, its fixed-shape copy and the failing callers."""
    (repo / TARGET).symlink_to(EXAMPLES / TARGET)
    add_model(repo, FIXED_TARGET, FIXED_TARGET_CONFIG, target_model_file())
    for name, (config, *_) in FAILING_CALLS.items():
        add_model(repo, name, config)
    return repo


def run(args, **kwargs):
    result = subprocess.run([str(a) for a in args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kwargs)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(map(str, args))} failed:\n{result.stdout}")
    return result.stdout


@pytest.fixture(scope="session")
def installed_prefix(tmp_path_factory):
    """<tmp>/inferd: `cmake --install` of the build under test, plus the example
    backend built out of tree and installed into it."""
    build_tree = BINARY.parent.parent
    if not (build_tree / "cmake_install.cmake").exists():
        pytest.fail(f"{build_tree} is not a CMake build tree with install rules")
    work = tmp_path_factory.mktemp("custom_backend")
    prefix = work / "inferd"
    run(["cmake", "--install", build_tree, "--prefix", prefix])
    for installed in ["lib/cmake/inferd/inferdConfig.cmake", "include/inferd/backend.h"]:
        if not (prefix / installed).exists():
            pytest.fail(f"`cmake --install {build_tree}` installed no {installed}: "
                        "reconfigure that build tree (make build)")

    env = dict(os.environ)
    configure = ["cmake", "-S", EXAMPLE, "-B", work / "build", "-G", "Ninja",
                 f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release"]
    if shutil.which("ccache"):
        # Paths relative to the build folder hit the cache from one run to the next.
        env.update(CCACHE_BASEDIR="/", CCACHE_NOHASHDIR="1")
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    run(configure, env=env)
    run(["ninja", "-C", work / "build"], env=env)
    run(["cmake", "--install", work / "build", "--prefix", prefix])
    library = prefix / "lib" / "backends" / MODEL / f"libinferd_{MODEL}.so"
    assert library.exists()
    return prefix


@pytest.fixture(scope="module")
def pp_server(installed_prefix, tmp_path_factory):
    repo = calls_repo(tmp_path_factory.mktemp("custom_backend_repo"))
    (repo / "simple").symlink_to(EXAMPLES / "simple")
    add_model(repo, UNBATCHED, UNBATCHED_CONFIG)
    log = tmp_path_factory.mktemp("custom_backend_log") / "pp_server.log"
    running = RunningServer([EXAMPLE / "models", repo], [], log,
                            backends=installed_prefix / "lib" / "backends")
    yield running
    code = running.stop()
    assert code == 0, f"inferd exited with {code}:\n{running.output()}"


def test_models_from_installed_backends_are_ready(pp_server):
    client = httpclient.InferenceServerClient(pp_server.http_url)
    assert client.is_model_ready(MODEL)
    assert client.is_model_ready("simple")  # the installed onnxruntime backend loads ORT
    a = np.arange(16, dtype=np.int32).reshape(1, 16)
    inputs = [httpclient.InferInput("INPUT0", [1, 16], "INT32"),
              httpclient.InferInput("INPUT1", [1, 16], "INT32")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(a)
    np.testing.assert_array_equal(client.infer("simple", inputs).as_numpy("OUTPUT0"), a * 2)


# --- test images and the reference ---------------------------------------------

def make_image(width, height, seed):
    """A smooth gradient with some noise: enough structure for the resize to matter."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    rgb = np.stack([x * 255.0 / max(width - 1, 1), y * 255.0 / max(height - 1, 1),
                    (x + y) * 127.0 / max(width + height - 2, 1)], axis=-1)
    rgb += rng.normal(0, 12, rgb.shape)
    return np.clip(rgb, 0, 255).astype(np.uint8)


def encode(pixels, fmt):
    buffer = io.BytesIO()
    options = {"quality": 95} if fmt == "JPEG" else {}
    Image.fromarray(pixels, "RGB").save(buffer, format=fmt, **options)
    return buffer.getvalue()


def decoded(data):
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def taps(size_in, size_out):
    src = (np.arange(size_out) + 0.5) * (size_in / size_out) - 0.5
    src = np.clip(src, 0, size_in - 1)
    lo = np.floor(src).astype(np.int64)
    hi = np.minimum(lo + 1, size_in - 1)
    return lo, hi, (src - lo).astype(np.float32)


def reference(pixels, height=HEIGHT, width=WIDTH, mean=0.5, std=0.5, bgr=False):
    """Bilinear resize with half-pixel centres (OpenCV's INTER_LINEAR, no
    anti-aliasing), then (x / 255 - mean) / std, as CHW float32."""
    img = pixels.astype(np.float32)
    if bgr:
        img = img[..., ::-1]
    y0, y1, wy = taps(img.shape[0], height)
    x0, x1, wx = taps(img.shape[1], width)
    wx = wx[None, :, None]
    top = img[y0][:, x0] + (img[y0][:, x1] - img[y0][:, x0]) * wx
    bottom = img[y1][:, x0] + (img[y1][:, x1] - img[y1][:, x0]) * wx
    resized = top + (bottom - top) * wy[:, None, None]
    mean, std = np.asarray(mean, np.float32), np.asarray(std, np.float32)
    return ((resized / 255.0 - mean) / std).transpose(2, 0, 1).astype(np.float32)


PNG_PIXELS = make_image(101, 37, seed=1)  # upscaled vertically, downscaled horizontally
PNG_BYTES = encode(PNG_PIXELS, "PNG")
JPEG_PIXELS = make_image(320, 96, seed=2)
JPEG_BYTES = encode(JPEG_PIXELS, "JPEG")
# PNG is lossless: our decode equals Pillow's. JPEG decoders may round
# differently (IDCT, chroma upsampling): allow 2/255 after normalization.
PNG_TOLERANCE = 1e-5
JPEG_TOLERANCE = 2.0 / 255.0 / 0.5


def image_tensor(images):
    return np.array([[data] for data in images], dtype=np.object_)


def infer_http(pp_server, images, model=MODEL):
    client = httpclient.InferenceServerClient(pp_server.http_url)
    batch = image_tensor(images) if model == MODEL else np.array(images, dtype=np.object_)
    inp = httpclient.InferInput("IMAGE", list(batch.shape), "BYTES")
    inp.set_data_from_numpy(batch, binary_data=True)
    out = httpclient.InferRequestedOutput("PIXELS", binary_data=True)
    return client.infer(model, [inp], outputs=[out]).as_numpy("PIXELS")


def infer_grpc(pp_server, images, model=MODEL):
    client = grpcclient.InferenceServerClient(pp_server.grpc_url)
    batch = image_tensor(images) if model == MODEL else np.array(images, dtype=np.object_)
    inp = grpcclient.InferInput("IMAGE", list(batch.shape), "BYTES")
    inp.set_data_from_numpy(batch)
    return client.infer(model, [inp]).as_numpy("PIXELS")


PROTOCOLS = {"http": infer_http, "grpc": infer_grpc}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_png_matches_reference(pp_server, protocol):
    result = PROTOCOLS[protocol](pp_server, [PNG_BYTES])
    assert result.dtype == np.float32
    assert result.shape == (1, 3, HEIGHT, WIDTH)
    np.testing.assert_allclose(result[0], reference(PNG_PIXELS), rtol=0, atol=PNG_TOLERANCE)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_jpeg_matches_reference(pp_server, protocol):
    result = PROTOCOLS[protocol](pp_server, [JPEG_BYTES])
    assert result.shape == (1, 3, HEIGHT, WIDTH)
    np.testing.assert_allclose(result[0], reference(decoded(JPEG_BYTES)), rtol=0,
                               atol=JPEG_TOLERANCE)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_unbatched_model_with_parameters(pp_server, protocol):
    result = PROTOCOLS[protocol](pp_server, [PNG_BYTES], model=UNBATCHED)
    assert result.shape == (3, 32, 100)  # no batch dimension
    want = reference(PNG_PIXELS, 32, 100, mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225],
                     bgr=True)
    np.testing.assert_allclose(result, want, rtol=0, atol=1e-5)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_batch_of_mixed_images(pp_server, protocol):
    grey = encode(np.repeat(make_image(30, 60, seed=3)[..., :1], 3, axis=2), "PNG")
    images = [JPEG_BYTES, PNG_BYTES, grey]
    result = PROTOCOLS[protocol](pp_server, images)
    assert result.shape == (3, 3, HEIGHT, WIDTH)
    np.testing.assert_allclose(result[0], reference(decoded(JPEG_BYTES)), rtol=0,
                               atol=JPEG_TOLERANCE)
    np.testing.assert_allclose(result[1], reference(PNG_PIXELS), rtol=0, atol=PNG_TOLERANCE)
    np.testing.assert_allclose(result[2], reference(decoded(grey)), rtol=0, atol=PNG_TOLERANCE)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("data", [b"not an image at all", PNG_BYTES[:60], JPEG_BYTES[:200],
                                  JPEG_BYTES[:len(JPEG_BYTES) // 2], b""],
                         ids=["garbage", "truncated-png", "truncated-jpeg-header",
                              "truncated-jpeg-scan", "empty"])
def test_undecodable_bytes_are_an_error_and_the_server_stays_up(pp_server, protocol, data):
    with pytest.raises(InferenceServerException) as error:
        PROTOCOLS[protocol](pp_server, [data])
    assert "image_preprocess" in str(error.value)
    if protocol == "http":
        assert "400" in str(error.value.status()) or "Bad Request" in str(error.value)
    else:
        assert "INVALID_ARGUMENT" in str(error.value.status())
    assert pp_server.alive()
    ready = requests.get(f"http://{pp_server.http_url}/v2/health/ready", timeout=5)
    assert ready.status_code == 200
    # The next request is served as usual.
    assert PROTOCOLS[protocol](pp_server, [PNG_BYTES]).shape == (1, 3, HEIGHT, WIDTH)


# --- a backend calling another model (ABI 1.3) -----------------------------------

def infer_direction(url, protocol, images, outputs=(PROBS, TENSOR), model=DIRECTION):
    """{output: array} of `model` for `images`, over HTTP or gRPC."""
    batch = image_tensor(images)
    if protocol == "http":
        client = httpclient.InferenceServerClient(url)
        inp = httpclient.InferInput("IMAGE", list(batch.shape), "BYTES")
        inp.set_data_from_numpy(batch, binary_data=True)
        wanted = [httpclient.InferRequestedOutput(name, binary_data=True) for name in outputs]
    else:
        client = grpcclient.InferenceServerClient(url)
        inp = grpcclient.InferInput("IMAGE", list(batch.shape), "BYTES")
        inp.set_data_from_numpy(batch)
        wanted = [grpcclient.InferRequestedOutput(name) for name in outputs]
    result = client.infer(model, [inp], outputs=wanted)
    return {name: result.as_numpy(name) for name in outputs}


def infer_target(url, tensor):
    """ocr_cls called directly with `tensor`, over HTTP."""
    client = httpclient.InferenceServerClient(url)
    inp = httpclient.InferInput(TENSOR, list(tensor.shape), "FP32")
    inp.set_data_from_numpy(tensor, binary_data=True)
    return client.infer(TARGET, [inp]).as_numpy(PROBS)


def target_successes(url):
    """ocr_cls's (successful requests, batch rows inferred) so far."""
    stats = httpclient.InferenceServerClient(url).get_inference_statistics(TARGET)
    (model,) = stats["model_stats"]
    return int(model["inference_stats"]["success"]["count"]), int(model["inference_count"])


def upside_down(data):
    return encode(np.ascontiguousarray(decoded(data)[::-1, ::-1]), "PNG")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_calling_model_returns_the_next_models_outputs(pp_server, protocol):
    images = [PNG_BYTES, JPEG_BYTES, upside_down(PNG_BYTES)]
    got = infer_direction(pp_server.http_url if protocol == "http" else pp_server.grpc_url,
                          protocol, images)
    assert got[TENSOR].shape == (3, 3, HEIGHT, WIDTH)
    np.testing.assert_allclose(got[TENSOR][0], reference(PNG_PIXELS), rtol=0, atol=PNG_TOLERANCE)
    assert got[PROBS].dtype == np.float32
    assert got[PROBS].shape == (3, 2)
    # What ocr_cls gives for the same tensor, sent by a client: the same
    # bytes, since it also runs as one batch of these 3 rows (nothing else is
    # in flight).
    direct = infer_target(pp_server.http_url, got[TENSOR])
    np.testing.assert_array_equal(got[PROBS], direct)
    np.testing.assert_allclose(got[PROBS].sum(axis=1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_calling_model_returns_only_what_the_client_asks_for(pp_server, protocol):
    url = pp_server.http_url if protocol == "http" else pp_server.grpc_url
    before = target_successes(pp_server.http_url)
    probs = infer_direction(url, protocol, [PNG_BYTES], outputs=[PROBS])[PROBS]
    assert target_successes(pp_server.http_url)[0] == before[0] + 1
    want = infer_target(pp_server.http_url, reference(PNG_PIXELS)[None])
    np.testing.assert_allclose(probs, want, rtol=1e-4, atol=1e-5)
    # Only the tensor: the next model is not called.
    before = target_successes(pp_server.http_url)
    tensor = infer_direction(url, protocol, [PNG_BYTES], outputs=[TENSOR])[TENSOR]
    np.testing.assert_allclose(tensor[0], reference(PNG_PIXELS), rtol=0, atol=PNG_TOLERANCE)
    assert target_successes(pp_server.http_url) == before


def test_next_models_statistics_count_the_backends_calls(pp_server):
    before = target_successes(pp_server.http_url)
    infer_direction(pp_server.http_url, "http", [PNG_BYTES])
    infer_direction(pp_server.grpc_url, "grpc", [PNG_BYTES, JPEG_BYTES])
    requests_done, rows = target_successes(pp_server.http_url)
    assert requests_done - before[0] == 2
    assert rows - before[1] == 3
    # The calling model's own statistics count its requests as usual.
    stats = httpclient.InferenceServerClient(pp_server.http_url).get_inference_statistics(DIRECTION)
    assert int(stats["model_stats"][0]["inference_stats"]["success"]["count"]) >= 2


def test_concurrent_calls_are_answered_from_the_completion(pp_server):
    """Execute returns before ocr_cls answers: many requests in flight at once,
    over both protocols, each with its own image, all answered correctly."""
    images = [encode(make_image(60 + i, 20 + i, seed=10 + i), "PNG") for i in range(24)]
    tensors = np.stack([reference(decoded(data)) for data in images])
    # In batches ocr_cls takes (max_batch_size 4).
    want = np.concatenate([infer_target(pp_server.http_url, tensors[i:i + 4])
                           for i in range(0, len(images), 4)])

    def one(i):
        protocol = "http" if i % 2 == 0 else "grpc"
        url = pp_server.http_url if protocol == "http" else pp_server.grpc_url
        return infer_direction(url, protocol, [images[i]], outputs=[PROBS])[PROBS][0]

    with ThreadPoolExecutor(max_workers=12) as pool:
        got = np.stack(list(pool.map(one, range(len(images)))))
    # ocr_cls batches them with each other differently from the one batch of
    # `want`: equal up to float rounding.
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("model", FAILING_CALLS)
def test_a_failing_next_model_is_a_clear_error(pp_server, protocol, model):
    _, named, http_status, grpc_status = FAILING_CALLS[model]
    url = pp_server.http_url if protocol == "http" else pp_server.grpc_url
    with pytest.raises(InferenceServerException) as error:
        infer_direction(url, protocol, [PNG_BYTES], outputs=[PROBS], model=model)
    message = str(error.value)
    assert f"image_preprocess model '{model}'" in message
    assert named in message
    if protocol == "http":
        assert str(http_status) in str(error.value.status())
    else:
        assert grpc_status in str(error.value.status())
    assert pp_server.alive()
    # The server, and the calling backend's other models, keep serving.
    assert infer_direction(url, protocol, [PNG_BYTES], outputs=[PROBS])[PROBS].shape == (1, 2)


@pytest.fixture
def explicit_server(installed_prefix, make_server, tmp_path):
    """text_direction and ocr_cls, loaded and unloaded by the test."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / TARGET).symlink_to(EXAMPLES / TARGET)
    target_model_file()
    add_model(repo, BAD_CONFIG, BAD_CONFIG_TEXT)
    return make_server([EXAMPLE / "models", repo], "--model-control-mode", "explicit",
                       "--load-model", DIRECTION, "--load-model", TARGET,
                       backends=installed_prefix / "lib" / "backends")


def test_next_model_without_its_input_does_not_load(explicit_server):
    client = httpclient.InferenceServerClient(explicit_server.http_url)
    with pytest.raises(InferenceServerException) as error:
        client.load_model(BAD_CONFIG)
    assert "next_model_input" in str(error.value)
    index = requests.post(f"http://{explicit_server.http_url}/v2/repository/index", json={},
                          timeout=5).json()
    (entry,) = [e for e in index if e["name"] == BAD_CONFIG]
    assert entry["state"] == "UNAVAILABLE"
    assert "next_model_input" in entry["reason"]


def test_unloaded_next_model_is_a_clear_error_until_it_is_back(explicit_server):
    server = explicit_server
    client = httpclient.InferenceServerClient(server.http_url)
    assert infer_direction(server.http_url, "http", [PNG_BYTES], outputs=[PROBS])[PROBS].shape \
        == (1, 2)
    client.unload_model(TARGET)
    for protocol, url in [("http", server.http_url), ("grpc", server.grpc_url)]:
        with pytest.raises(InferenceServerException) as error:
            infer_direction(url, protocol, [PNG_BYTES], outputs=[PROBS])
        assert f"next_model '{TARGET}'" in str(error.value)
        assert ("503" if protocol == "http" else "UNAVAILABLE") in str(error.value.status())
    client.load_model(TARGET)
    assert infer_direction(server.grpc_url, "grpc", [PNG_BYTES], outputs=[PROBS])[PROBS].shape \
        == (1, 2)
    assert server.stop() == 0, server.output()
