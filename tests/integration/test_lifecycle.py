# SPDX-License-Identifier: Apache-2.0
"""Model lifecycle under load (issue 4): versions swapped while 4 HTTP and 4
gRPC clients keep requests in flight, in poll mode and through the load API,
availability- and resource-preserving; a version that fails to load never
takes down the one that serves; models added and removed by polling; the
SIGTERM sequence; memory after load/unload cycles; warm-up; readiness.

Swaps use the test-only fake backend (it loads at once; its model file can
hold ModelCreate or Execute until a file exists), so that every state is
reached by waiting for a condition with a deadline, never by sleeping.
Version folders are built beside the repository and renamed into place
(atomic), except where a test copies one slowly on purpose.
"""
import collections
import concurrent.futures
import dataclasses
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
from tritonclient.utils import InferenceServerException

from conftest import EXAMPLES, RunningServer
from scheduling_util import (ExecutionLog, Gate, echo_io, echo_model_file, fake_config,
                             queue_size, wait_for)

POLL_SECS = 0.25
POLL = ("--model-control-mode", "poll", "--repository-poll-secs", str(POLL_SECS))
EXPLICIT = ("--model-control-mode", "explicit")
# Echo model IN -> OUT, INT32 [batch, 1]; only the newest version is served.
ECHO_CONFIG = echo_io() + "\nmax_batch_size: 8\nversion_policy: { latest: { num_versions: 1 } }"
# Not ready: 400, as Triton answers (docs/api.md, server ready).
NOT_READY = 400
RESOURCE_PRESERVING = ('parameters { key: "version_transition_policy" '
                       'value: { string_value: "resource_preserving" } }')


# ---------------------------------------------------------------------------
# The repository


class Repo:
    """A model repository in tmp_path/repo and a staging folder beside it (on
    the same file system, so that os.rename moves a finished folder into the
    repository atomically). Staging inside a model folder would not do: every
    file outside the version folders belongs to the model's configuration."""

    def __init__(self, tmp_path):
        self.root = tmp_path / "repo"
        self.root.mkdir()
        self.staging = tmp_path / "staging"
        self.staging.mkdir()
        self._count = 0

    def _stage(self):
        self._count += 1
        return self.staging / str(self._count)

    def add_model(self, name, config_body=ECHO_CONFIG, versions=None):
        """<root>/<name>: config.pbtxt (the fake backend + `config_body`) and
        `versions` ({version: {file: text or bytes}}; default: version 1 echo)."""
        stage = self._stage()
        stage.mkdir()
        (stage / "config.pbtxt").write_text(fake_config(name, config_body))
        for version, files in (versions or {1: {"model.fake": echo_model_file()}}).items():
            write_files(stage / str(version), files)
        os.rename(stage, self.root / name)

    def add_version(self, name, version, files=None):
        stage = self._stage()
        write_files(stage, files or {"model.fake": echo_model_file()})
        os.rename(stage, self.root / name / str(version))
        return time.monotonic()

    def remove_model(self, name):
        """Moves the folder out of the repository at once, then deletes it."""
        gone = self._stage()
        os.rename(self.root / name, gone)
        shutil.rmtree(gone)


def write_files(folder, files):
    folder.mkdir(parents=True)
    for path, content in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)


# ---------------------------------------------------------------------------
# The server's view


def index_rows(server):
    reply = requests.post(f"http://{server.http_url}/v2/repository/index", timeout=10)
    assert reply.status_code == 200, reply.text
    return reply.json()


def versions_of(server, model):
    """{version: (state, reason)} of `model` in the index; a model-level row
    (no version) is keyed 0, one the server never loaded (its name only) too,
    with state ""."""
    return {int(r.get("version") or 0): (r.get("state", ""), r.get("reason", ""))
            for r in index_rows(server) if r["name"] == model}


def wait_versions(server, model, predicate, what, timeout=30.0):
    """Polls the index until predicate(versions_of(...)) holds; returns them."""
    seen = [None]

    def check():
        seen[0] = versions_of(server, model)
        return predicate(seen[0])

    wait_for(check, lambda: f"{model}: {what} (index: {seen[0]}; log:\n{server.output()[-3000:]})",
             timeout=timeout)
    return seen[0]


def wait_only_ready(server, model, version, timeout=30.0):
    """Waits until `version` is READY and no other version is left (the
    previous one has finished unloading)."""
    return wait_versions(server, model, lambda v: v == {version: ("READY", "")},
                         f"version {version} READY and alone", timeout)


def http_status(server, path, method="get"):
    try:
        return getattr(requests, method)(f"http://{server.http_url}{path}", timeout=5).status_code
    except requests.RequestException as e:
        return repr(e)


def infer(server, model, value=7, protocol="http", version=""):
    """One echo request; returns the model_version that answered."""
    data = np.full((1, 1), value, dtype=np.int32)
    if protocol == "http":
        with httpclient.InferenceServerClient(server.http_url, network_timeout=30) as client:
            tensor = httpclient.InferInput("IN", [1, 1], "INT32")
            tensor.set_data_from_numpy(data)
            result = client.infer(model, [tensor], model_version=version)
            answered = result.get_response()["model_version"]
    else:
        with grpcclient.InferenceServerClient(server.grpc_url) as client:
            tensor = grpcclient.InferInput("IN", [1, 1], "INT32")
            tensor.set_data_from_numpy(data)
            result = client.infer(model, [tensor], model_version=version, client_timeout=30)
            answered = result.get_response().model_version
    assert result.as_numpy("OUT").tolist() == [[value]]
    return int(answered)


def infer_error(server, model, protocol="http", version=""):
    with pytest.raises(InferenceServerException) as caught:
        infer(server, model, protocol=protocol, version=version)
    return str(caught.value.status()), caught.value.message()


# ---------------------------------------------------------------------------
# Load: client threads that keep requests in flight


@dataclasses.dataclass
class Outcome:
    sent: float                # time.monotonic() before the request
    answered: float            # ... after its answer
    version: int = 0           # model_version of a success
    error: tuple = None        # (status, message) of a failure


class Traffic:
    """`http` + `grpc` client threads, each sending one echo request after
    another (so 4-8 are in flight) and recording every outcome in order.
    A thread ends when stop() is called or `last(outcome)` is true."""

    def __init__(self, server, model, http=4, grpc=4, last=None):
        self.server = server
        self.model = model
        self.last = last
        self.results = [[] for _ in range(http + grpc)]
        self._stop = threading.Event()
        protocols = ["http"] * http + ["grpc"] * grpc
        self._threads = [threading.Thread(target=self._run, args=(i, p), daemon=True)
                         for i, p in enumerate(protocols)]
        for thread in self._threads:
            thread.start()

    def _run(self, index, protocol):
        if protocol == "http":
            client = httpclient.InferenceServerClient(self.server.http_url, network_timeout=30)
        else:
            client = grpcclient.InferenceServerClient(self.server.grpc_url)
        value = index * 1_000_000
        try:
            while not self._stop.is_set():
                value += 1
                outcome = self._one(client, protocol, value)
                self.results[index].append(outcome)
                if self.last is not None and self.last(outcome):
                    return
        finally:
            client.close()

    def _one(self, client, protocol, value):
        module = httpclient if protocol == "http" else grpcclient
        tensor = module.InferInput("IN", [1, 1], "INT32")
        tensor.set_data_from_numpy(np.full((1, 1), value, dtype=np.int32))
        sent = time.monotonic()
        try:
            if protocol == "http":
                result = client.infer(self.model, [tensor])
                version = result.get_response()["model_version"]
            else:
                result = client.infer(self.model, [tensor], client_timeout=30)
                version = result.get_response().model_version
            answered = time.monotonic()
            if result.as_numpy("OUT").tolist() != [[value]]:
                return Outcome(sent, answered, error=("wrong answer", str(result.as_numpy("OUT"))))
            return Outcome(sent, answered, version=int(version))
        except InferenceServerException as e:
            return Outcome(sent, time.monotonic(), error=(str(e.status()), e.message()))
        except Exception as e:  # connection errors
            return Outcome(sent, time.monotonic(), error=(type(e).__name__, repr(e)))

    def all(self):
        return [o for thread in self.results for o in list(thread)]

    def failures(self):
        return [o for o in self.all() if o.error is not None]

    def wait_each(self, predicate, what, timeout=30.0):
        """Waits until every thread has an outcome for which predicate holds."""
        wait_for(lambda: all(any(predicate(o) for o in list(thread)) for thread in self.results),
                 lambda: f"every client thread: {what} (failures: {self.failures()[:5]})",
                 timeout=timeout)

    def wait_done(self, timeout=30.0):
        for thread in self._threads:
            thread.join(timeout)
            assert not thread.is_alive(), "a client thread hangs"

    def stop(self):
        self._stop.set()
        self.wait_done()


class IndexWatcher:
    """Polls the index of one model and the server's readiness in the
    background; `seen` holds every (version, state, reason) the index ever
    showed, `readiness` every status /v2/health/ready answered."""

    def __init__(self, server, model):
        self.seen = set()
        self.readiness = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(server, model), daemon=True)
        self._thread.start()

    def _run(self, server, model):
        while not self._stop.is_set():
            for version, (state, reason) in versions_of(server, model).items():
                self.seen.add((version, state, reason))
            self.readiness.add(http_status(server, "/v2/health/ready"))
            self._stop.wait(0.01)

    def ready_versions(self):
        return {v for v, state, _ in self.seen if state == "READY"}

    def stop(self):
        self._stop.set()
        self._thread.join(10)


def check_swaps(traffic, watcher, placed, alone):
    """The swap properties, for every outcome of every client thread:
    - no request failed;
    - it was answered by a version the index showed READY (to the watcher
      or to the test itself);
    - no version answered before its folder was in place (`placed[v]`);
    - a request sent after the test saw version w READY alone (`alone[w]`)
      was answered by w or a newer one;
    - per client thread the versions never go back;
    - the server stayed ready (deployment.md: a swap never makes it 400)."""
    assert traffic.failures() == [], traffic.failures()[:10]
    assert watcher.readiness == {200}, watcher.readiness
    ready = watcher.ready_versions() | set(alone)
    total = 0
    for thread in traffic.results:
        last = 0
        for outcome in thread:
            v = outcome.version
            assert v in ready, (v, sorted(ready))
            assert outcome.answered >= placed[v], f"version {v} answered before it was placed"
            for w, since in alone.items():
                assert not (outcome.sent > since and v < w), \
                    f"version {v} answered a request sent after version {w} was alone READY"
            assert v >= last, f"a client thread went back from version {last} to {v}"
            last = v
            total += 1
    return total


# ---------------------------------------------------------------------------
# 1-3: swaps under load


@pytest.fixture
def repo(tmp_path):
    return Repo(tmp_path)


def write_slowly(folder, text, pause=0.03):
    """A non-atomic copy: the version folder appears first, then its file in
    pieces (the first piece ends inside a directive, so a model loaded from a
    half-copied file would fail), each piece well within one poll interval."""
    folder.mkdir()
    with open(folder / "model.fake", "w") as out:
        pieces = [text[:3]] + [text[i:i + 12] for i in range(3, len(text), 12)]
        for piece in pieces:
            out.write(piece)
            out.flush()
            time.sleep(pause)  # simulates a slow copy; nothing waits on it


def test_poll_swaps_under_load(repo, make_server, test_backends):
    repo.add_model("m")
    server = make_server(repo.root, *POLL, backends=test_backends)
    watcher = IndexWatcher(server, "m")
    traffic = Traffic(server, "m")
    start = time.monotonic()
    placed, alone = {1: 0.0}, {1: start}
    try:
        traffic.wait_each(lambda o: o.version == 1, "an answer from version 1")
        slow = "".join([echo_model_file()] + [f"# padding {i}\n" for i in range(12)])
        for version in range(2, 12):
            if version == 6:
                placed[version] = time.monotonic()
                write_slowly(repo.root / "m" / str(version), slow)
            else:
                placed[version] = repo.add_version("m", version)
            wait_only_ready(server, "m", version)
            alone[version] = time.monotonic()
            traffic.wait_each(lambda o, v=version: o.version == v,
                              f"an answer from version {version}")
        elapsed = time.monotonic() - start
    finally:
        traffic.stop()
        watcher.stop()
    total = check_swaps(traffic, watcher, placed, alone)
    # No version failed to load: in particular the slowly copied one (6) was
    # never loaded half-written (its first piece is not a valid file).
    assert not [s for s in watcher.seen if s[1] == "UNAVAILABLE"], watcher.seen
    assert "failed to load" not in server.output()
    print(f"\npoll mode: 10 swaps in {elapsed:.2f} s, {total} requests, 0 failed")


def test_load_api_swaps_under_load(repo, make_server, test_backends):
    repo.add_model("m")
    server = make_server(repo.root, *EXPLICIT, "--load-model", "m", backends=test_backends)
    watcher = IndexWatcher(server, "m")
    traffic = Traffic(server, "m")
    start = time.monotonic()
    placed, alone = {1: 0.0}, {1: start}
    try:
        traffic.wait_each(lambda o: o.version == 1, "an answer from version 1")
        with grpcclient.InferenceServerClient(server.grpc_url) as grpc_client:
            for version in range(2, 12):
                # In explicit mode nothing looks at the folder until the load call.
                write_files(repo.root / "m" / str(version), {"model.fake": echo_model_file()})
                placed[version] = time.monotonic()
                if version % 2:
                    grpc_client.load_model("m")
                else:
                    reply = requests.post(
                        f"http://{server.http_url}/v2/repository/models/m/load", timeout=30)
                    assert reply.status_code == 200, reply.text
                # The load answers once the new version is READY (and has the traffic).
                alone[version] = time.monotonic()
                assert versions_of(server, "m").get(version) == ("READY", "")
                wait_only_ready(server, "m", version)
                traffic.wait_each(lambda o, v=version: o.version == v,
                                  f"an answer from version {version}")
        elapsed = time.monotonic() - start
    finally:
        traffic.stop()
        watcher.stop()
    total = check_swaps(traffic, watcher, placed, alone)
    print(f"\nload API: 10 swaps in {elapsed:.2f} s, {total} requests, 0 failed")


def is_not_ready_error(error):
    status, message = error
    return (status in ("503", "StatusCode.UNAVAILABLE") and "Request for unknown model: 'm' has no available versions" in message
            and ("resource-preserving" in message or "unloading" in message))


def test_resource_preserving_swaps_under_load(repo, make_server, test_backends, tmp_path):
    repo.add_model("m")
    server = make_server(repo.root, *EXPLICIT, "--load-model", "m",
                         "--version-transition-policy", "resource_preserving",
                         backends=test_backends)
    traffic = Traffic(server, "m")
    windows = []  # (load call sent, load call answered)
    try:
        traffic.wait_each(lambda o: o.version == 1, "an answer from version 1")
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            for version in range(2, 12):
                # The new version's ModelCreate waits for its gate: the window
                # (old one gone, new one loading) stays open until the test
                # has seen it from outside.
                gate = Gate(tmp_path / "gates" / str(version))
                write_files(repo.root / "m" / str(version),
                            {"model.fake": echo_model_file() +
                             f"block_load_until_exists {gate.path}\n"})
                opened = time.monotonic()
                load = pool.submit(requests.post,
                                   f"http://{server.http_url}/v2/repository/models/m/load",
                                   timeout=30)
                try:
                    versions = wait_versions(
                        server, "m",
                        lambda v, n=version: v.get(n, ("",))[0] == "LOADING" and
                        v.get(n - 1, ("gone",))[0] != "READY",
                        f"version {version} LOADING with {version - 1} gone")
                    assert "resource-preserving" in versions[version][1], versions
                    traffic.wait_each(lambda o, t=opened: o.error is not None and o.sent > t,
                                      "a request refused in the window")
                finally:
                    gate.open()
                reply = load.result(timeout=30)
                windows.append((opened, time.monotonic()))
                assert reply.status_code == 200, reply.text
                wait_only_ready(server, "m", version)
                traffic.wait_each(lambda o, v=version: o.version == v,
                                  f"an answer from version {version}")
    finally:
        traffic.stop()
    failures = traffic.failures()
    assert failures, "no request saw the resource-preserving window"
    messages = collections.Counter(f"{o.error[0]} {o.error[1]}" for o in failures)
    for outcome in failures:
        assert is_not_ready_error(outcome.error), f"{outcome}; all failures: {messages}"
        assert any(outcome.sent <= end and outcome.answered >= begin for begin, end in windows), \
            f"a failure outside every swap window: {outcome}"
    # Outside the windows every request succeeded, on the version then serving.
    for thread in traffic.results:
        last = 0
        for outcome in thread:
            if outcome.error is None:
                assert outcome.version >= last
                last = outcome.version
    print(f"\nresource-preserving: 10 swaps, {len(traffic.all())} requests, "
          f"{len(failures)} refused inside the windows, 0 outside")


def test_resource_preserving_per_model(repo, make_server, test_backends, tmp_path):
    """The config parameter chooses the policy for one model; the other
    model of the same server keeps the server's availability-preserving one."""
    repo.add_model("rp", ECHO_CONFIG + "\n" + RESOURCE_PRESERVING)
    repo.add_model("ap")
    server = make_server(repo.root, *POLL, backends=test_backends)
    gates = {name: Gate(tmp_path / f"gate-{name}") for name in ("rp", "ap")}
    try:
        for name, gate in gates.items():
            repo.add_version(name, 2, {"model.fake": echo_model_file() +
                                       f"block_load_until_exists {gate.path}\n"})
        rp = wait_versions(server, "rp", lambda v: v.get(2, ("",))[0] == "LOADING" and 1 not in v,
                           "version 2 LOADING after version 1 was unloaded")
        assert "resource-preserving" in rp[2][1]
        status, message = infer_error(server, "rp")
        assert (status == "503" and "has no available versions" in message
                and "resource-preserving" in message)
        ap = wait_versions(server, "ap", lambda v: v.get(2, ("",))[0] == "LOADING",
                           "version 2 LOADING")
        assert ap[1] == ("READY", ""), ap
        assert infer(server, "ap") == 1
    finally:
        for gate in gates.values():
            gate.open()
    for name in ("rp", "ap"):
        wait_only_ready(server, name, 2)
        assert infer(server, name) == 2


# ---------------------------------------------------------------------------
# 4: the old version serves while the new one loads


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_old_version_serves_while_new_one_loads(repo, make_server, test_backends, tmp_path,
                                                protocol):
    repo.add_model("m")
    server = make_server(repo.root, *POLL, backends=test_backends)
    gate = Gate(tmp_path / "load-gate")
    try:
        repo.add_version("m", 2, {"model.fake": echo_model_file() +
                                  f"block_load_until_exists {gate.path}\n"})
        versions = wait_versions(server, "m", lambda v: v.get(2, ("",))[0] == "LOADING",
                                 "version 2 LOADING")
        assert versions[1] == ("READY", ""), versions
        # Requests (plain and pinned) go to version 1 and do not wait for the load.
        for _ in range(5):
            started = time.monotonic()
            assert infer(server, "m", protocol=protocol) == 1
            assert infer(server, "m", protocol=protocol, version="1") == 1
            assert time.monotonic() - started < 5
        assert versions_of(server, "m")[2][0] == "LOADING"
        # A request pinned to the version still loading gets a clear error.
        status, message = infer_error(server, "m", protocol=protocol, version="2")
        assert status in ("503", "StatusCode.UNAVAILABLE") and message.startswith(
            "Request for unknown model: 'm' version 2 is not at ready state: loading"), message
    finally:
        gate.open()
    wait_only_ready(server, "m", 2)
    assert infer(server, "m", protocol=protocol) == 2
    # The version that went away: a clear error, not a hang.
    status, message = infer_error(server, "m", protocol=protocol, version="1")
    assert status in ("404", "StatusCode.NOT_FOUND") and "version 1" in message, message


# ---------------------------------------------------------------------------
# 5: broken versions and configs in a polled repository


def test_corrupt_versions_keep_the_old_one_serving(repo, make_server, test_backends):
    repo.add_model("m")
    server = make_server(repo.root, *POLL, backends=test_backends)
    # A backend that refuses to load the new version.
    repo.add_version("m", 2, {"model.fake": echo_model_file() + "fail_load\n"})
    v = wait_versions(server, "m", lambda v: v.get(2, ("",))[0] == "UNAVAILABLE",
                      "version 2 UNAVAILABLE")
    assert v[1] == ("READY", ""), v
    assert "fail_load" in v[2][1], v
    assert infer(server, "m") == 1 and infer(server, "m", protocol="grpc") == 1
    # A model file the backend cannot parse.
    repo.add_version("m", 3, {"model.fake": "this is not a directive\n"})
    v = wait_versions(server, "m", lambda v: v.get(3, ("",))[0] == "UNAVAILABLE",
                      "version 3 UNAVAILABLE")
    assert v[1] == ("READY", ""), v
    assert "unknown directive 'this'" in v[3][1] and "line 1" in v[3][1], v
    assert infer(server, "m") == 1
    # Polling still works: the next good version is picked up.
    repo.add_version("m", 4)
    wait_only_ready(server, "m", 4)
    assert infer(server, "m") == 4


def break_config(server, repo):
    """Writes a config.pbtxt with a syntax error (line 9: a message never
    closed) into model m; returns the good text."""
    config = repo.root / "m" / "config.pbtxt"
    good = config.read_text()
    assert good.count("\n") == 7, good
    config.write_text(good + "\ndynamic_batching {\n")
    return good


def test_broken_config_keeps_the_old_one_serving(repo, make_server, test_backends):
    repo.add_model("m")
    server = make_server(repo.root, *POLL, backends=test_backends)
    config = repo.root / "m" / "config.pbtxt"
    good = break_config(server, repo)
    # The error names the file and the line.
    wait_for(lambda: "failed to load" in server.output(), "the config error in the log")
    error = next(line for line in server.output().splitlines() if "failed to load" in line)
    assert f"{config}:9:" in error or f"{config}:10:" in error, error
    state, reason = versions_of(server, "m").get(1)
    assert state == "READY" and "serving; the latest change failed to load" in reason, reason
    assert infer(server, "m") == 1 and infer(server, "m", protocol="grpc") == 1
    # Polling goes on: the fixed config is picked up (a parameter makes the
    # reload visible).
    config.write_text(good + '\nparameters { key: "fixed" value: { string_value: "yes" } }\n')
    wait_for(lambda: "fixed" in requests.get(f"http://{server.http_url}/v2/models/m/config",
                                             timeout=5).json().get("parameters", {}),
             "the fixed config to be served")
    wait_only_ready(server, "m", 1)
    assert infer(server, "m") == 1


def test_broken_config_reason_in_index(repo, make_server, test_backends):
    """The index shows why the change failed, though the old version serves."""
    repo.add_model("m")
    server = make_server(repo.root, *POLL, backends=test_backends)
    break_config(server, repo)
    wait_for(lambda: "failed to load" in server.output(), "the config error in the log")
    v = versions_of(server, "m")
    assert any("config.pbtxt:" in reason for _, reason in v.values()), v
    assert v.get(1, ("",))[0] == "READY", v


def test_corrupt_onnx_version(tmp_path, make_server):
    repo = Repo(tmp_path)
    shutil.copytree(EXAMPLES / "simple", repo.root / "simple")
    server = make_server(repo.root, *POLL)
    repo.add_version("simple", 2, {"model.onnx": b"\x08\x07garbage, not a protobuf" * 10})
    v = wait_versions(server, "simple", lambda v: v.get(2, ("",))[0] == "UNAVAILABLE",
                      "version 2 UNAVAILABLE")
    assert v.get(1) == ("READY", ""), v
    print(f"\ncorrupt model.onnx: {v[2][1]}")
    assert "model.onnx" in v[2][1] or "protobuf" in v[2][1].lower(), v
    client = httpclient.InferenceServerClient(server.http_url)
    inputs = []
    for name in ("INPUT0", "INPUT1"):
        tensor = httpclient.InferInput(name, [1, 16], "INT32")
        tensor.set_data_from_numpy(np.ones((1, 16), np.int32))
        inputs.append(tensor)
    result = client.infer("simple", inputs)
    assert result.get_response()["model_version"] == "1"
    assert result.as_numpy("OUTPUT0").tolist() == [[2] * 16]


# ---------------------------------------------------------------------------
# 6: models added and removed by polling


def test_poll_adds_and_removes_models(repo, make_server, test_backends):
    repo.add_model("a")
    server = make_server(repo.root, *POLL, backends=test_backends)
    assert infer_error(server, "b")[0] == "404"
    repo.add_model("b")
    wait_only_ready(server, "b", 1)
    assert infer(server, "b") == 1 and infer(server, "b", protocol="grpc") == 1
    removed = time.monotonic()
    repo.remove_model("b")
    wait_versions(server, "b", lambda v: v == {}, "model b gone from the index")
    print(f"\nremoved model gone from the index after {time.monotonic() - removed:.2f} s "
          f"(poll interval {POLL_SECS} s)")
    status, message = infer_error(server, "b")
    assert status == "404" and "unknown model" in message, (status, message)
    status, message = infer_error(server, "b", protocol="grpc")
    assert status == "StatusCode.NOT_FOUND", (status, message)
    assert infer(server, "a") == 1


# ---------------------------------------------------------------------------
# 7: SIGTERM


def refused(outcome):
    return outcome.error is not None


def shutting_down(error):
    """The documented refusals once the grace period is over (deployment.md):
    503 / UNAVAILABLE, or for HTTP a refused connection — a reply sent during
    the drain closes its connection and the listener is shut, so the next
    request finds the port closed before it is sent."""
    if error[0] == "ConnectionRefusedError":
        return True
    return error[0] in ("503", "StatusCode.UNAVAILABLE") and "server is shutting down" in error[1]


def held_model(repo, gate, log):
    """Model `held`: one instance, requests queue behind a closed gate."""
    repo.add_model("held", echo_io() + "\nmax_batch_size: 1\ndynamic_batching { }\n"
                   "instance_group [ { count: 1 kind: KIND_CPU } ]",
                   {1: {"model.fake": echo_model_file(gate=gate, log=log)}})


def test_sigterm_under_load(repo, make_server, test_backends, tmp_path):
    gate, log = Gate(tmp_path / "gate"), ExecutionLog(tmp_path / "executions.log")
    repo.add_model("m")
    held_model(repo, gate, log)
    server = make_server(repo.root, "--shutdown-grace-secs", "1.5", "--exit-timeout-secs", "30",
                         backends=test_backends)
    pool = concurrent.futures.ThreadPoolExecutor(2)
    try:
        # One request executing and one queued behind it, on `held`.
        executing = pool.submit(infer, server, "held", 1)
        log.wait_started(1)
        queued = pool.submit(infer, server, "held", 2, "grpc")
        wait_for(lambda: queue_size(server, "held") == 1, "a request queued on `held`")
        # Clients keep requests in flight on `m`; each stops at its first
        # refusal (as a load balancer would), so that none races the final
        # closing of the endpoints.
        traffic = Traffic(server, "m", last=refused)
        traffic.wait_each(lambda o: o.version == 1, "an answer")
        signalled = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        wait_for(lambda: http_status(server, "/v2/health/ready") == NOT_READY,
                 "readiness to turn false",
                 timeout=1.0)
        ready_off = time.monotonic()
        # The grace period: live, serving, readiness false (over gRPC too).
        assert http_status(server, "/v2/health/live") == 200
        with grpcclient.InferenceServerClient(server.grpc_url) as health:
            assert health.is_server_live() and not health.is_server_ready()
        traffic.wait_each(lambda o: o.error is None and o.sent > ready_off,
                          "a success sent after readiness turned false", timeout=5)
        assert http_status(server, "/v2/health/live") == 200
        assert "no longer accepting" not in server.output()
        # Then new requests are refused with a clear error.
        traffic.wait_done()
        stop_accepting = time.monotonic()
        assert stop_accepting - signalled >= 1.4, "the grace period was cut short"
        assert not executing.done() and not queued.done()
        assert "no longer accepting requests" in server.output()
        # The accepted requests are answered once the gate opens; exit 0.
        gate.open()
        assert executing.result(timeout=30) == 1
        assert queued.result(timeout=30) == 1
        assert server.process.wait(timeout=30) == 0
    finally:
        gate.open()
        pool.shutdown()
    # Every request was answered: a success, or (the last of each thread,
    # after the grace period) the documented refusal.
    failures = traffic.failures()
    assert len(failures) == len(traffic.results), failures
    for outcome in failures:
        assert shutting_down(outcome.error), outcome
        assert outcome.sent > signalled
    successes = [o for o in traffic.all() if o.error is None]
    in_grace = [o for o in successes if o.sent > ready_off]
    print(f"\nSIGTERM: readiness false after {ready_off - signalled:.3f} s; "
          f"{len(in_grace)} requests "
          f"served in the grace period; {len(failures)} refused after it "
          f"(\"{failures[0].error[1]}\"); exit 0 after the gate opened")


def test_sigterm_exit_timeout_answers_queued(repo, make_server, test_backends, tmp_path):
    gate, log = Gate(tmp_path / "gate"), ExecutionLog(tmp_path / "executions.log")
    held_model(repo, gate, log)
    server = make_server(repo.root, "--exit-timeout-secs", "1", backends=test_backends)
    pool = concurrent.futures.ThreadPoolExecutor(4)
    try:
        executing = pool.submit(infer, server, "held", 1)
        log.wait_started(1)
        queued = [pool.submit(infer_error, server, "held", protocol)
                  for protocol in ("http", "grpc")]
        wait_for(lambda: queue_size(server, "held") == 2, "two requests queued on `held`")
        server.process.send_signal(signal.SIGTERM)
        for future in queued:
            status, message = future.result(timeout=30)
            assert status in ("503", "StatusCode.UNAVAILABLE"), (status, message)
            assert "--exit-timeout-secs" in message, message
        assert not executing.done()
        assert server.alive()
        gate.open()
        assert executing.result(timeout=30) == 1
        assert server.process.wait(timeout=30) == 0
    finally:
        gate.open()
        pool.shutdown()
    assert "drain time is up" in server.output()


# ---------------------------------------------------------------------------
# 8: memory


def rss_kib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


# ASan keeps freed memory in its quarantine (256 MB by default) and never
# trims, so RSS says nothing about unload there; the release run measures it.
@pytest.mark.skipif("ASAN_OPTIONS" in os.environ,
                    reason="RSS is meaningless under AddressSanitizer's allocator")
def test_memory_returns_after_load_unload_cycles(make_server):
    server = make_server(EXAMPLES, *EXPLICIT)
    base = f"http://{server.http_url}/v2/repository/models/ocr_cls"
    client = httpclient.InferenceServerClient(server.http_url)
    image = httpclient.InferInput("x", [1, 3, 48, 192], "FP32")
    image.set_data_from_numpy(np.random.default_rng(0).random((1, 3, 48, 192), np.float32))
    rss = []
    start = time.monotonic()
    for cycle in range(50):
        reply = requests.post(f"{base}/load", timeout=60)
        assert reply.status_code == 200, reply.text
        result = client.infer("ocr_cls", [image])
        assert result.as_numpy("softmax_0.tmp_0").shape == (1, 2)
        rss.append(rss_kib(server.process.pid))
        reply = requests.post(f"{base}/unload", timeout=60)
        assert reply.status_code == 200, reply.text
    elapsed = time.monotonic() - start
    after_unload = rss_kib(server.process.pid)
    print(f"\nocr_cls: 50 load/infer/unload cycles in {elapsed:.1f} s "
          f"({elapsed / 50 * 1000:.0f} ms each); RSS after load 1: {rss[0]} KiB, "
          f"after load 10: {rss[9]} KiB, after load 50: {rss[-1]} KiB "
          f"({(rss[-1] - rss[0]) / rss[0] * 100:+.1f} %), after the last unload: "
          f"{after_unload} KiB")
    assert rss[-1] <= rss[0] * 1.10, rss


# ---------------------------------------------------------------------------
# 9: warm-up


WARMUP_ZEROS = ('model_warmup [ { name: "zeros" batch_size: 1 count: 2 inputs { key: "IN" '
                'value: { data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } } } ]')
WARMUP_MISSING_FILE = ('model_warmup [ { name: "from_file" batch_size: 1 inputs { key: "IN" '
                       'value: { data_type: TYPE_INT32 dims: [ 1 ] '
                       'input_data_file: "missing.bin" } } } ]')


def test_warmup_runs_before_ready(repo, make_server, test_backends, tmp_path):
    gate, log = Gate(tmp_path / "gate"), ExecutionLog(tmp_path / "executions.log")
    repo.add_model("w", ECHO_CONFIG + "\n" + WARMUP_ZEROS,
                   {1: {"model.fake": echo_model_file(gate=gate, log=log)}})
    server = make_server(repo.root, *EXPLICIT, backends=test_backends)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        load = pool.submit(requests.post, f"http://{server.http_url}/v2/repository/models/w/load",
                           timeout=30)
        try:
            log.wait_started(1)  # the first warm-up run, held at the gate
            assert versions_of(server, "w").get(1, ("",))[0] == "LOADING"
            status, message = infer_error(server, "w")
            assert status == "503" and "has no available versions" in message, (status, message)
            assert not load.done()
        finally:
            gate.open()
        assert load.result(timeout=30).status_code == 200
    # Both warm-up runs (zero data) finished before the load answered.
    assert log.started() == [(0, [0]), (0, [0])], log.entries()
    assert len(log.ended()) == 2
    assert versions_of(server, "w") == {1: ("READY", "")}
    stats = requests.get(f"http://{server.http_url}/v2/models/w/stats", timeout=5).json()
    model = stats["model_stats"][0]
    assert int(model["inference_count"]) == 0 and int(model["execution_count"]) == 0, model
    assert infer(server, "w", value=5) == 1
    stats = requests.get(f"http://{server.http_url}/v2/models/w/stats", timeout=5).json()
    assert int(stats["model_stats"][0]["inference_count"]) == 1
    assert log.executed_values() == [0, 0, 5]


def test_warmup_missing_file_fails_the_version(repo, make_server, test_backends):
    repo.add_model("w", ECHO_CONFIG + "\n" + WARMUP_MISSING_FILE)
    server = make_server(repo.root, *EXPLICIT, backends=test_backends)
    reply = requests.post(f"http://{server.http_url}/v2/repository/models/w/load", timeout=30)
    assert reply.status_code != 200 and "missing.bin" in reply.text, reply.text
    v = versions_of(server, "w")
    assert v.get(1, ("",))[0] == "UNAVAILABLE" and "missing.bin" in v[1][1], v
    assert http_status(server, "/v2/models/w/ready") != 200


# ---------------------------------------------------------------------------
# 10: readiness and liveness


def test_strict_readiness(repo, make_server, test_backends):
    repo.add_model("good")
    repo.add_model("broken", versions={1: {"model.fake": echo_model_file() + "fail_load\n"}})
    nothing = make_server(repo.root, *EXPLICIT, backends=test_backends)
    assert http_status(nothing, "/v2/health/ready") == 200
    strict = make_server(repo.root, *EXPLICIT, "--load-model", "good", "--load-model", "broken",
                         backends=test_backends)
    assert http_status(strict, "/v2/health/ready") == NOT_READY
    assert http_status(strict, "/v2/health/live") == 200
    assert versions_of(strict, "broken")[1][0] == "UNAVAILABLE"
    lenient = make_server(repo.root, *EXPLICIT, "--load-model", "good", "--load-model", "broken",
                          "--strict-readiness=false", backends=test_backends)
    assert http_status(lenient, "/v2/health/ready") == 200
    # Strict again once the broken model is unloaded (no longer wanted).
    reply = requests.post(f"http://{strict.http_url}/v2/repository/models/broken/unload",
                          timeout=30)
    assert reply.status_code == 200, reply.text
    wait_for(lambda: http_status(strict, "/v2/health/ready") == 200, "ready after the unload")


def test_live_while_loading_at_startup(repo, make_server, test_backends, tmp_path):
    gate = Gate(tmp_path / "load-gate")
    repo.add_model("slow", versions={1: {"model.fake": echo_model_file() +
                                         f"block_load_until_exists {gate.path}\n"}})
    try:
        server = make_server(repo.root, backends=test_backends, wait_models=False)
        assert http_status(server, "/v2/health/live") == 200
        wait_versions(server, "slow", lambda v: v.get(1, ("",))[0] == "LOADING",
                      "version 1 LOADING")
        assert http_status(server, "/v2/health/ready") == NOT_READY
        assert http_status(server, "/v2/health/live") == 200
        assert RunningServer.SERVING_LINE not in server.output()
    finally:
        gate.open()
    wait_for(lambda: http_status(server, "/v2/health/ready") == 200, "ready once loaded")
    assert infer(server, "slow") == 1

