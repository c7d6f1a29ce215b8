# SPDX-License-Identifier: Apache-2.0
"""The system shared-memory extension with tritonclient's own utilities
(tritonclient.utils.shared_memory), over HTTP and gRPC: registration and
status, every datatype in and out of regions, offsets, Triton's errors for bad
sizes, offsets and regions, keys that are paths, unregistering while a request
uses a region, an object truncated after registration, and CUDA shared memory
on this machine without GPUs."""
import os
import pathlib
import threading
import time
import uuid

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
import tritonclient.utils.shared_memory as shm
from tritonclient.utils import InferenceServerException, serialize_byte_tensor

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from conftest import RunningServer  # noqa: E402

pytestmark = pytest.mark.timeout(240)

# protocol name -> (ONNX type, config type, numpy dtype used to fill the region)
TYPES = {
    "BOOL": (TensorProto.BOOL, "TYPE_BOOL", np.bool_),
    "UINT8": (TensorProto.UINT8, "TYPE_UINT8", np.uint8),
    "UINT16": (TensorProto.UINT16, "TYPE_UINT16", np.uint16),
    "UINT32": (TensorProto.UINT32, "TYPE_UINT32", np.uint32),
    "UINT64": (TensorProto.UINT64, "TYPE_UINT64", np.uint64),
    "INT8": (TensorProto.INT8, "TYPE_INT8", np.int8),
    "INT16": (TensorProto.INT16, "TYPE_INT16", np.int16),
    "INT32": (TensorProto.INT32, "TYPE_INT32", np.int32),
    "INT64": (TensorProto.INT64, "TYPE_INT64", np.int64),
    "FP16": (TensorProto.FLOAT16, "TYPE_FP16", np.float16),
    "FP32": (TensorProto.FLOAT, "TYPE_FP32", np.float32),
    "FP64": (TensorProto.DOUBLE, "TYPE_FP64", np.float64),
    "BF16": (TensorProto.BFLOAT16, "TYPE_BF16", np.uint16),  # raw bits: numpy has no bfloat16
    "BYTES": (TensorProto.STRING, "TYPE_STRING", np.object_),
}

# A Python model that echoes INPUT0 once a gate file exists, after writing a
# "started" file: the test holds a request in flight without sleeping.
GATED_MODEL = '''
import os, time
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        gate = os.environ["SHM_TEST_GATE"]
        open(gate + ".started", "w").close()
        deadline = time.monotonic() + 60
        while not os.path.exists(gate) and time.monotonic() < deadline:
            time.sleep(0.01)
        return [pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor(
            "OUTPUT0", pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy())])
            for r in requests]
'''


def sample(datatype, count=6):
    dtype = TYPES[datatype][2]
    if datatype == "BOOL":
        return np.array([True, False] * (count // 2), dtype=np.bool_)
    if datatype == "BYTES":
        return np.array([b"a", b"", "\u00fcml\u00e4ut".encode(), b"\x00\xff", b"xyz", b"!"][:count],
                        dtype=np.object_)
    if datatype in ("FP16", "FP32", "FP64"):
        return (np.arange(count) * 0.5 - 1).astype(dtype)
    return np.arange(count).astype(dtype) * 3


def as_bytes(array):
    if array.dtype == np.object_:
        return serialize_byte_tensor(array).item()  # a 0-d array holding the bytes
    return array.tobytes()


@pytest.fixture(scope="module")
def shm_server(tmp_path_factory):
    repo = tmp_path_factory.mktemp("shm_models")
    for datatype, (onnx_type, config_type, _) in TYPES.items():
        name = f"identity_{datatype.lower()}"
        graph = helper.make_graph(
            [helper.make_node("Identity", ["INPUT0"], ["OUTPUT0"])], name,
            [helper.make_tensor_value_info("INPUT0", onnx_type, ["n"])],
            [helper.make_tensor_value_info("OUTPUT0", onnx_type, ["n"])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        (repo / name / "1").mkdir(parents=True)
        onnx.save(model, str(repo / name / "1" / "model.onnx"))
        (repo / name / "config.pbtxt").write_text(
            f'name: "{name}"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\n'
            f'input [{{ name: "INPUT0" data_type: {config_type} dims: [ -1 ] }}]\n'
            f'output [{{ name: "OUTPUT0" data_type: {config_type} dims: [ -1 ] }}]\n')
    gated = repo / "gated" / "1"
    gated.mkdir(parents=True)
    (gated / "model.py").write_text(GATED_MODEL)
    (repo / "gated" / "config.pbtxt").write_text(
        'name: "gated"\nbackend: "python"\nmax_batch_size: 0\n'
        'input [{ name: "INPUT0" data_type: TYPE_INT32 dims: [ -1 ] }]\n'
        'output [{ name: "OUTPUT0" data_type: TYPE_INT32 dims: [ -1 ] }]\n'
        'instance_group [{ kind: KIND_CPU count: 1 }]\n')
    gate = tmp_path_factory.mktemp("gate") / "open"
    os.environ["SHM_TEST_GATE"] = str(gate)
    running = RunningServer([repo], [], tmp_path_factory.mktemp("shm_log") / "server.log")
    running.gate = gate
    yield running
    code = running.stop()
    assert code == 0, running.output()


@pytest.fixture(params=["http", "grpc"])
def client(request, shm_server):
    module = httpclient if request.param == "http" else grpcclient
    url = shm_server.http_url if request.param == "http" else shm_server.grpc_url
    c = module.InferenceServerClient(url)
    c.protocol = request.param
    c.module = module
    c.unregister_system_shared_memory()
    yield c
    c.unregister_system_shared_memory()
    c.close()


@pytest.fixture
def regions():
    """Creates client-side regions (unique keys) and destroys them afterwards."""
    made = []

    def create(size, name=None):
        name = name or f"r{uuid.uuid4().hex[:12]}"
        handle = shm.create_shared_memory_region(name, "/" + name, size)
        made.append(handle)
        return name, handle

    yield create
    for handle in made:
        shm.destroy_shared_memory_region(handle)


def status_names(client):
    status = client.get_system_shared_memory_status()
    if client.protocol == "http":
        return sorted(region["name"] for region in status)
    return sorted(status.regions.keys())


def shm_infer(client, model, datatype, shape, in_region, out_region, in_size, out_size,
              in_offset=0, out_offset=0):
    m = client.module
    inp = m.InferInput("INPUT0", shape, datatype)
    inp.set_shared_memory(in_region, in_size, offset=in_offset)
    out = m.InferRequestedOutput("OUTPUT0")
    out.set_shared_memory(out_region, out_size, offset=out_offset)
    return client.infer(model, [inp], outputs=[out])


def expect_error(fragment, call, *args, **kwargs):
    with pytest.raises(InferenceServerException) as error:
        call(*args, **kwargs)
    assert fragment in str(error.value), str(error.value)
    return error.value


def test_server_metadata_lists_the_extension(client):
    metadata = client.get_server_metadata()
    extensions = metadata["extensions"] if client.protocol == "http" else metadata.extensions
    assert "system_shared_memory" in extensions
    assert "cuda_shared_memory" not in extensions


def test_register_status_unregister(client, regions):
    a, _ = regions(64)
    b, _ = regions(128)
    client.register_system_shared_memory(a, "/" + a, 64)
    client.register_system_shared_memory(b, "/" + b, 100, offset=28)
    assert status_names(client) == sorted([a, b])
    one = client.get_system_shared_memory_status(b)
    if client.protocol == "http":
        assert one == [{"name": b, "key": "/" + b, "offset": 28, "byte_size": 100}]
    else:
        region = one.regions[b]
        assert (region.key, region.offset, region.byte_size) == ("/" + b, 28, 100)
    expect_error("Unable to find system shared memory region: 'nope'",
                 client.get_system_shared_memory_status, "nope")
    client.unregister_system_shared_memory("nope")  # unknown: nothing to do, as Triton
    client.unregister_system_shared_memory(a)
    assert status_names(client) == [b]
    client.unregister_system_shared_memory()
    assert status_names(client) == []


def test_double_registration_is_refused(client, regions):
    a, _ = regions(64)
    client.register_system_shared_memory(a, "/" + a, 64)
    expect_error(f"shared memory region '{a}' already in manager",
                 client.register_system_shared_memory, a, "/" + a, 64)
    assert status_names(client) == [a]


@pytest.mark.parametrize("key", ["/dev/shm/x", "../x", "a/b", "..", "/"])
def test_path_like_keys_are_refused(client, key):
    error = expect_error("is not the name of a POSIX shared-memory object",
                         client.register_system_shared_memory, "bad", key, 8)
    assert "failed to register shared memory region 'bad'" in str(error)
    assert status_names(client) == []


def test_reserved_key_and_missing_object(client):
    key = "triton_python_backend_shm_region__k"
    expect_error(f"cannot register shared memory region 'n' with key '{key}' as the key contains "
                 "the reserved prefix 'triton_python_backend_shm_region_'",
                 client.register_system_shared_memory, "n", key, 8)
    expect_error("Unable to open shared memory region: '/inferd_no_such_object'",
                 client.register_system_shared_memory, "n", "/inferd_no_such_object", 8)


@pytest.mark.parametrize("offset,size", [(0, 65), (1, 64), (64, 1), (65, 0)])
def test_registration_outside_the_object_is_refused(client, regions, offset, size):
    a, _ = regions(64)
    error = expect_error("invalid args", client.register_system_shared_memory, a, "/" + a, size,
                         offset=offset)
    assert f"failed to register shared memory region '{a}'" in str(error)


@pytest.mark.parametrize("datatype", list(TYPES))
def test_every_datatype_in_and_out_of_regions(client, regions, datatype):
    data = sample(datatype)
    raw = as_bytes(data)
    # The registered window starts 24 bytes into the object, the tensor 8
    # bytes into the window: both offsets are honoured.
    in_name, in_handle = regions(256)
    out_name, out_handle = regions(256)
    client.register_system_shared_memory(in_name, "/" + in_name, 200, offset=24)
    client.register_system_shared_memory(out_name, "/" + out_name, 200, offset=16)
    shm.set_shared_memory_region(in_handle, [np.frombuffer(raw, dtype=np.uint8)], offset=32)
    result = shm_infer(client, f"identity_{datatype.lower()}", datatype, [len(data)], in_name,
                       out_name, len(raw), 150, in_offset=8, out_offset=4)
    output = result.get_output("OUTPUT0")
    if client.protocol == "http":
        # As Triton: metadata only, no data and no binary size.
        assert output == {"name": "OUTPUT0", "datatype": datatype, "shape": [len(data)]}
    else:
        assert (output.datatype, list(output.shape)) == (datatype, [len(data)])
        # One (empty) raw_output_contents entry per output, as Triton.
        assert list(result.get_response().raw_output_contents) == [b""]
    dtype = TYPES[datatype][2]
    got = shm.get_contents_as_numpy(out_handle, dtype, [len(data)], offset=20)
    if datatype == "BYTES":
        assert list(got) == list(data)
    else:
        np.testing.assert_array_equal(got, data)


def test_mixed_region_and_transport_tensors(client, regions):
    data = np.arange(5, dtype=np.int32)
    in_name, in_handle = regions(64)
    client.register_system_shared_memory(in_name, "/" + in_name, 64)
    shm.set_shared_memory_region(in_handle, [data])
    m = client.module
    inp = m.InferInput("INPUT0", [5], "INT32")
    inp.set_shared_memory(in_name, 20)
    result = client.infer("identity_int32", [inp])  # output comes back over the wire
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), data)
    out_name, out_handle = regions(64)
    client.register_system_shared_memory(out_name, "/" + out_name, 64)
    inp = m.InferInput("INPUT0", [5], "INT32")
    inp.set_data_from_numpy(data * 2)
    out = m.InferRequestedOutput("OUTPUT0")
    out.set_shared_memory(out_name, 20)
    client.infer("identity_int32", [inp], outputs=[out])
    np.testing.assert_array_equal(shm.get_contents_as_numpy(out_handle, np.int32, [5]), data * 2)


def test_bad_sizes_offsets_and_regions(client, regions, shm_server):
    in_name, in_handle = regions(64)
    out_name, _ = regions(64)
    client.register_system_shared_memory(in_name, "/" + in_name, 64)
    client.register_system_shared_memory(out_name, "/" + out_name, 64)
    shm.set_shared_memory_region(in_handle, [np.arange(16, dtype=np.int32)])
    model = "identity_int32"
    expect_error("input byte size mismatch for input 'INPUT0' for model 'identity_int32'. "
                 "Expected 64, got 60",
                 shm_infer, client, model, "INT32", [16], in_name, out_name, 60, 64)
    expect_error(f"Invalid offset for shared memory region: '{in_name}'",
                 shm_infer, client, model, "INT32", [1], in_name, out_name, 4, 64, in_offset=64)
    expect_error(f"Invalid offset + byte size for shared memory region: '{in_name}'",
                 shm_infer, client, model, "INT32", [2], in_name, out_name, 8, 64, in_offset=60)
    expect_error("Unable to find shared memory region: 'nope'",
                 shm_infer, client, model, "INT32", [16], "nope", out_name, 64, 64)
    expect_error("Unable to find shared memory region: 'nope'",
                 shm_infer, client, model, "INT32", [16], in_name, "nope", 64, 64)
    expect_error(f"Invalid offset + byte size for shared memory region: '{out_name}'",
                 shm_infer, client, model, "INT32", [16], in_name, out_name, 64, 8, out_offset=60)
    expect_error("shared memory size specified with the request for output 'OUTPUT0' (32 bytes) "
                 "should be at least 64 bytes to hold the results",
                 shm_infer, client, model, "INT32", [16], in_name, out_name, 64, 32)
    if client.protocol == "http":  # gRPC's int64 parameters cannot carry these
        expect_error(f"Invalid offset for shared memory region: '{out_name}'",
                     shm_infer, client, model, "INT32", [16], in_name, out_name, 64, 64,
                     out_offset=2**64 - 32)
        expect_error("Integer overflow detected: byte_size ",
                     shm_infer, client, model, "INT32", [16], in_name, out_name, 64, 2**64 - 32,
                     out_offset=32)
    assert shm_server.alive()


def test_bytes_region_must_hold_its_elements(client, regions):
    in_name, in_handle = regions(64)
    out_name, _ = regions(64)
    client.register_system_shared_memory(in_name, "/" + in_name, 64)
    client.register_system_shared_memory(out_name, "/" + out_name, 64)
    raw = serialize_byte_tensor(np.array([b"ab", b"c"], dtype=np.object_)).item()
    shm.set_shared_memory_region(in_handle, [np.frombuffer(raw, dtype=np.uint8)])
    expect_error("input 'INPUT0' for model 'identity_bytes'",
                 shm_infer, client, "identity_bytes", "BYTES", [3], in_name, out_name, len(raw), 64)


def test_object_truncated_after_registration(client, regions, shm_server):
    in_name, in_handle = regions(8192)
    out_name, _ = regions(64)
    client.register_system_shared_memory(in_name, "/" + in_name, 4096, offset=4096)
    client.register_system_shared_memory(out_name, "/" + out_name, 64)
    os.truncate(f"/dev/shm/{in_name}", 4096)  # the client shrinks its object
    expect_error("less than the registered offset + byte size",
                 shm_infer, client, "identity_int32", "INT32", [4], in_name, out_name, 16, 64)
    assert shm_server.alive()


def wait_for(condition, what, timeout=60):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def test_unregister_during_use(client, regions, shm_server):
    gate = pathlib.Path(shm_server.gate)
    started = pathlib.Path(str(gate) + ".started")
    for path in (gate, started):
        path.unlink(missing_ok=True)
    data = np.arange(8, dtype=np.int32)
    in_name, in_handle = regions(64)
    out_name, out_handle = regions(64)
    client.register_system_shared_memory(in_name, "/" + in_name, 64)
    client.register_system_shared_memory(out_name, "/" + out_name, 64)
    shm.set_shared_memory_region(in_handle, [data])
    result = {}

    url = shm_server.http_url if client.protocol == "http" else shm_server.grpc_url

    def run():
        try:  # a client of its own: the HTTP client's greenlets stay on one thread
            own = client.module.InferenceServerClient(url)
            own.protocol, own.module = client.protocol, client.module
            result["value"] = shm_infer(own, "gated", "INT32", [8], in_name, out_name, 32, 32)
        except Exception as error:  # noqa: BLE001 -- reported below
            result["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    try:
        wait_for(started.exists, "the gated model to start executing")
        # A second client unregisters everything while the request holds both
        # regions: as Triton, they stay listed (and mapped) until it ends.
        other = httpclient.InferenceServerClient(shm_server.http_url)
        other.unregister_system_shared_memory()
        assert sorted(r["name"] for r in other.get_system_shared_memory_status()) == \
            sorted([in_name, out_name])
    finally:
        gate.touch()
        thread.join(timeout=60)
    assert "error" not in result, result.get("error")
    np.testing.assert_array_equal(shm.get_contents_as_numpy(out_handle, np.int32, [8]), data)
    # Removed by themselves once the last request using them ended.
    wait_for(lambda: other.get_system_shared_memory_status() == [], "the regions to go")
    expect_error(f"Unable to find system shared memory region: '{in_name}'",
                 other.get_system_shared_memory_status, in_name)


def test_cuda_shared_memory_without_gpus(client):
    status = client.get_cuda_shared_memory_status()
    assert (status == [] if client.protocol == "http" else len(status.regions) == 0)
    client.unregister_cuda_shared_memory()
    client.unregister_cuda_shared_memory("any")
    expect_error("failed to register CUDA shared memory region: 'cu', GPUs not supported",
                 client.register_cuda_shared_memory, "cu", b"\0" * 64, 0, 64)


def test_grpc_stream_reads_and_writes_regions(shm_server, regions):
    """ModelStreamInfer takes the same shared-memory parameters as ModelInfer:
    inputs read from a region, outputs written into one, a window too small
    for its output answered as an error on the stream, which stays open."""
    import queue
    client = grpcclient.InferenceServerClient(shm_server.grpc_url)
    client.unregister_system_shared_memory()
    in_name, in_handle = regions(64)
    out_name, out_handle = regions(64)
    client.register_system_shared_memory(in_name, "/" + in_name, 64)
    client.register_system_shared_memory(out_name, "/" + out_name, 64)
    data = np.arange(7, dtype=np.int32) * 3
    shm.set_shared_memory_region(in_handle, [data])
    answers = queue.Queue()
    client.start_stream(callback=lambda result, error: answers.put((result, error)))
    try:
        for request_id, out_size in (("fits", 28), ("small", 8), ("again", 28)):
            inp = grpcclient.InferInput("INPUT0", [7], "INT32")
            inp.set_shared_memory(in_name, 28)
            out = grpcclient.InferRequestedOutput("OUTPUT0")
            out.set_shared_memory(out_name, out_size)
            client.async_stream_infer("identity_int32", [inp], outputs=[out],
                                      request_id=request_id)
        got = [answers.get(timeout=60) for _ in range(3)]
    finally:
        client.stop_stream()
    (first, first_error), (_, small_error), (third, third_error) = got
    assert first_error is None and third_error is None
    assert first.get_response().id == "fits" and third.get_response().id == "again"
    assert small_error is not None and "should be at least 28 bytes" in str(small_error)
    np.testing.assert_array_equal(shm.get_contents_as_numpy(out_handle, np.int32, [7]), data)
    client.unregister_system_shared_memory()
    client.close()
