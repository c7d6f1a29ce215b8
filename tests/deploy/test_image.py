# SPDX-License-Identifier: Apache-2.0
"""inferd's OCI image (deploy/image, `make image`): its configuration, its size, and the
image's own root file system serving examples/models over HTTP and gRPC.

`make test-deploy` builds the image first (about 45 s once the base and the package
layer are cached, 3-4 min on a fresh machine). The container runs under `buildah run`
with chroot isolation: podman's runtime (crun) cannot set the container's rlimits in
this sandbox (no CAP_SYS_RESOURCE), so `podman run` fails before the process starts.
chroot isolation still runs the image's files only, as the image's user, with the
image's environment; what it does not give is namespaces and cgroups.
"""
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import time

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "models"
VERSION = re.search(r"project\(inferd VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())[1]
IMAGE = os.environ.get("INFERD_IMAGE", f"localhost/inferd:{VERSION}")
SIZE_GOAL = 300 * 1000 * 1000


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def server_pids(session):
    """The inferd processes in a session (buildah run's command runs in the caller's)."""
    pids = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        comm, rest = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
        if comm == "inferd" and int(rest[3]) == session:  # field 6: the session id
            pids.append(int(stat.parent.name))
    return pids


def image_config_of(image):
    found = subprocess.run(["buildah", "inspect", "--type", "image", image],
                           capture_output=True, text=True)
    if found.returncode != 0:
        pytest.fail(f"{image} is not built: run `make image` ({found.stderr.strip()})")
    return json.loads(found.stdout)


@pytest.fixture(scope="module")
def image_config():
    return image_config_of(IMAGE)


@pytest.fixture
def container(image_config):
    name = subprocess.run(["buildah", "from", "--pull=never", IMAGE], check=True,
                          capture_output=True, text=True).stdout.strip()
    yield name
    subprocess.run(["buildah", "rm", name], capture_output=True)


def buildah_run(container, *command, volumes=()):
    """Runs a command in the image's root file system as the image's user."""
    args = ["buildah", "run", "--isolation", "chroot", "--network", "host"]
    for volume in volumes:
        args += ["-v", volume]
    return args + [container, "--", *command]


def test_image_configuration(image_config):
    config = image_config["Docker"]["config"]
    assert config["User"] == "1000:1000"
    assert config["Cmd"] == ["inferd", "serve", "--model-repository", "/models"]
    assert set(config["ExposedPorts"]) == {"8000/tcp", "8001/tcp", "8002/tcp"}
    health = config["Healthcheck"]["Test"]
    assert health[0] == "CMD" and "/v2/health/ready" in " ".join(health)


def test_image_is_small(image_config):
    # buildah prints the uncompressed size in decimal units ("268 MB").
    size = subprocess.run(["buildah", "images", "--format", "{{.Size}}", IMAGE], check=True,
                          capture_output=True, text=True).stdout.split("\n")[0]
    number, unit = size.split()
    size_bytes = float(number) * {"kB": 1e3, "MB": 1e6, "GB": 1e9}[unit]
    assert size_bytes < SIZE_GOAL, f"{IMAGE} is {size}, the goal is < 300 MB"


def test_image_holds_only_runtime_files(container):
    listing = subprocess.run(
        buildah_run(container, "sh", "-c",
                    "id -u; ls /opt/inferd/lib/backends; ls /usr/include/*.h 2>/dev/null | wc -l;"
                    " command -v gcc cc c++ || true"),
        check=True, capture_output=True, text=True).stdout.split()
    uid, backends, headers = listing[0], listing[1:-1], listing[-1]
    assert uid == "1000"
    assert backends == ["onnxruntime", "python"]  # the LibTorch backend has its own tag
    assert headers == "0", "C development headers (libc6-dev) in the image"


class ImageServer:
    """inferd serve, on free ports, in a container of `image` with `repo` at /models."""

    def __init__(self, image, repo, log_path, command=None, mount="/models"):
        """`command(http_port, grpc_port, metrics_port)` gives the command line to run;
        by default the image's own command with those ports."""
        self.http_port, self.grpc_port, metrics_port = free_ports(3)
        self.container = subprocess.run(["buildah", "from", "--pull=never", image], check=True,
                                        capture_output=True, text=True).stdout.strip()
        if command is None:
            command = lambda http, grpc, metrics: [  # noqa: E731
                "inferd", "serve", "--model-repository", "/models", "--host", "127.0.0.1",
                "--http-port", str(http), "--grpc-port", str(grpc), "--metrics-port", str(metrics)]
        argv = command(self.http_port, self.grpc_port, metrics_port)
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(
            buildah_run(self.container, *argv, volumes=[f"{repo}:{mount}:ro"]),
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while True:
            assert self.process.poll() is None, f"the container exited:\n{self.output()}"
            try:
                if requests.get(f"http://127.0.0.1:{self.http_port}/v2/health/ready",
                                timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert time.monotonic() < deadline, f"not ready in 120 s:\n{self.output()}"
            time.sleep(0.2)

    def output(self):
        return pathlib.Path(self.log_path).read_text(errors="replace")

    def stop(self):
        """SIGTERM to inferd itself, as a container runtime's stop sends it (buildah answers
        a signal of its own by killing the command), twice; returns the exit status."""
        pids = server_pids(self.process.pid) if self.process.poll() is None else []
        for pid in pids:
            os.kill(pid, signal.SIGTERM)
        # A second signal ends --shutdown-grace-secs early (the manifests' commands set it).
        time.sleep(0.3)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            code = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            code = self.process.wait()
        self.log.close()
        subprocess.run(["buildah", "rm", self.container], capture_output=True)
        return code


@pytest.mark.timeout(180)
def test_image_serves_the_examples(image_config, tmp_path):
    """The image's default command, on free ports, serves every example model; an ONNX
    model answers over HTTP and gRPC, a Python model (its worker runs the image's
    python3 with numpy) over HTTP; the HEALTHCHECK command passes; SIGTERM exits 0."""
    server = ImageServer(IMAGE, EXAMPLES, tmp_path / "inferd.log")
    try:
        http_port, grpc_port = server.http_port, server.grpc_port
        index = requests.post(f"http://127.0.0.1:{http_port}/v2/repository/index", timeout=5).json()
        expected = {p.name for p in EXAMPLES.iterdir() if p.is_dir()}
        assert {m["name"] for m in index if m.get("state") == "READY"} == expected

        a = np.arange(16, dtype=np.int32).reshape(1, 16)
        b = np.ones((1, 16), dtype=np.int32)
        http = httpclient.InferenceServerClient(f"127.0.0.1:{http_port}")
        inputs = [httpclient.InferInput("INPUT0", [1, 16], "INT32"),
                  httpclient.InferInput("INPUT1", [1, 16], "INT32")]
        inputs[0].set_data_from_numpy(a)
        inputs[1].set_data_from_numpy(b)
        result = http.infer("simple", inputs)
        np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a + b)

        grpc = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc_port}")
        ginputs = [grpcclient.InferInput("INPUT0", [1, 16], "INT32"),
                   grpcclient.InferInput("INPUT1", [1, 16], "INT32")]
        ginputs[0].set_data_from_numpy(a)
        ginputs[1].set_data_from_numpy(b)
        np.testing.assert_array_equal(grpc.infer("simple", ginputs).as_numpy("OUTPUT1"), a - b)

        probabilities = httpclient.InferInput("probabilities", [1, 2], "FP32")
        probabilities.set_data_from_numpy(np.array([[0.2, 0.8]], dtype=np.float32))
        score = http.infer("ocr_cls_label", [probabilities]).as_numpy("score")
        np.testing.assert_allclose(score.reshape(-1), [0.8])

        # The image's HEALTHCHECK, run as Docker would run it in the container, pointed
        # at this test's port instead of the default 8000.
        test = image_config["Docker"]["config"]["Healthcheck"]["Test"]
        assert test[0] == "CMD" and any(":8000/" in part for part in test)
        probe = [part.replace(":8000/", f":{http_port}/") for part in test[1:]]
        assert subprocess.run(buildah_run(server.container, *probe),
                              capture_output=True).returncode == 0
    finally:
        code = server.stop()
    assert code == 0, f"exit status {code}:\n{server.output()}"


@pytest.mark.timeout(300)
def test_libtorch_image_serves_a_torchscript_model(tmp_path):
    """inferd:<version>-libtorch (`make image-libtorch`, not built by `make test-deploy`:
    Debian's libtorch brings OpenCV, FFmpeg and Qt, about 750 MB more) loads a TorchScript
    model made by python3-torch and answers it."""
    image = f"{IMAGE}-libtorch"
    if subprocess.run(["buildah", "inspect", "--type", "image", image],
                      capture_output=True).returncode != 0:
        pytest.skip(f"{image} is not built (make image-libtorch)")
    subprocess.run(["/usr/bin/python3", str(ROOT / "tests" / "integration" / "make_torch_models.py"),
                    str(tmp_path / "torch")], check=True, capture_output=True)
    repo = tmp_path / "models"
    repo.mkdir()
    shutil.copytree(tmp_path / "torch" / "models" / "add_sub", repo / "add_sub")
    server = ImageServer(image, repo, tmp_path / "inferd.log")
    try:
        a = np.linspace(-1, 1, 16, dtype=np.float32)
        b = np.full(16, 0.5, dtype=np.float32)
        http = httpclient.InferenceServerClient(f"127.0.0.1:{server.http_port}")
        inputs = [httpclient.InferInput("INPUT__0", [16], "FP32"),
                  httpclient.InferInput("INPUT__1", [16], "FP32")]
        inputs[0].set_data_from_numpy(a)
        inputs[1].set_data_from_numpy(b)
        result = http.infer("add_sub", inputs)
        np.testing.assert_allclose(result.as_numpy("OUTPUT__0"), a + b)
        np.testing.assert_allclose(result.as_numpy("OUTPUT__1"), a - b)
    finally:
        code = server.stop()
    assert code == 0, f"exit status {code}:\n{server.output()}"
