# SPDX-License-Identifier: Apache-2.0
"""End to end: `python -m inferd_python.worker` on a socket pair (fd 3) with
a memfd region, driven like the server drives it (pyworker_wire)."""
import json
import os
import pathlib
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import pyworker_wire as wire
from pyworker_wire import Req, tensor_in

TIMEOUT_S = 30
PYTHON_DIR = pathlib.Path(__file__).resolve().parents[2] / "python"


def worker_interpreters() -> list:
    """This interpreter and, when it differs and has numpy, Debian's
    /usr/bin/python3 (numpy 1.24), which the server starts in production."""
    interpreters = [sys.executable]
    system = "/usr/bin/python3"
    if os.path.exists(system) and system != sys.executable:
        if subprocess.run([system, "-c", "import numpy"], capture_output=True).returncode == 0:
            interpreters.append(system)
    return interpreters


def worker_environment() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["PYTHONPATH"] = str(PYTHON_DIR)
    env["INFERD_PYTHON_CONTROL_FD"] = "3"
    return env


class WorkerProcess:
    """A worker started the way the server starts it: its end of a socket
    pair as fd 3, stdout/stderr to files."""

    def __init__(self, python: str, folder: pathlib.Path) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        ours.settimeout(TIMEOUT_S)
        self.stdout_path = folder / "worker.stdout"
        self.stderr_path = folder / "worker.stderr"
        if theirs.fileno() == 3:
            os.set_inheritable(3, True)  # dup2(3, 3) would leave close-on-exec set
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        self.pid = os.posix_spawn(python, [python, "-m", "inferd_python_worker"], worker_environment(), file_actions=[
            (os.POSIX_SPAWN_DUP2, theirs.fileno(), 3),
            (os.POSIX_SPAWN_OPEN, 1, str(self.stdout_path), flags, 0o644),
            (os.POSIX_SPAWN_OPEN, 2, str(self.stderr_path), flags, 0o644),
        ])
        theirs.close()
        self.server = wire.ServerEnd(ours)
        self.status = None

    def wait(self, timeout: float = TIMEOUT_S):
        """The exit status, or None if still running after `timeout`."""
        deadline = time.monotonic() + timeout
        while self.status is None and time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
            else:
                time.sleep(0.02)
        return self.status

    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def stdout(self) -> str:
        return self.stdout_path.read_text()

    def stop(self) -> None:
        self.server.sock.close()
        if self.wait(5) is None:
            os.kill(self.pid, 9)
            self.wait()


@pytest.fixture(params=worker_interpreters())
def python(request):
    return request.param


@pytest.fixture
def start(tmp_path, python):
    """start(model_source, config=None) -> (worker, model_file): a worker
    running `python` with model.py written to a fresh folder."""
    workers = []

    def make(model_source: str, folder_name: str = "model_folder"):
        folder = tmp_path / folder_name
        folder.mkdir()
        model_file = folder / "model.py"
        model_file.write_text(textwrap.dedent(model_source))
        worker = WorkerProcess(python, tmp_path)
        workers.append(worker)
        return worker, model_file

    yield make
    for worker in workers:
        worker.stop()


def init_payload(model_file: pathlib.Path, config: dict, protocol: int = 2, decoupled: bool = False) -> dict:
    name = config["name"]
    folder = str(model_file.parent)
    return {
        "protocol": protocol,
        "decoupled": decoupled,
        "model_file": str(model_file),
        "model_directory": folder,
        "args": {
            "model_config": json.dumps(config),
            "model_instance_kind": "CPU",
            "model_instance_name": f"{name}_0",
            "model_instance_device_id": "0",
            "model_repository": folder,
            "model_version": "1",
            "model_name": name,
        },
        "log_prefix": f"[{name}_0] ",
    }


def initialize(worker: WorkerProcess, model_file: pathlib.Path, config: dict) -> dict:
    worker.server.send_json(wire.INIT, init_payload(model_file, config))
    kind, payload = worker.server.receive()
    assert kind == wire.READY, wire.parse_error(payload) if kind == wire.ERROR else kind
    return json.loads(payload)


def execute(worker: WorkerProcess, requests, output_offset=0, output_size=0):
    worker.server.send(wire.EXECUTE, wire.execute_payload(requests, output_offset, output_size))
    return worker.server.receive()


def execute_ok(worker, requests, output_offset=0, output_size=0):
    kind, payload = execute(worker, requests, output_offset, output_size)
    assert kind == wire.RESULT, wire.parse_error(payload) if kind == wire.ERROR else kind
    return wire.parse_result(payload)


def execute_error(worker, requests):
    kind, payload = execute(worker, requests)
    assert kind == wire.ERROR
    return wire.parse_error(payload)


def finalize(worker: WorkerProcess) -> None:
    worker.server.send(wire.FINALIZE)
    assert worker.server.receive() == (wire.FINALIZED, b"")
    assert worker.wait() == 0


ADD_SUB = """\
    import json

    import numpy as np
    import triton_python_backend_utils as pb_utils


    class TritonPythonModel:
        def initialize(self, args):
            self.model_config = json.loads(args["model_config"])
            output0 = pb_utils.get_output_config_by_name(self.model_config, "OUTPUT0")
            self.dtype = pb_utils.triton_string_to_numpy(output0["data_type"])
            pb_utils.Logger.log_info("initialized " + args["model_name"] + " " + args["model_instance_name"])

        def execute(self, requests):
            responses = []
            for request in requests:
                a = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
                b = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
                responses.append(pb_utils.InferenceResponse(output_tensors=[
                    pb_utils.Tensor("OUTPUT0", (a + b).astype(self.dtype)),
                    pb_utils.Tensor("OUTPUT1", (a - b).astype(self.dtype)),
                ]))
            return responses

        def finalize(self):
            print("finalized add_sub")
    """

ADD_SUB_CONFIG = {
    "name": "add_sub",
    "max_batch_size": 0,
    "input": [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [4]},
              {"name": "INPUT1", "data_type": "TYPE_FP32", "dims": [4]}],
    "output": [{"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [4]},
               {"name": "OUTPUT1", "data_type": "TYPE_FP32", "dims": [4]}],
}


def test_add_sub_region_and_inline(start):
    worker, model_file = start(ADD_SUB)
    ready = initialize(worker, model_file, ADD_SUB_CONFIG)
    assert ready["pid"] == worker.pid
    assert isinstance(ready["python"], str) and ready["python"]
    region = worker.server.new_region(1 << 20)

    a0, b0 = np.array([1, 2, 3, 4], dtype=np.float32), np.array([10, 20, 30, 40], dtype=np.float32)
    a1, b1 = np.array([5, 5, 5, 5], dtype=np.float32), np.array([1, 2, 3, 4], dtype=np.float32)
    x0 = tensor_in("INPUT0", a0, "FP32", offset=0)
    y0 = tensor_in("INPUT1", b0, "FP32", offset=64)
    worker.server.write(0, x0.data)
    worker.server.write(64, y0.data)
    requests = [Req([x0, y0], ["OUTPUT0", "OUTPUT1"]),
                Req([tensor_in("INPUT0", a1, "FP32"), tensor_in("INPUT1", b1, "FP32")], ["OUTPUT1"])]
    for _ in range(2):  # the same blocks again: nothing is left over from the first run
        used, responses = execute_ok(worker, requests, output_offset=4096, output_size=4096)
        assert [(o.name, o.location, o.offset, o.byte_size) for o in responses[0].outputs] == \
            [("OUTPUT0", 0, 4096, 16), ("OUTPUT1", 0, 4160, 16), ]
        assert [(o.name, o.location, o.offset) for o in responses[1].outputs] == [("OUTPUT1", 0, 4224)]
        assert used == 4224 + 16 - 4096
        np.testing.assert_array_equal(responses[0].output("OUTPUT0").value(region), a0 + b0)
        np.testing.assert_array_equal(responses[0].output("OUTPUT1").value(region), a0 - b0)
        np.testing.assert_array_equal(responses[1].output("OUTPUT1").value(region), a1 - b1)
        assert responses[0].output("OUTPUT0").dims == [4]

    finalize(worker)
    assert "finalized add_sub" in worker.stdout()
    assert "[add_sub_0] [info] initialized add_sub add_sub_0" in worker.stderr()


def test_outputs_inline_without_region_or_room(start):
    worker, model_file = start(ADD_SUB)
    initialize(worker, model_file, ADD_SUB_CONFIG)
    ones = np.ones(4, dtype=np.float32)
    request = [Req([tensor_in("INPUT0", ones, "FP32"), tensor_in("INPUT1", ones, "FP32")], ["OUTPUT0", "OUTPUT1"])]
    used, (response,) = execute_ok(worker, request)  # no REGION yet: all inline
    assert used == 0
    assert [o.location for o in response.outputs] == [1, 1]
    np.testing.assert_array_equal(response.output("OUTPUT0").value(), 2 * ones)

    worker.server.new_region(4096)
    used, (response,) = execute_ok(worker, request, output_offset=1024, output_size=20)  # room for one
    assert [(o.location, o.offset) for o in response.outputs] == [(0, 1024), (1, None)]
    assert used == 16
    used, (response,) = execute_ok(worker, request, output_offset=1024, output_size=0)  # no range
    assert used == 0 and [o.location for o in response.outputs] == [1, 1]
    finalize(worker)


ECHO = """\
    import triton_python_backend_utils as pb_utils


    class TritonPythonModel:
        def execute(self, requests):
            return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT_" + t.name(), t.as_numpy().copy())
                                                for t in request.inputs()])
                    for request in requests]
    """

ECHO_SAMPLES = {
    "BOOL": np.array([[True, False], [False, True]]),
    "UINT8": np.array([0, 255], dtype=np.uint8),
    "UINT16": np.array([1, 65535], dtype=np.uint16),
    "UINT32": np.array([2**32 - 1], dtype=np.uint32),
    "UINT64": np.array([2**64 - 1], dtype=np.uint64),
    "INT8": np.array([-128], dtype=np.int8),
    "INT16": np.array([-32768], dtype=np.int16),
    "INT32": np.array([[-1], [2]], dtype=np.int32),
    "INT64": np.array([-(2**63)], dtype=np.int64),
    "FP16": np.array([0.5, -2.0], dtype=np.float16),
    "FP32": np.arange(6, dtype=np.float32).reshape(1, 2, 3),
    "FP64": np.array(1e300, dtype=np.float64),
    "BYTES": np.array([[b"hello", b""], [b"\x00\x01", "\u00e9".encode()]], dtype=object),
    "BF16": np.array([0x3F80, 0x4000], dtype=np.uint16),
}
ECHO_CONFIG = {
    "name": "echo",
    "input": [{"name": d, "data_type": "TYPE_STRING" if d == "BYTES" else "TYPE_" + d, "dims": [-1]}
              for d in ECHO_SAMPLES],
    "output": [{"name": "OUT_" + d, "data_type": "TYPE_STRING" if d == "BYTES" else "TYPE_" + d, "dims": [-1]}
               for d in ECHO_SAMPLES],
}


def test_echo_every_datatype_inline_and_in_region(start):
    worker, model_file = start(ECHO)
    initialize(worker, model_file, ECHO_CONFIG)
    region = worker.server.new_region(1 << 16)
    inline = [tensor_in(d, x, d) for d, x in ECHO_SAMPLES.items()]
    in_region = []
    offset = 0
    for d, x in ECHO_SAMPLES.items():
        tensor = tensor_in(d, x, d, offset=offset)
        worker.server.write(offset, tensor.data)
        in_region.append(tensor)
        offset += len(tensor.data) + 3  # unaligned on purpose
    names = ["OUT_" + d for d in ECHO_SAMPLES]
    used, responses = execute_ok(worker, [Req(inline, names), Req(in_region, names)], 32768, 32768)
    for response in responses:
        assert [o.name for o in response.outputs] == names
        for d, x in ECHO_SAMPLES.items():
            out = response.output("OUT_" + d)
            assert out.datatype == d
            assert out.location == 0
            assert out.dims == list(x.shape)
            if d == "BYTES":
                assert out.value(region) == x.ravel().tolist()
            else:
                np.testing.assert_array_equal(out.value(region), x)
    assert 0 < used <= 32768
    finalize(worker)


def test_new_region_replaces_the_old_one(start):
    worker, model_file = start(ECHO)
    initialize(worker, model_file, ECHO_CONFIG)
    first = worker.server.new_region(4096)
    x = tensor_in("INT32", np.array([1, 2], dtype=np.int32), "INT32", offset=128)
    worker.server.write(128, x.data)
    _, (response,) = execute_ok(worker, [Req([x], ["OUT_INT32"])], 1024, 1024)
    np.testing.assert_array_equal(response.output("OUT_INT32").value(first), [1, 2])

    second = worker.server.new_region(8192)
    y = tensor_in("INT32", np.array([7, 8, 9], dtype=np.int32), "INT32", offset=128)
    worker.server.write(128, y.data)
    first[128:140] = b"\xff" * 12  # the old region is no longer read
    _, (response,) = execute_ok(worker, [Req([y], ["OUT_INT32"])], 4096, 4096)
    out = response.output("OUT_INT32")
    assert out.offset == 4096
    np.testing.assert_array_equal(out.value(second), [7, 8, 9])
    finalize(worker)


def test_initialize_raising_is_unavailable(start):
    worker, model_file = start("""\
        class TritonPythonModel:
            def initialize(self, args):
                path = args["model_repository"] + "/weights.bin"
                raise ValueError("bad path " + path)

            def execute(self, requests):
                return []
        """)
    worker.server.send_json(wire.INIT, init_payload(model_file, ADD_SUB_CONFIG))
    kind, payload = worker.server.receive()
    assert kind == wire.ERROR
    code, message = wire.parse_error(payload)
    assert code == wire.UNAVAILABLE
    assert message == f"initialize() raised ValueError: bad path {model_file.parent}/weights.bin (model.py, line 4)"
    worker.server.sock.close()
    assert worker.wait() == 0


def test_syntax_error_names_the_line(start):
    worker, model_file = start("""\
        import numpy

        class TritonPythonModel
            pass
        """)
    worker.server.send_json(wire.INIT, init_payload(model_file, ADD_SUB_CONFIG))
    kind, payload = worker.server.receive()
    assert kind == wire.ERROR
    code, message = wire.parse_error(payload)
    assert code == wire.UNAVAILABLE
    assert message.startswith(f"importing {model_file} raised SyntaxError:")
    assert "(model.py, line 3)" in message


def test_model_without_execute_is_unavailable(start):
    worker, model_file = start("class TritonPythonModel:\n    pass\n")
    worker.server.send_json(wire.INIT, init_payload(model_file, ADD_SUB_CONFIG))
    kind, payload = worker.server.receive()
    assert (kind, *wire.parse_error(payload)) == \
        (wire.ERROR, wire.UNAVAILABLE, f"TritonPythonModel in {model_file} has no execute() method")


def test_protocol_mismatch_is_unavailable(start):
    worker, model_file = start(ADD_SUB)
    worker.server.send_json(wire.INIT, init_payload(model_file, ADD_SUB_CONFIG, protocol=1))
    kind, payload = worker.server.receive()
    assert kind == wire.ERROR
    code, message = wire.parse_error(payload)
    assert code == wire.UNAVAILABLE and "protocol 1" in message


MODES = """\
    import numpy as np
    import triton_python_backend_utils as pb_utils


    def fail():
        raise RuntimeError("boom")


    class TritonPythonModel:
        def execute(self, requests):
            mode = int(pb_utils.get_input_tensor_by_name(requests[0], "MODE").as_numpy()[0])
            if mode == 1:
                fail()
            responses = [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([mode], dtype=np.int32))])
                         for _ in requests]
            if mode == 2:
                return responses[:-1]
            if mode == 3:
                return responses[:-1] + ["not a response"]
            if mode == 4:
                return None
            if mode == 5:
                responses[-1] = pb_utils.InferenceResponse(
                    error=pb_utils.TritonError("no such key", pb_utils.TritonError.NOT_FOUND))
            if mode == 6:
                responses[-1] = pb_utils.InferenceResponse(error=pb_utils.TritonError("plain"))
            return responses
    """


def mode_requests(mode: int, count: int = 2):
    return [Req([tensor_in("MODE", np.array([mode], dtype=np.int32), "INT32")], ["OUT"]) for _ in range(count)]


def test_execute_failures_fail_the_batch_and_the_worker_goes_on(start):
    worker, model_file = start(MODES)
    initialize(worker, model_file, {"name": "modes"})
    assert execute_error(worker, mode_requests(1)) == \
        (wire.INTERNAL, "execute() raised RuntimeError: boom (model.py, line 6)")
    assert execute_error(worker, mode_requests(2)) == \
        (wire.INTERNAL, "execute() returned 1 response for 2 requests")
    assert execute_error(worker, mode_requests(2, count=4)) == \
        (wire.INTERNAL, "execute() returned 3 responses for 4 requests")
    assert execute_error(worker, mode_requests(3)) == \
        (wire.INTERNAL, "execute() returned a str as response 1, not an InferenceResponse")
    assert execute_error(worker, mode_requests(4)) == \
        (wire.INTERNAL, "execute() returned NoneType, expected a list of 2 InferenceResponses")
    _, responses = execute_ok(worker, mode_requests(0))  # still serving
    assert [r.output("OUT").value().tolist() for r in responses] == [[0], [0]]
    finalize(worker)


def test_error_responses_fail_only_their_request(start):
    worker, model_file = start(MODES)
    initialize(worker, model_file, {"name": "modes"})
    _, responses = execute_ok(worker, mode_requests(5))
    assert responses[0].error is None and responses[0].output("OUT").value().tolist() == [5]
    assert responses[1].error == (wire.NOT_FOUND, "no such key")
    _, responses = execute_ok(worker, mode_requests(6, count=1))
    assert responses[0].error == (wire.INTERNAL, "plain")
    finalize(worker)


def test_malformed_execute_is_an_internal_error(start):
    worker, model_file = start(MODES)
    initialize(worker, model_file, {"name": "modes"})
    worker.server.send(wire.EXECUTE, wire.execute_payload(mode_requests(0))[:-3])
    kind, payload = worker.server.receive()
    assert kind == wire.ERROR and wire.parse_error(payload)[0] == wire.INTERNAL
    assert "malformed EXECUTE" in wire.parse_error(payload)[1]
    execute_ok(worker, mode_requests(0))
    finalize(worker)


def test_finalize_error_is_logged_not_fatal(start):
    worker, model_file = start("""\
        class TritonPythonModel:
            def execute(self, requests):
                return []

            def finalize(self):
                raise OSError("disk gone")
        """)
    initialize(worker, model_file, {"name": "fin"})
    finalize(worker)
    assert "[fin_0] [error] finalize() raised OSError: disk gone (model.py, line 6)" in worker.stderr()


def test_worker_exits_when_the_socket_closes(start):
    worker, model_file = start(ADD_SUB)
    initialize(worker, model_file, ADD_SUB_CONFIG)
    worker.server.sock.close()
    assert worker.wait(10) == 0


def test_unknown_message_type_ends_the_worker(start):
    worker, model_file = start(ADD_SUB)
    initialize(worker, model_file, ADD_SUB_CONFIG)
    worker.server.send(77, b"")
    assert worker.wait(10) == 1
    assert "unknown message type 77" in worker.stderr()


AUTO_COMPLETE = """\
    import triton_python_backend_utils as pb_utils


    class TritonPythonModel:
        @staticmethod
        def auto_complete_config(auto_complete_model_config):
            auto_complete_model_config.add_input({"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [4]})
            auto_complete_model_config.add_output({"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [4]})
            auto_complete_model_config.set_max_batch_size(8)
            auto_complete_model_config.set_dynamic_batching()
            return auto_complete_model_config

        def execute(self, requests):
            return []
    """


def auto_complete(worker, model_file, config):
    worker.server.send_json(wire.AUTO_COMPLETE, {"model_file": str(model_file),
                                                 "model_directory": str(model_file.parent), "config": config})
    return worker.server.receive()


def test_auto_complete_fills_the_config(start):
    worker, model_file = start(AUTO_COMPLETE)
    kind, payload = auto_complete(worker, model_file, {"name": "ac", "max_batch_size": 0, "input": [], "output": []})
    assert kind == wire.CONFIG
    config = json.loads(payload)["config"]
    assert config["name"] == "ac"
    assert config["input"] == [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [4]}]
    assert config["output"] == [{"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [4]}]
    assert config["max_batch_size"] == 8
    assert config["dynamic_batching"] == {}
    worker.server.sock.close()
    assert worker.wait(10) == 0


def test_auto_complete_conflict_is_an_error(start):
    worker, model_file = start(AUTO_COMPLETE)
    config = {"name": "ac", "max_batch_size": 0, "output": [],
              "input": [{"name": "INPUT0", "data_type": "TYPE_INT64", "dims": [4]}]}
    kind, payload = auto_complete(worker, model_file, config)
    assert kind == wire.ERROR
    code, message = wire.parse_error(payload)
    assert code == wire.UNAVAILABLE
    assert message.startswith("auto_complete_config() raised ValueError: ")
    assert "TYPE_INT64" in message and "(model.py, line 7)" in message


def test_auto_complete_without_the_method_returns_the_config(start):
    worker, model_file = start("class TritonPythonModel:\n    def execute(self, requests):\n        return []\n")
    config = {"name": "plain", "max_batch_size": 2, "input": [{"name": "X", "data_type": "TYPE_FP32", "dims": [1]}]}
    kind, payload = auto_complete(worker, model_file, config)
    assert kind == wire.CONFIG
    assert json.loads(payload)["config"] == dict(config, output=[])


SPAWN_THEN_WAIT = """\
import os, sys
fd = int(sys.argv[1])
os.set_inheritable(fd, True)
flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
pid = os.posix_spawn(sys.executable, [sys.executable, "-m", "inferd_python_worker"], dict(os.environ),
                     file_actions=[(os.POSIX_SPAWN_DUP2, fd, 3),
                                   (os.POSIX_SPAWN_OPEN, 1, sys.argv[2], flags, 0o644),
                                   (os.POSIX_SPAWN_OPEN, 2, sys.argv[2], flags, 0o644)])
print(pid, flush=True)
sys.stdin.read()  # stays the worker's parent until the test closes stdin
"""


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def test_worker_exits_when_its_parent_changes(tmp_path, python):
    model_file = tmp_path / "model.py"
    model_file.write_text(textwrap.dedent(ADD_SUB))
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    ours.settimeout(TIMEOUT_S)
    parent = subprocess.Popen([python, "-c", SPAWN_THEN_WAIT, str(theirs.fileno()), str(tmp_path / "worker.log")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=(theirs.fileno(),),
                              env=worker_environment())
    theirs.close()
    server = wire.ServerEnd(ours)
    try:
        worker_pid = int(parent.stdout.readline())
        server.send_json(wire.INIT, init_payload(model_file, ADD_SUB_CONFIG))
        assert server.receive()[0] == wire.READY  # the parent watch runs by now
        parent.stdin.close()
        parent.wait(TIMEOUT_S)
        deadline = time.monotonic() + 10
        while not _gone(worker_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(worker_pid)  # while our end of the socket is still open
    finally:
        ours.close()
        if parent.poll() is None:
            parent.kill()
