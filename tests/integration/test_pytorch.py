# SPDX-License-Identifier: Apache-2.0
"""The LibTorch backend (src/backends/pytorch) through the real binary and
tritonclient HTTP and gRPC: TorchScript models made at test time by Debian's
python3-torch (make_torch_models.py, run with /usr/bin/python3), outputs equal
to what the same scripted module gives in python3-torch, tuple/list/dict
outputs, binding by forward() argument names, dict input, every data type the
test clients send (BF16 as ml_dtypes.bfloat16), dynamic batching, the
intra-op thread count each model runs with, and a file LibTorch cannot load.

Skipped when the backend was not built (no libtorch-dev) or /usr/bin/python3
cannot import torch (no python3-torch); scripts/setup.sh installs both.
"""
import concurrent.futures
import subprocess
import threading

import ml_dtypes
import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from conftest import BACKENDS, ROOT, RunningServer
from scheduling_util import batch_sizes, model_stats

SYSTEM_PYTHON = "/usr/bin/python3"


def _torch_importable():
    try:
        return subprocess.run([SYSTEM_PYTHON, "-c", "import torch"], capture_output=True,
                              timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


if not (BACKENDS / "pytorch").is_dir():
    pytest.skip(f"the pytorch backend is not built ({BACKENDS / 'pytorch'} is missing)",
                allow_module_level=True)
if not _torch_importable():
    pytest.skip(f"{SYSTEM_PYTHON} cannot import torch (python3-torch)", allow_module_level=True)

PROTOCOLS = ["http", "grpc"]


@pytest.fixture(scope="module")
def torch_models(tmp_path_factory):
    out = tmp_path_factory.mktemp("torch")
    subprocess.run([SYSTEM_PYTHON, str(ROOT / "tests" / "integration" / "make_torch_models.py"),
                    str(out)], check=True, timeout=300)
    return out


@pytest.fixture(scope="module")
def torch_server(torch_models, tmp_path_factory):
    log = tmp_path_factory.mktemp("torch_server") / "server.log"
    running = RunningServer([torch_models / "models"], [], log)
    yield running
    code = running.stop()
    assert code == 0, f"inferd exited with {code}:\n{running.output()}"


def expected(torch_models, model, name):
    return np.load(torch_models / "expected" / model / f"{name}.npy")


def client_for(server, protocol):
    if protocol == "http":
        return httpclient, httpclient.InferenceServerClient(server.http_url, network_timeout=120)
    return grpcclient, grpcclient.InferenceServerClient(server.grpc_url)


def infer(server, protocol, model, inputs, outputs=None):
    """inputs: {name: array}; returns {output name: array} for `outputs`
    (every output the server returns when None)."""
    module, client = client_for(server, protocol)
    with client:
        infer_inputs = []
        for name, value in inputs.items():
            datatype = "BOOL" if value.dtype == np.bool_ else None
            tensor = module.InferInput(name, list(value.shape),
                                       datatype or _datatype(value.dtype))
            tensor.set_data_from_numpy(value)
            infer_inputs.append(tensor)
        requested = ([module.InferRequestedOutput(name) for name in outputs]
                     if outputs is not None else None)
        result = client.infer(model, infer_inputs, outputs=requested)
        if outputs is None:
            response = result.get_response()
            if protocol == "http":
                outputs = [o["name"] for o in response["outputs"]]
            else:
                outputs = [o.name for o in response.outputs]
        return {name: result.as_numpy(name) for name in outputs}


def _datatype(dtype):
    return {np.uint8: "UINT8", np.int8: "INT8", np.int16: "INT16", np.int32: "INT32",
            np.int64: "INT64", np.float16: "FP16", np.float32: "FP32",
            np.float64: "FP64", ml_dtypes.bfloat16: "BF16"}[np.dtype(dtype).type]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_add_sub_tuple_outputs_match_python3_torch(torch_server, torch_models, protocol):
    inputs = {n: expected(torch_models, "add_sub", n) for n in ["INPUT__0", "INPUT__1"]}
    outputs = infer(torch_server, protocol, "add_sub", inputs)
    assert sorted(outputs) == ["OUTPUT__0", "OUTPUT__1"]
    for name, value in outputs.items():
        np.testing.assert_array_equal(value, expected(torch_models, "add_sub", name))
        assert value.shape == (16,)


def test_two_instances_serve_concurrently(torch_server, torch_models):
    inputs = {n: expected(torch_models, "add_sub", n) for n in ["INPUT__0", "INPUT__1"]}
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(infer, torch_server, PROTOCOLS[i % 2], "add_sub", inputs)
                   for i in range(32)]
        for future in futures:
            outputs = future.result(timeout=120)
            np.testing.assert_array_equal(outputs["OUTPUT__0"],
                                          expected(torch_models, "add_sub", "OUTPUT__0"))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_only_the_requested_output_is_returned(torch_server, torch_models, protocol):
    inputs = {n: expected(torch_models, "add_sub", n) for n in ["INPUT__0", "INPUT__1"]}
    outputs = infer(torch_server, protocol, "add_sub", inputs, ["OUTPUT__1"])
    np.testing.assert_array_equal(outputs["OUTPUT__1"],
                                  expected(torch_models, "add_sub", "OUTPUT__1"))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_inputs_bind_by_forward_argument_names(torch_server, torch_models, protocol):
    # The config lists y before x; forward(self, x, y) computes x - 2 * y.
    inputs = {n: expected(torch_models, "named", n) for n in ["x", "y"]}
    outputs = infer(torch_server, protocol, "named", inputs)
    np.testing.assert_array_equal(outputs["out"], expected(torch_models, "named", "out"))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_dict_output_binds_by_key(torch_server, torch_models, protocol):
    inputs = {"INPUT__0": expected(torch_models, "dict_out", "INPUT__0")}
    outputs = infer(torch_server, protocol, "dict_out", inputs)
    for name in ["doubled", "negated"]:
        np.testing.assert_array_equal(outputs[name], expected(torch_models, "dict_out", name))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_dict_input_binds_by_key(torch_server, torch_models, protocol):
    inputs = {n: expected(torch_models, "dict_in", n) for n in ["a", "b"]}
    outputs = infer(torch_server, protocol, "dict_in", inputs)
    np.testing.assert_array_equal(outputs["OUTPUT__0"],
                                  expected(torch_models, "dict_in", "OUTPUT__0"))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_int64_list_outputs(torch_server, torch_models, protocol):
    inputs = {"INPUT__0": expected(torch_models, "int64", "INPUT__0")}
    outputs = infer(torch_server, protocol, "int64", inputs)
    for name in ["OUTPUT__0", "OUTPUT__1"]:
        want = expected(torch_models, "int64", name)
        assert outputs[name].dtype == np.int64
        np.testing.assert_array_equal(outputs[name], want)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_data_type(torch_server, torch_models, protocol):
    inputs = {f"INPUT__{i}": expected(torch_models, "types", f"INPUT__{i}") for i in range(9)}
    outputs = infer(torch_server, protocol, "types", inputs)
    for i in range(9):
        want = expected(torch_models, "types", f"OUTPUT__{i}")
        assert outputs[f"OUTPUT__{i}"].dtype == want.dtype
        np.testing.assert_array_equal(outputs[f"OUTPUT__{i}"], want)


# make_torch_models.py's BF16_VALUES: exact in bfloat16. The bf16 model returns
# them doubled (the last overflows to +inf) and widened to float32.
BF16_VALUES = [1.0, -2.5, 0.15625, 256.0, -0.0, 1.9921875, 2.0**-10, 2.0**127]
BF16_DOUBLED = [2.0, -5.0, 0.3125, 512.0, -0.0, 3.984375, 2.0**-9, np.inf]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_bf16_in_and_out(torch_server, torch_models, protocol):
    # tritonclient sends and returns BF16 as ml_dtypes.bfloat16 arrays; the
    # expected files hold python3-torch's bfloat16 bits as int16.
    sent = expected(torch_models, "bf16", "INPUT__0").view(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(sent.astype(np.float32), np.array(BF16_VALUES, np.float32))
    # Requested outputs come back as binary data over HTTP (BF16 has no JSON
    # input form, so the input is binary there too).
    outputs = infer(torch_server, protocol, "bf16", {"INPUT__0": sent}, ["OUTPUT__0", "OUTPUT__1"])
    doubled = outputs["OUTPUT__0"]
    assert doubled.dtype == ml_dtypes.bfloat16
    assert doubled.shape == (8,)
    np.testing.assert_array_equal(doubled.view(np.uint16),
                                  expected(torch_models, "bf16", "OUTPUT__0").view(np.uint16))
    np.testing.assert_array_equal(doubled.astype(np.float32), np.array(BF16_DOUBLED, np.float32))
    assert np.signbit(doubled.astype(np.float32)[4])  # -0.0 * 2 keeps its sign
    widened = outputs["OUTPUT__1"]
    assert widened.dtype == np.float32
    np.testing.assert_array_equal(widened, expected(torch_models, "bf16", "OUTPUT__1"))
    np.testing.assert_array_equal(widened, np.array(BF16_VALUES, np.float32))
    assert np.signbit(widened[4])


def threads_used(torch_models, model, output):
    """The intra-op thread count the model's forward() ran with, told by its
    output: fingerprints.npy row k-1 is the output under k threads (distinct
    rows, checked by make_torch_models.py); None when no row matches."""
    table = expected(torch_models, model, "fingerprints")
    matches = [k + 1 for k, row in enumerate(table) if np.array_equal(row, output)]
    assert len(matches) <= 1, (model, matches)
    return matches[0] if matches else None


# --cpu-cores 6: unset, a model's instances share the 6 (model_loader.cc);
# the parameter (either spelling) overrides it.
THREAD_CPU_CORES = 6
THREAD_MODELS = {"threads_unset": 6, "threads_unset_two_instances": 3, "threads_two": 2,
                 "threads_one": 1, "threads_four_triton_key": 4}


def test_intra_op_thread_count_is_applied(make_server, torch_models):
    server = make_server(torch_models / "thread_models", "--cpu-cores", str(THREAD_CPU_CORES))
    zero = {"INPUT__0": np.zeros(1, np.float32)}
    # Interleaved, twice: LibTorch keeps one process-wide count, yet each
    # model runs with its own.
    for round_ in range(2):
        for i, (model, want) in enumerate(THREAD_MODELS.items()):
            output = infer(server, PROTOCOLS[(i + round_) % 2], model, zero)["OUTPUT__0"]
            assert threads_used(torch_models, model, output) == want, model
    # Both instances of the two-instance model (concurrent requests reach the
    # second) use 6 / 2.
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(infer, server, PROTOCOLS[i % 2], "threads_unset_two_instances",
                               zero) for i in range(16)]
        for future in futures:
            output = future.result(timeout=120)["OUTPUT__0"]
            assert threads_used(torch_models, "threads_unset_two_instances", output) == 3
    assert server.alive()


def test_requests_are_batched_and_split_back(torch_server, torch_models):
    rows = expected(torch_models, "batched", "INPUT__0")
    want0 = expected(torch_models, "batched", "OUTPUT__0")
    want1 = expected(torch_models, "batched", "OUTPUT__1")
    # 1 + 3 + 2 + 2 rows fill one batch of 8 (the queue delay is 60 s).
    splits = [(0, 1), (1, 4), (4, 6), (6, 8)]
    start = threading.Barrier(len(splits))

    def run(i, first, last):
        start.wait()
        return infer(torch_server, PROTOCOLS[i % 2], "batched", {"INPUT__0": rows[first:last]})

    with concurrent.futures.ThreadPoolExecutor(len(splits)) as pool:
        futures = [pool.submit(run, i, first, last) for i, (first, last) in enumerate(splits)]
        results = [f.result(timeout=120) for f in futures]
    for (first, last), outputs in zip(splits, results):
        assert outputs["OUTPUT__0"].shape == (last - first, 3)
        np.testing.assert_allclose(outputs["OUTPUT__0"], want0[first:last], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(outputs["OUTPUT__1"], want1[first:last], rtol=1e-6, atol=1e-7)
    # One request of the whole 8 rows is a batch by itself.
    outputs = infer(torch_server, "grpc", "batched", {"INPUT__0": rows})
    np.testing.assert_allclose(outputs["OUTPUT__0"], want0, rtol=1e-6, atol=1e-7)
    stats = model_stats(torch_server, "batched")
    assert stats["inference_count"] == 16
    assert batch_sizes(stats) == {8: 2}, stats


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_exception_in_forward_is_an_error_response(torch_server, torch_models, protocol):
    with pytest.raises(Exception, match="negative input is not allowed"):
        infer(torch_server, protocol, "raises", {"INPUT__0": np.array([1, -1], np.float32)})
    assert torch_server.alive()
    # The instance keeps serving.
    outputs = infer(torch_server, protocol, "raises",
                    {"INPUT__0": expected(torch_models, "raises", "INPUT__0")})
    np.testing.assert_array_equal(outputs["OUTPUT__0"],
                                  expected(torch_models, "raises", "OUTPUT__0"))


def test_unloadable_model_is_unavailable_with_libtorch_message(torch_server):
    rows = requests.post(f"http://{torch_server.http_url}/v2/repository/index", timeout=10).json()
    states = {row["name"]: row for row in rows}
    corrupt = states["corrupt"]
    assert corrupt["state"] == "UNAVAILABLE", corrupt
    # LibTorch's own words (its zip reader refuses the file).
    assert "PytorchStreamReader" in corrupt["reason"], corrupt
    bad_threads = states["bad_threads"]
    assert bad_threads["state"] == "UNAVAILABLE", bad_threads
    assert "intra_op_thread_count" in bad_threads["reason"], bad_threads
    for name in ["add_sub", "named", "dict_out", "dict_in", "int64", "types", "bf16", "batched",
                 "raises"]:
        assert states[name]["state"] == "READY", states[name]
    assert requests.get(f"http://{torch_server.http_url}/v2/health/live",
                        timeout=10).status_code == 200
    assert torch_server.alive()
