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
"""
import io
import os
import pathlib
import shutil
import subprocess

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
    repo = tmp_path_factory.mktemp("custom_backend_repo")
    (repo / "simple").symlink_to(EXAMPLES / "simple")
    unbatched = repo / UNBATCHED
    (unbatched / "1").mkdir(parents=True)
    (unbatched / "config.pbtxt").write_text(UNBATCHED_CONFIG)
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
