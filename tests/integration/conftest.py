# SPDX-License-Identifier: Apache-2.0
"""Fixtures that start the real inferd binary on free ports.

`server` serves examples/models; `make_server(repo, *extra_args)` starts one on
any repository (a tmp_path copy, a hand-made folder) and stops it at the end.
"""
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = pathlib.Path(os.environ.get("INFERD_BINARY", ROOT / "build" / "bin" / "inferd"))
BACKENDS = pathlib.Path(os.environ.get("INFERD_BACKEND_DIR", BINARY.parent.parent / "lib" / "backends"))
EXAMPLES = ROOT / "examples" / "models"
# The Python backend's default interpreter: Debian's, which scripts/setup.sh
# gives numpy (python3-numpy), rather than whatever python3 leads PATH.
if os.path.exists("/usr/bin/python3"):
    os.environ.setdefault("INFERD_PYTHON", "/usr/bin/python3")


def free_port():
    return free_ports(1)[0]


def free_ports(count):
    """`count` distinct free ports: all bound at once, so the kernel cannot
    hand the same one out twice (it did: gRPC and metrics collided)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            sockets.append(s)
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class RunningServer:
    def __init__(self, repos, extra_args, log_path, backends=None, wait_models=True):
        self.wait_models = wait_models
        # Always a free metrics port (the default 8002 would collide between
        # servers), unless the test chooses one itself.
        self.http_port, self.grpc_port, self.metrics_port = free_ports(3)
        args = [str(BINARY), "serve", "--host", "127.0.0.1",
                "--http-port", str(self.http_port), "--grpc-port", str(self.grpc_port),
                "--backend-directory", str(backends or BACKENDS)]
        if not any(str(a).startswith("--metrics-port") for a in extra_args):
            args += ["--metrics-port", str(self.metrics_port)]
        for repo in repos:
            args += ["--model-repository", str(repo)]
        args += list(extra_args)
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        self.http_url = f"127.0.0.1:{self.http_port}"
        self.grpc_url = f"127.0.0.1:{self.grpc_port}"
        self.metrics_url = f"127.0.0.1:{self.metrics_port}"
        self._wait_live()

    # Logged once the start-up models are loaded (the endpoints, liveness
    # included, answer before that).
    SERVING_LINE = "start-up models loaded in "

    def _wait_live(self, timeout=60.0):
        """Waits until /v2/health/live answers and, unless `wait_models` is
        false, until the start-up models are loaded (the log line)."""
        deadline = time.monotonic() + timeout
        live = False
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"inferd exited with {self.process.returncode}:\n{self.output()}")
            if not live:
                try:
                    live = requests.get(f"http://{self.http_url}/v2/health/live",
                                        timeout=1).status_code == 200
                except requests.RequestException:
                    pass
            if live and (not self.wait_models or self.SERVING_LINE in self.output()):
                return
            time.sleep(0.05)
        raise RuntimeError(f"inferd did not become live and serving:\n{self.output()}")

    def output(self):
        if not self.log.closed:  # stop() closes it; the file is still there
            self.log.flush()
        return pathlib.Path(self.log_path).read_text(errors="replace")

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        return self.process.returncode


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    if not (EXAMPLES / "simple" / "1" / "model.onnx").exists():
        pytest.fail("example models are missing: run scripts/fetch_models.sh (make setup)")
    log = tmp_path_factory.mktemp("inferd") / "server.log"
    running = RunningServer([EXAMPLES], [], log)
    yield running
    code = running.stop()
    assert code == 0, f"inferd exited with {code}:\n{running.output()}"


@pytest.fixture
def make_server(tmp_path):
    started = []

    def start(repos, *extra_args, backends=None, wait_models=True):
        if not isinstance(repos, (list, tuple)):
            repos = [repos]
        running = RunningServer(repos, extra_args, tmp_path / f"server{len(started)}.log", backends,
                                wait_models)
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


@pytest.fixture
def example_copy(tmp_path):
    """A writable copy of examples/models, to add broken models beside good ones."""
    dest = tmp_path / "models"
    shutil.copytree(EXAMPLES, dest)
    return dest


@pytest.fixture
def test_backends(tmp_path):
    """A backend directory with the real backends and the test-only fake one
    (<build>/tests/backends/fake, built with the tests): pass it to
    make_server(..., backends=test_backends)."""
    fake = BINARY.parent.parent / "tests" / "backends" / "fake"
    if not fake.is_dir():
        pytest.fail(f"the fake backend is missing at {fake}: build the tests")
    folder = tmp_path / "backends"
    folder.mkdir()
    for backend in BACKENDS.iterdir():
        (folder / backend.name).symlink_to(backend.resolve())
    (folder / "fake").symlink_to(fake.resolve())
    return folder
