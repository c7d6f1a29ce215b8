# SPDX-License-Identifier: Apache-2.0
"""Helpers for the scheduling tests (batching, queue policies, cancellation).

Models run on the test-only fake backend, which echoes each input as the
output of the same position and, through directives of its model file, can
hold Execute at a gate (a file the test creates) and log every execution
("start <instance> <v>..." on entry, "end ..." when done; v is the first INT32
of each request). That makes scheduling observable without timing: a test
waits, with a deadline, for log lines, statistics or answers, never sleeps.
"""
import pathlib
import shutil
import time

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from conftest import EXAMPLES

WAIT = 30.0  # seconds any single wait may take before the test fails


def wait_for(predicate, what, timeout=WAIT):
    """Polls `predicate` until it returns a truthy value, which is returned."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            what = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.005)


class Gate:
    """A file the fake backend waits for; open() creates it."""

    def __init__(self, path):
        self.path = pathlib.Path(path)

    def open(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.touch()


class ExecutionLog:
    """The fake backend's execution log: [(event, instance, [values])]."""

    def __init__(self, path):
        self.path = pathlib.Path(path)

    def entries(self):
        if not self.path.exists():
            return []
        out = []
        lines = self.path.read_text().split("\n")
        for line in lines[:-1]:  # the last piece is empty, or a line still being written
            event, instance, *values = line.split()
            out.append((event, int(instance), [int(v) for v in values if v != "-"]))
        return out

    def started(self):
        return [(instance, values) for event, instance, values in self.entries() if event == "start"]

    def ended(self):
        return [(instance, values) for event, instance, values in self.entries() if event == "end"]

    def executed_values(self):
        """Every value that reached Execute, in the order the executions started."""
        return [v for _, values in self.started() for v in values]

    def wait_started(self, count):
        return wait_for(lambda: len(self.started()) >= count and self.started(),
                        lambda: f"{count} executions to start (log: {self.entries()})")

    def wait_ended(self, count):
        return wait_for(lambda: len(self.ended()) >= count and self.ended(),
                        lambda: f"{count} executions to end (log: {self.entries()})")


def fake_config(name, body):
    return f'name: "{name}"\nbackend: "fake"\ndefault_model_filename: "model.fake"\n{body}\n'


def write_fake_model(repo, name, body, model_file):
    """<repo>/<name>/config.pbtxt (fake backend + `body`) and 1/model.fake."""
    folder = pathlib.Path(repo) / name
    (folder / "1").mkdir(parents=True)
    (folder / "config.pbtxt").write_text(fake_config(name, body))
    (folder / "1" / "model.fake").write_text(model_file)


def write_simple_model(repo, name, extra_config):
    """The example `simple` ONNX model (OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 =
    INPUT0 - INPUT1, INT32 [batch, 16], max_batch_size 8) with `extra_config`."""
    folder = pathlib.Path(repo) / name
    (folder / "1").mkdir(parents=True)
    shutil.copy(EXAMPLES / "simple" / "1" / "model.onnx", folder / "1" / "model.onnx")
    config = (EXAMPLES / "simple" / "config.pbtxt").read_text()
    config = config.replace('name: "simple"', f'name: "{name}"')
    (folder / "config.pbtxt").write_text(config + "\n" + extra_config + "\n")


# A fake model with one INT32 input echoed as its output. `dims` are the
# config dims (without the batch dimension when max_batch_size > 0).
def echo_io(dims="[ 1 ]"):
    return (f'input [ {{ name: "IN" data_type: TYPE_INT32 dims: {dims} }} ]\n'
            f'output [ {{ name: "OUT" data_type: TYPE_INT32 dims: {dims} }} ]')


def echo_model_file(dims="-1 1", gate=None, log=None, gate_dir=None):
    """model.fake of an echo model IN -> OUT; `dims` include the batch dimension."""
    lines = [f"input IN INT32 {dims}", f"output OUT INT32 {dims}"]
    if gate is not None:
        lines.append(f"block_until_exists {gate.path}")
    if gate_dir is not None:
        lines.append(f"block_until_exists_for_value {gate_dir}")
    if log is not None:
        lines.append(f"log_executions {log.path}")
    return "\n".join(lines) + "\n"


def http_echo(url, model, value, shape=(1, 1), **kwargs):
    """One HTTP request of an echo model; returns OUT (raises on an error)."""
    data = np.full(shape, value, dtype=np.int32)
    with httpclient.InferenceServerClient(url, network_timeout=120) as client:
        tensor = httpclient.InferInput("IN", list(shape), "INT32")
        tensor.set_data_from_numpy(data)
        result = client.infer(model, [tensor], **kwargs)
        return result.as_numpy("OUT")


def grpc_echo(url, model, value, shape=(1, 1), **kwargs):
    data = np.full(shape, value, dtype=np.int32)
    with grpcclient.InferenceServerClient(url) as client:
        tensor = grpcclient.InferInput("IN", list(shape), "INT32")
        tensor.set_data_from_numpy(data)
        result = client.infer(model, [tensor], **kwargs)
        return result.as_numpy("OUT")



def start_gated_model(env, dynamic_batching=""):
    """Serves fake model "m" (max_batch_size 1) behind env's gate with `dynamic_batching`."""
    write_fake_model(env.repo, "m", echo_io() + "\nmax_batch_size: 1\n"
                     f"dynamic_batching {{ {dynamic_batching} }}",
                     echo_model_file(gate=env.gate, log=env.log))
    return env.start()


def hold_instance(env, pool, server):
    """Sends value 0, which runs and waits at the closed gate; returns its future."""
    future = pool.submit(http_echo, server.http_url, "m", 0)
    env.log.wait_started(1)
    return future

def model_stats(server, model):
    """The model's (only version's) statistics, as tritonclient HTTP returns them."""
    with httpclient.InferenceServerClient(server.http_url) as client:
        stats = client.get_inference_statistics(model)["model_stats"]
    assert len(stats) == 1, stats
    return stats[0]


def wait_stats(server, model, predicate, what):
    """Polls the model's statistics until `predicate` holds; returns them."""
    seen = []

    def check():
        seen[:] = [model_stats(server, model)]
        return predicate(seen[0])

    wait_for(check, lambda: f"{what} (last statistics: {seen})")
    return seen[0]


def batch_sizes(stats):
    """{batch_size: number of executions} from batch_stats."""
    return {int(b["batch_size"]): int(b["compute_infer"]["count"]) for b in stats["batch_stats"]}


def metric(server, name, **labels):
    """The value of one Prometheus sample of the server's /metrics, or None."""
    text = requests.get(f"http://{server.metrics_url}/metrics", timeout=10).text
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in text.splitlines():
        if line.startswith(f"{name}{{{wanted}}} "):
            return float(line.split()[-1])
    return None


def queue_size(server, model):
    return metric(server, "inferd_inference_queue_size", model=model, version="1")


def failures(server, model, reason):
    return metric(server, "inferd_inference_request_failure_total", model=model, version="1",
                  reason=reason)


def fail_count(stats):
    return int(stats["inference_stats"]["fail"]["count"])


def success_count(stats):
    return int(stats["inference_stats"]["success"]["count"])


class Env:
    """A model repository, a gate and an execution log in a tmp folder, and a
    way to start inferd on them with the fake backend available."""

    def __init__(self, tmp_path, make_server, backends):
        self.tmp = tmp_path
        self.repo = tmp_path / "repo"
        self.repo.mkdir()
        self.gate = Gate(tmp_path / "gate")
        self.log = ExecutionLog(tmp_path / "executions.log")
        self.gate_dir = tmp_path / "gates"  # block_until_exists_for_value
        self._value_gates = []
        self._make_server = make_server
        self._backends = backends

    def start(self, *extra_args):
        return self._make_server(self.repo, *extra_args, backends=self._backends)

    def value_gate(self, value):
        gate = Gate(self.gate_dir / str(value))
        self._value_gates.append(gate)
        return gate

    def open_all(self):
        self.gate.open()
        for gate in self._value_gates:
            gate.open()


@pytest.fixture
def env(tmp_path, make_server, test_backends):
    """Depends on make_server so that it is torn down first: gates open before
    the servers stop (a closed gate would hold their instances forever)."""
    environment = Env(tmp_path, make_server, test_backends)
    yield environment
    environment.open_all()
