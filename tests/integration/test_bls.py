# SPDX-License-Identifier: Apache-2.0
"""BLS end to end: Python models (tests/integration/bls_models) that call
other models of the real server with InferenceRequest.exec() and
async_exec(), as Triton's do, through tritonclient HTTP and gRPC.

The calls take the server's public path (the target's own queue, batching
and statistics); their tensors cross the worker's shared region or travel
inline; their errors, timeouts and the client's deadline or cancellation
reach the Python code as error responses; a worker killed with calls
outstanding fails only its own requests.
"""
import os
import pathlib
import shutil
import signal
import threading
import time

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException, np_to_triton_dtype

from conftest import EXAMPLES

MODELS = pathlib.Path(__file__).resolve().parent / "bls_models"


def repository(tmp_path, *names, slow=None, **copies):
    """A repository with `simple`, the named bls_models, a `slow` copy of
    py_add_sub that sleeps `slow` ms, and copies[new] = (model, parameters)."""
    repo = tmp_path / "models"
    repo.mkdir()
    shutil.copytree(EXAMPLES / "simple", repo / "simple")
    for name in names:
        shutil.copytree(MODELS / name, repo / name)
    if slow is not None:
        copies["slow"] = ("py_add_sub", {"sleep_ms": str(slow)})
    for new, (model, parameters) in copies.items():
        shutil.copytree(MODELS / model, repo / new)
        config = repo / new / "config.pbtxt"
        text = config.read_text().replace(f'name: "{model}"', f'name: "{new}"')
        for key, value in parameters.items():
            if f'key: "{key}"' in text:
                text = text.replace(f'key: "{key}" value: {{ string_value: "0" }}',
                                    f'key: "{key}" value: {{ string_value: "{value}" }}')
            else:
                text += f'parameters {{ key: "{key}" value: {{ string_value: "{value}" }} }}\n'
        config.write_text(text)
    return repo


class Client:
    """One protocol's client, with numpy in and out."""

    def __init__(self, server, protocol):
        self.protocol = protocol
        self.module = httpclient if protocol == "http" else grpcclient
        url = server.http_url if protocol == "http" else server.grpc_url
        self.client = self.module.InferenceServerClient(url, **({"network_timeout": 120.0}
                                                                if protocol == "http" else {}))

    def tensor(self, name, array):
        tensor = self.module.InferInput(name, list(array.shape), np_to_triton_dtype(array.dtype))
        if self.protocol == "http":
            tensor.set_data_from_numpy(array, binary_data=True)
        else:
            tensor.set_data_from_numpy(array)
        return tensor

    def infer(self, model, inputs, outputs, **kwargs):
        result = self.client.infer(model, [self.tensor(n, a) for n, a in inputs.items()],
                                   outputs=[self.module.InferRequestedOutput(o) for o in outputs], **kwargs)
        return {o: result.as_numpy(o) for o in outputs}

    def drive(self, mode, target, outputs=("OUTPUT0", "OUTPUT1", "INFO"), model="bls_driver", options=None,
              **inputs):
        """bls_driver (or a copy) in `mode` against `target`; `options` go
        to tritonclient's infer (client_timeout)."""
        arrays = {"MODE": np.array([mode.encode()], dtype=np.object_),
                  "TARGET": np.array([target.encode()], dtype=np.object_)}
        arrays.update(inputs)
        return self.infer(model, arrays, outputs, **(options or {}))

    def stats(self, model):
        if self.protocol == "http":
            (stat,) = self.client.get_inference_statistics(model)["model_stats"]
            return {k: int(v["count"]) for k, v in stat["inference_stats"].items()} | {
                "executions": int(stat["execution_count"])}
        (stat,) = self.client.get_inference_statistics(model).model_stats
        return {"success": stat.inference_stats.success.count, "fail": stat.inference_stats.fail.count,
                "executions": stat.execution_count}


def info(result):
    return [v.decode() for v in result["INFO"]]


def pair(rows=1, width=16, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(-1000, 1000, (rows, width), dtype=np.int32),
            rng.integers(-1000, 1000, (rows, width), dtype=np.int32))


def alive(server):
    return requests.get(f"http://{server.http_url}/v2/health/ready", timeout=10).status_code == 200


PROTOCOLS = ["http", "grpc"]


@pytest.fixture(scope="module")
def bls_server(tmp_path_factory):
    """One server for the tests that do not break anything."""
    from conftest import RunningServer
    tmp = tmp_path_factory.mktemp("bls")
    repo = repository(tmp, "bls_driver", "py_add_sub", "chain", "text_reverse", slow=1000,
                      bls_driver_none=("bls_driver", {"shared_memory": "none"}))
    running = RunningServer([repo], [], tmp / "server.log")
    yield running
    assert running.stop() == 0, running.output()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_sync_and_async_calls_to_onnx_simple(bls_server, protocol):
    client = Client(bls_server, protocol)
    a, b = pair()
    result = client.drive("sync", "simple", INPUT0=a, INPUT1=b)
    np.testing.assert_array_equal(result["OUTPUT0"], a + b)
    np.testing.assert_array_equal(result["OUTPUT1"], a - b)
    # Eight calls outstanding at once, one per row (simple batches up to 8).
    a, b = pair(rows=8, seed=1)
    result = client.drive("async", "simple", outputs=("OUTPUT0", "OUTPUT1"), INPUT0=a, INPUT1=b)
    np.testing.assert_array_equal(result["OUTPUT0"], a + b)
    np.testing.assert_array_equal(result["OUTPUT1"], a - b)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_concurrent_clients_each_get_their_own_answer(bls_server, protocol):
    errors = []

    def run(seed):
        client = Client(bls_server, protocol)
        try:
            for round_ in range(5):
                a, b = pair(rows=1 + (seed + round_) % 4, seed=seed * 10 + round_)
                mode = "async" if (seed + round_) % 2 else "sync"
                result = client.drive(mode, "simple", outputs=("OUTPUT0", "OUTPUT1"), INPUT0=a, INPUT1=b)
                np.testing.assert_array_equal(result["OUTPUT0"], a + b)
                np.testing.assert_array_equal(result["OUTPUT1"], a - b)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_chain_through_a_python_model(bls_server, protocol):
    client = Client(bls_server, protocol)
    a, b = pair(seed=2)
    result = client.drive("sync", "chain", INPUT0=a, INPUT1=b)  # bls_driver -> chain -> simple
    np.testing.assert_array_equal(result["OUTPUT0"], 2 * (a + b))
    np.testing.assert_array_equal(result["OUTPUT1"], 2 * (a - b))


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_missing_model_is_an_error_response_the_client_sees(bls_server, protocol):
    client = Client(bls_server, protocol)
    a, b = pair()
    with pytest.raises(InferenceServerException) as raised:
        client.drive("error", "no_such_model", INPUT0=a, INPUT1=b)
    message = raised.value.message()
    assert message.startswith("BLS call failed: ") and "no_such_model" in message, message
    assert raised.value.status() == ("404" if protocol == "http" else "StatusCode.NOT_FOUND")
    # Bad inputs for the target: the server's validation message.
    with pytest.raises(InferenceServerException) as raised:
        client.drive("error", "simple", INPUT0=np.zeros((1, 3), np.int32), INPUT1=np.zeros((1, 3), np.int32))
    assert "BLS call failed: " in raised.value.message() and "INPUT0" in raised.value.message()
    assert raised.value.status() == ("400" if protocol == "http" else "StatusCode.INVALID_ARGUMENT")
    # The worker went on.
    a, b = pair(seed=3)
    np.testing.assert_array_equal(client.drive("sync", "simple", INPUT0=a, INPUT1=b)["OUTPUT0"], a + b)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_bytes_through_bls(bls_server, protocol):
    client = Client(bls_server, protocol)
    text = np.array([b"hello", b"", "h\u00e9llo \u2603".encode(), b"x" * 5000], dtype=np.object_)
    result = client.drive("bytes", "text_reverse", outputs=("TEXT_OUT",), TEXT=text)
    assert result["TEXT_OUT"].tolist() == [value[::-1] for value in text]


def test_large_tensors_through_the_region_and_inline(bls_server):
    """4 MiB inputs and outputs: the region grows until the BLS outputs live
    in it; with shared_memory "none" every BLS tensor travels inline."""
    client = Client(bls_server, "http")
    a, b = pair(width=2**20, seed=4)  # [1, 1 Mi] INT32: 4 MiB each
    seen = []
    for _ in range(4):
        result = client.drive("sync", "py_add_sub", INPUT0=a, INPUT1=b)
        np.testing.assert_array_equal(result["OUTPUT0"], a + b)
        np.testing.assert_array_equal(result["OUTPUT1"], a - b)
        seen.append(info(result))
    assert seen[-1] == ["mmap", "mmap"], seen
    for _ in range(2):
        result = client.drive("sync", "py_add_sub", model="bls_driver_none", INPUT0=a, INPUT1=b)
        np.testing.assert_array_equal(result["OUTPUT0"], a + b)
        np.testing.assert_array_equal(result["OUTPUT1"], a - b)
        assert info(result) == ["bytearray", "bytearray"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_statistics_of_the_target_count_bls_calls(bls_server, protocol):
    client = Client(bls_server, protocol)
    before_simple, before_driver = client.stats("simple"), client.stats("bls_driver")
    a, b = pair(rows=3)
    for _ in range(5):
        client.drive("sync", "simple", INPUT0=a, INPUT1=b)
    client.drive("async", "simple", outputs=("OUTPUT0",), INPUT0=a, INPUT1=b)  # 3 calls
    after_simple, after_driver = client.stats("simple"), client.stats("bls_driver")
    assert after_driver["success"] - before_driver["success"] == 6
    assert after_simple["success"] - before_simple["success"] == 8
    assert after_simple["fail"] == before_simple["fail"]
    assert after_simple["executions"] > before_simple["executions"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_timeout_answers_python_while_the_target_still_runs(bls_server, protocol):
    """slow takes 1 s; a 200 ms BLS timeout answers the Python model
    DEADLINE_EXCEEDED at 200 ms, the client gets the model's answer, and
    the worker serves the next request (the late response is dropped)."""
    client = Client(bls_server, protocol)
    a, b = pair()
    started = time.monotonic()
    result = client.drive("timeout", "slow", outputs=("INFO",), INPUT0=a, INPUT1=b,
                          TIMEOUT_US=np.array([200000], dtype=np.int64))
    took = time.monotonic() - started
    code, message = info(result)
    assert code == "8", (code, message)  # DEADLINE_EXCEEDED
    assert "slow" in message and "timed out" in message, message
    assert took < 0.9, took
    a, b = pair(seed=5)
    np.testing.assert_array_equal(client.drive("sync", "simple", INPUT0=a, INPUT1=b)["OUTPUT0"], a + b)
    # Long enough for slow to finish and its late responses to be dropped.
    time.sleep(1.2)
    assert alive(bls_server)
    np.testing.assert_array_equal(client.drive("sync", "slow", INPUT0=a, INPUT1=b)["OUTPUT1"], a - b)


def gauge(server, name, model):
    """A per-model gauge of /metrics (0 when absent)."""
    text = requests.get(f"http://{server.metrics_url}/metrics", timeout=10).text
    prefix = f'{name}{{model="{model}",version="1"}} '
    for line in text.splitlines():
        if line.startswith(prefix):
            return float(line.split()[-1])
    return 0.0


def wait_for(predicate, what, timeout=30):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def hold(server, model):
    """Keeps `model` (slow, one instance) busy with a direct request: once
    it is the only one in flight and none is queued, it is executing."""
    a, b = pair()
    thread = threading.Thread(target=lambda: Client(server, "http").infer(
        model, {"INPUT0": a, "INPUT1": b}, ["OUTPUT0"]))
    thread.start()
    wait_for(lambda: gauge(server, "inferd_inference_pending_requests", model) == 1
             and gauge(server, "inferd_inference_queue_size", model) == 0, f"{model} to execute")
    return thread


def test_grpc_deadline_reaches_the_queued_bls_call(bls_server):
    """The BLS call inherits the client's deadline: queued behind a busy
    slow, it leaves slow's queue when the deadline passes and is never
    executed; the Python model sees the error."""
    client = Client(bls_server, "grpc")
    before = client.stats("slow")
    held = hold(bls_server, "slow")
    a, b = pair()
    with pytest.raises(InferenceServerException) as raised:
        client.drive("record", "slow", outputs=("INFO",), options={"client_timeout": 0.3}, INPUT0=a, INPUT1=b)
    assert "DEADLINE_EXCEEDED" in raised.value.status()
    held.join()
    report = info(client.drive("report", "", outputs=("INFO",)))
    # gRPC ends the call at its deadline, which the server sees as the
    # client going away (as test_cancellation.py shows): either way, the
    # deadline reached the BLS call.
    assert "deadline" in report[0].lower() or "cancelled by the client" in report[0], report
    after = client.stats("slow")
    assert after["executions"] - before["executions"] == 1  # only the held request ran
    assert after["fail"] - before["fail"] == 1


def test_grpc_cancellation_reaches_the_queued_bls_call(bls_server):
    client = Client(bls_server, "grpc")
    before = client.stats("slow")
    held = hold(bls_server, "slow")
    a, b = pair()
    inputs = {"MODE": np.array([b"record"], dtype=np.object_), "TARGET": np.array([b"slow"], dtype=np.object_),
              "INPUT0": a, "INPUT1": b}
    answers = []
    call = client.client.async_infer("bls_driver", [client.tensor(n, v) for n, v in inputs.items()],
                                     callback=lambda result, error: answers.append(error))
    wait_for(lambda: gauge(bls_server, "inferd_inference_queue_size", "slow") == 1, "the BLS call to queue")
    call.cancel()
    held.join()
    report = info(client.drive("report", "", outputs=("INFO",)))
    assert "cancel" in report[0].lower(), report
    after = client.stats("slow")
    assert after["executions"] - before["executions"] == 1
    assert after["fail"] - before["fail"] == 1


def test_kill_9_with_bls_calls_outstanding(make_server, tmp_path):
    server = make_server(repository(tmp_path, "bls_driver", "py_add_sub", slow=300))
    client = Client(server, "http")
    pid = int(info(client.drive("pid", "", outputs=("INFO",)))[0])
    a, b = pair(rows=4)
    failure = []

    def outstanding():
        try:
            client_ = Client(server, "grpc")
            client_.drive("async", "slow", outputs=("OUTPUT0",), INPUT0=a, INPUT1=b)
            failure.append(None)
        except InferenceServerException as error:
            failure.append(error.message())

    thread = threading.Thread(target=outstanding)
    thread.start()
    # All four calls reached slow, which runs one at a time (300 ms each).
    wait_for(lambda: gauge(server, "inferd_inference_pending_requests", "slow") == 4, "the BLS calls")
    os.kill(pid, signal.SIGKILL)
    thread.join()
    assert failure and failure[0] is not None and f"(pid {pid}) was killed by signal 9" in failure[0], failure
    # The server stays up and a new worker serves, while slow is still
    # working through the dead worker's calls.
    assert alive(server)
    a1, b1 = pair(seed=6)
    np.testing.assert_array_equal(client.drive("sync", "simple", INPUT0=a1, INPUT1=b1)["OUTPUT0"], a1 + b1)
    assert int(info(client.drive("pid", "", outputs=("INFO",)))[0]) != pid
    time.sleep(1.5)  # the late completions arrive and are dropped
    np.testing.assert_array_equal(client.drive("async", "slow", outputs=("OUTPUT0", "OUTPUT1"),
                                               INPUT0=a1, INPUT1=b1)["OUTPUT1"], a1 - b1)
    assert server.alive()


def test_calling_itself_waits_until_the_execute_timeout(make_server, tmp_path):
    """One instance calling itself waits for itself (as in Triton); the
    execute timeout ends it and the model serves again."""
    repo = repository(tmp_path, bls_self=("bls_driver", {"execute_timeout_seconds": "2"}))
    server = make_server(repo)
    client = Client(server, "http")
    started = time.monotonic()
    with pytest.raises(InferenceServerException) as raised:
        client.drive("self", "", outputs=("INFO",), model="bls_self")
    assert "execute_timeout_seconds (2" in raised.value.message()
    assert 1.5 < time.monotonic() - started < 20
    assert info(client.drive("pid", "", outputs=("INFO",), model="bls_self"))[0].isdigit()


def test_bls_in_initialize(make_server, tmp_path):
    repo = repository(tmp_path, "bls_init")
    server = make_server(repo, "--model-control-mode", "explicit", "--load-model", "simple")
    client = Client(server, "http")
    client.client.load_model("bls_init")
    result = client.infer("bls_init", {"DUMMY": np.zeros(1, np.int32)}, ["OUTPUT0"])
    x = np.arange(16, dtype=np.int32).reshape(1, 16)
    np.testing.assert_array_equal(result["OUTPUT0"], 2 * x)
