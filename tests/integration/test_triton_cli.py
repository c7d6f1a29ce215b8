# SPDX-License-Identifier: Apache-2.0
"""Triton's command line on `inferd serve` and the `tritonserver` symlink
(docs/configuration.md, "Triton's command line"): --flag=value syntax,
--id in server metadata over HTTP and gRPC, refused flags, flags without
effect, and the Python interpreter default (INFERD_PYTHON, --python, the
first python3 on PATH with numpy)."""
import os
import pathlib
import re
import shutil
import subprocess

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from conftest import BACKENDS, BINARY, EXAMPLES, RunningServer, free_ports

TRITONSERVER = BINARY.parent / "tritonserver"


@pytest.fixture
def simple_repo(tmp_path):
    repo = tmp_path / "models"
    repo.mkdir()
    shutil.copytree(EXAMPLES / "simple", repo / "simple")
    return repo


class TritonStyleServer(RunningServer):
    """RunningServer with the caller's whole command line: Triton's
    `--flag=value` spelling, any program (inferd or tritonserver), any env."""

    def __init__(self, program, flags, log_path, env=None, wait_models=True):
        self.wait_models = wait_models
        self.expected_exit = 0
        self.http_port, self.grpc_port, self.metrics_port = free_ports(3)
        args = [str(program)]
        if program == BINARY:
            args.append("serve")
        args += [f"--http-port={self.http_port}", f"--grpc-port={self.grpc_port}",
                 f"--metrics-port={self.metrics_port}", "--http-address=127.0.0.1",
                 "--grpc-address=127.0.0.1", f"--backend-directory={BACKENDS}"] + list(flags)
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.http_url = f"127.0.0.1:{self.http_port}"
        self.grpc_url = f"127.0.0.1:{self.grpc_port}"
        self.metrics_url = f"127.0.0.1:{self.metrics_port}"

    def wait(self):
        self._wait_live()
        return self


@pytest.fixture
def triton_server(tmp_path):
    started = []

    def start(flags, program=TRITONSERVER, env=None, wait=True):
        running = TritonStyleServer(program, flags, tmp_path / f"server{len(started)}.log", env)
        started.append(running)
        return running.wait() if wait else running

    yield start
    for running in started:
        assert running.stop() == running.expected_exit, running.output()


def infer_simple(module, url):
    client = module.InferenceServerClient(url)
    a = np.arange(16, dtype=np.int32).reshape(1, 16)
    inputs = [module.InferInput("INPUT0", [1, 16], "INT32"),
              module.InferInput("INPUT1", [1, 16], "INT32")]
    inputs[0].set_data_from_numpy(a)
    inputs[1].set_data_from_numpy(np.ones_like(a))
    result = client.infer("simple", inputs)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), a + 1)


def test_tritonserver_symlink_sits_beside_inferd():
    assert TRITONSERVER.is_symlink(), f"{TRITONSERVER} is missing: build the inferd target"
    assert TRITONSERVER.resolve() == BINARY.resolve()


def test_a_triton_deployment_command_line(triton_server, simple_repo):
    """The flags a Triton manifest passes, each as --flag=value, through the
    tritonserver symlink."""
    server = triton_server([
        f"--model-store={simple_repo}", "--id=edge-triton-7", "--allow-http=true",
        "--allow-grpc=1", "--allow-metrics=false", "--http-thread-count=2",
        "--model-control-mode=EXPLICIT", "--load-model=simple", "--repository-poll-secs=5",
        "--strict-model-config=false", "--strict-readiness=true", "--exit-on-error=true",
        "--exit-timeout-secs=5", "--log-verbose=0", "--log-info=true", "--log-warning=true",
        "--log-error=true", "--log-format=ISO8601", "--model-load-thread-count=2",
        "--backend-config=onnxruntime,intra_op_thread_count=1",
        "--backend-config=default-max-batch-size=8", "--buffer-manager-thread-count=2",
        "--pinned-memory-pool-byte-size=268435456", "--cuda-memory-pool-byte-size=0:67108864",
    ])
    assert requests.get(f"http://{server.http_url}/v2/health/ready", timeout=5).status_code == 200
    assert requests.get(f"http://{server.http_url}/v2", timeout=5).json()["name"] == "edge-triton-7"
    grpc = grpcclient.InferenceServerClient(server.grpc_url)
    assert grpc.get_server_metadata().name == "edge-triton-7"
    infer_simple(httpclient, server.http_url)
    infer_simple(grpcclient, server.grpc_url)
    with pytest.raises(requests.ConnectionError):  # --allow-metrics=false
        requests.get(f"http://{server.metrics_url}/metrics", timeout=2)
    log = server.output()
    for flag in ("--buffer-manager-thread-count=2", "--pinned-memory-pool-byte-size=268435456",
                 "--cuda-memory-pool-byte-size=0:67108864"):
        assert re.search(re.escape(flag) + r" has no effect", log), log
    # --log-format=ISO8601: Triton's layout, "<UTC time>Z <level letter> <pid>] <message>".
    assert re.search(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ I \d+\] ", log, re.MULTILINE), log


def test_inferd_serve_takes_the_same_flags(triton_server, simple_repo):
    server = triton_server([f"--model-repository={simple_repo}", "--id=from-inferd"],
                           program=BINARY)
    assert requests.get(f"http://{server.http_url}/v2", timeout=5).json()["name"] == "from-inferd"


def test_server_name_is_tritons_by_default(server):
    assert requests.get(f"http://{server.http_url}/v2", timeout=5).json()["name"] == "triton"
    assert grpcclient.InferenceServerClient(server.grpc_url).get_server_metadata().name == "triton"


def test_allow_http_false_keeps_grpc_and_metrics(triton_server, simple_repo):
    server = TritonStyleServer(TRITONSERVER, [f"--model-repository={simple_repo}",
                                              "--allow-http=false"],
                               simple_repo.parent / "nohttp.log")
    try:
        grpc = grpcclient.InferenceServerClient(server.grpc_url)
        deadline_ok = False
        for _ in range(200):
            try:
                deadline_ok = grpc.is_server_ready()
            except Exception:  # noqa: BLE001 - not listening yet
                deadline_ok = False
            if deadline_ok:
                break
            subprocess.run(["sleep", "0.05"], check=True)
        assert deadline_ok, server.output()
        infer_simple(grpcclient, server.grpc_url)
        assert requests.get(f"http://{server.metrics_url}/metrics", timeout=5).status_code == 200
        with pytest.raises(requests.ConnectionError):
            requests.get(f"http://{server.http_url}/v2", timeout=2)
    finally:
        assert server.stop() == 0, server.output()


def test_allow_grpc_false(triton_server, simple_repo):
    server = triton_server([f"--model-repository={simple_repo}", "--allow-grpc=off"])
    infer_simple(httpclient, server.http_url)
    with pytest.raises(Exception):
        grpcclient.InferenceServerClient(server.grpc_url).is_server_live(client_timeout=2)


REFUSED = [
    (["--backend-config=onnxruntime,enable-global-threadpool=1"], "has no effect in inferd"),
    (["--backend-config=python,shm_region=1"], "has no setting 'shm_region'"),
    (["--backend-config=onnxruntime"], "expected <backend>,<key>=<value>"),
    (["--backend-config=min-compute-capability=6.0"], "no such global backend setting"),
    (["--log-warning=false"], "from the bottom up"),
    (["--log-level=debug", "--log-verbose=1"], "give one or the other"),
    (["--log-format=json"], "expected default or ISO8601"),
    (["--allow-http=maybe"], "is not a boolean"),
    (["--cuda-memory-pool-byte-size=67108864"], "<GPU device>:<bytes>"),
    (["--model-control-mode=sometimes"], "--model-control-mode"),
    (["--grpc-use-ssl=true"], "--grpc-use-ssl"),  # a Triton flag inferd does not have
]


@pytest.mark.parametrize("flags,message", REFUSED, ids=[f[0][-1] for f in REFUSED])
def test_refused_flags_exit_with_the_reason(simple_repo, flags, message):
    # --backend-directory is checked too: the conftest one is real.
    done = subprocess.run([str(TRITONSERVER), f"--model-repository={simple_repo}",
                           f"--backend-directory={BACKENDS}", "--http-port=0", "--grpc-port=0",
                           "--metrics-port=0", *flags],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert message in done.stdout + done.stderr, done.stdout + done.stderr


def test_tritons_backend_directory_is_refused(simple_repo, tmp_path):
    triton_backends = tmp_path / "tritonserver" / "backends"
    (triton_backends / "onnxruntime").mkdir(parents=True)
    (triton_backends / "onnxruntime" / "libtriton_onnxruntime.so").write_bytes(b"")
    done = subprocess.run([str(TRITONSERVER), f"--model-repository={simple_repo}",
                           f"--backend-directory={triton_backends}"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "Triton's backends (libtriton_*.so), which inferd cannot load" in done.stderr
    done = subprocess.run([str(TRITONSERVER), f"--model-repository={simple_repo}",
                           f"--backend-directory={tmp_path / 'none'}"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "no such folder" in done.stderr


def test_exit_on_error(simple_repo, triton_server):
    broken = simple_repo / "broken"
    (broken / "1").mkdir(parents=True)
    (broken / "config.pbtxt").write_text('backend: "onnxruntime"\nnot_a_field: 1\n')
    server = triton_server([f"--model-repository={simple_repo}", "--exit-on-error=true"],
                           wait=False)
    server.expected_exit = 1
    assert server.process.wait(timeout=60) == 1, server.output()
    assert "--exit-on-error: a start-up model failed to load" in server.output()
    # Without it (inferd's default) the good model serves beside the broken one.
    serving = triton_server([f"--model-repository={simple_repo}", "--strict-readiness=false"])
    infer_simple(httpclient, serving.http_url)


def test_default_max_batch_size(triton_server, tmp_path):
    repo = tmp_path / "autocomplete"
    repo.mkdir()
    shutil.copytree(EXAMPLES / "ocr_cls", repo / "ocr_cls")  # no config.pbtxt: auto-completed
    server = triton_server([f"--model-repository={repo}", "--backend-config=default-max-batch-size=8"])
    config = requests.get(f"http://{server.http_url}/v2/models/ocr_cls/config", timeout=5).json()
    assert config["max_batch_size"] == 8
    server = triton_server([f"--model-repository={repo}",
                            "--backend-config=onnxruntime,default-max-batch-size=2"])
    config = requests.get(f"http://{server.http_url}/v2/models/ocr_cls/config", timeout=5).json()
    assert config["max_batch_size"] == 2


# --- the Python interpreter default --------------------------------------------------------

@pytest.fixture
def python_repo(tmp_path):
    repo = tmp_path / "python_models"
    repo.mkdir()
    shutil.copytree(EXAMPLES / "ocr_cls_label", repo / "ocr_cls_label")
    return repo


@pytest.fixture
def path_without_numpy_first(tmp_path):
    """PATH led by a python3 whose `import numpy` fails (pyenv's or conda's
    base without numpy, as on this machine), and no INFERD_PYTHON."""
    fake = tmp_path / "fakebin"
    fake.mkdir()
    script = fake / "python3"
    script.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named numpy' >&2\nexit 1\n")
    script.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "INFERD_PYTHON"}
    env["PATH"] = f"{fake}:{env.get('PATH', '/usr/bin:/bin')}"
    return env, str(script)


def label(server):
    client = httpclient.InferenceServerClient(server.http_url)
    probabilities = httpclient.InferInput("probabilities", [1, 2], "FP32")
    probabilities.set_data_from_numpy(np.array([[0.2, 0.8]], dtype=np.float32))
    result = client.infer("ocr_cls_label", [probabilities])
    assert result.as_numpy("angle").reshape(-1)[0] == b"180"


def test_python_models_find_an_interpreter_with_numpy(triton_server, python_repo,
                                                      path_without_numpy_first):
    env, fake = path_without_numpy_first
    server = triton_server([f"--model-repository={python_repo}"], env=env)
    label(server)
    log = server.output()
    chosen = [line for line in log.splitlines() if "without EXECUTION_ENV_PATH run on" in line]
    assert len(chosen) == 1, log  # chosen and logged once
    assert "the first python3 on PATH that can import numpy" in chosen[0], chosen[0]
    assert f"without numpy: {fake}" in chosen[0], chosen[0]


def test_worker_processes_show_model_and_instance(triton_server, python_repo):
    server = triton_server([f"--model-repository={python_repo}"])
    workers = []
    for proc in pathlib.Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            comm = (proc / "comm").read_text().strip()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == server.process.pid and b"inferd_python_worker" in cmdline:
            workers.append((cmdline, comm))
    assert len(workers) == 1, workers
    cmdline, comm = workers[0]
    text = b" ".join(cmdline).decode()
    assert "--model ocr_cls_label --version 1 --instance 0" in text, text
    assert comm == "ocr_cls_label#0"


def test_python_flag_and_backend_config(triton_server, python_repo, path_without_numpy_first,
                                        tmp_path):
    env, _ = path_without_numpy_first
    # A wrapper around Debian's python3, to see that the flag's interpreter is the one used.
    wrapper = tmp_path / "chosen" / "python3"
    wrapper.parent.mkdir()
    wrapper.write_text("#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n")
    wrapper.chmod(0o755)
    for flag in (f"--python={wrapper}", f"--backend-config=python,interpreter={wrapper}"):
        server = triton_server([f"--model-repository={python_repo}", flag,
                                "--backend-config=python,shm-default-byte-size=2097152",
                                "--backend-config=python,stub-timeout-seconds=60"], env=env)
        label(server)
        assert f"run on {wrapper}: from --python" in server.output()
    # INFERD_PYTHON wins over the flag.
    server = triton_server([f"--model-repository={python_repo}", "--python=/nonexistent/python3"],
                           env=dict(env, INFERD_PYTHON=str(wrapper)))
    label(server)
    assert f"run on {wrapper}: from the INFERD_PYTHON environment variable" in server.output()
