# SPDX-License-Identifier: Apache-2.0
"""The error messages Triton clients match on (docs/api.md, "Error messages"):
each starts with Triton's own words, over HTTP and gRPC, read the way client
code reads them (tritonclient's InferenceServerException.message()). Then the
repository index and model readiness in explicit mode, as Triton answers them:
every model of the repositories is listed, loaded or not, and a model that is
there but not loaded is not ready (rather than unknown)."""
import grpc
import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from onnx import TensorProto, helper
from tritonclient.grpc import service_pb2, service_pb2_grpc
from tritonclient.utils import InferenceServerException

from conftest import RunningServer

PROTOCOLS = pytest.mark.parametrize("protocol", ["http", "grpc"])


def save_model(folder, graph, config=None):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    (folder / "1").mkdir(parents=True)
    (folder / "1" / "model.onnx").write_bytes(model.SerializeToString())
    if config is not None:
        (folder / "config.pbtxt").write_text(config)


def make_repo(root):
    """`add`: C = A + B, FP32 [-1, 4] (max_batch_size 8); `text`: an identity
    on BYTES [2] (no batching); `broken`: a config that cannot load."""
    save_model(root / "add", helper.make_graph(
        [helper.make_node("Add", ["A", "B"], ["C"])], "add",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, ["batch", 4]),
         helper.make_tensor_value_info("B", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("C", TensorProto.FLOAT, ["batch", 4])]),
        'platform: "onnxruntime_onnx"\nmax_batch_size: 8\n'
        'input [ { name: "A" data_type: TYPE_FP32 dims: [ 4 ] },'
        ' { name: "B" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "C" data_type: TYPE_FP32 dims: [ 4 ] } ]\n')
    save_model(root / "text", helper.make_graph(
        [helper.make_node("Identity", ["S"], ["T"])], "text",
        [helper.make_tensor_value_info("S", TensorProto.STRING, [2])],
        [helper.make_tensor_value_info("T", TensorProto.STRING, [2])]),
        'platform: "onnxruntime_onnx"\nmax_batch_size: 0\n'
        'input [ { name: "S" data_type: TYPE_STRING dims: [ 2 ] } ]\n'
        'output [ { name: "T" data_type: TYPE_STRING dims: [ 2 ] } ]\n')
    (root / "broken" / "1").mkdir(parents=True)
    (root / "broken" / "config.pbtxt").write_text('platform: "onnxruntime_onnx"\nnot_a_field: 1\n')
    return root


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("messages")
    running = RunningServer([make_repo(root / "models")], [], root / "server.log")
    yield running
    running.stop()


def client(server, protocol):
    if protocol == "http":
        return httpclient, httpclient.InferenceServerClient(server.http_url)
    return grpcclient, grpcclient.InferenceServerClient(server.grpc_url)


def tensor(module, name, array, datatype=None):
    t = module.InferInput(name, list(array.shape), datatype or "FP32")
    t.set_data_from_numpy(array)
    return t


def add_inputs(module, a=None, b=None):
    a = np.ones((1, 4), np.float32) if a is None else a
    b = np.ones((1, 4), np.float32) if b is None else b
    return [tensor(module, "A", a), tensor(module, "B", b)]


def error_of(call, *args, **kwargs):
    with pytest.raises(InferenceServerException) as error:
        call(*args, **kwargs)
    return error.value.message()


def starts(message, prefix):
    assert message.startswith(prefix), f"{message!r} does not start with {prefix!r}"


@PROTOCOLS
def test_unknown_model_and_version(server, protocol):
    module, c = client(server, protocol)
    starts(error_of(c.infer, "nope", add_inputs(module)),
           "Request for unknown model: 'nope' is not found")
    starts(error_of(c.get_model_metadata, "nope"), "Request for unknown model: 'nope' is not found")
    starts(error_of(c.infer, "add", add_inputs(module), model_version="9"),
           "Request for unknown model: 'add' version 9 is not found")


@PROTOCOLS
def test_model_not_ready(server, protocol):
    module, c = client(server, protocol)
    message = error_of(c.infer, "broken", add_inputs(module))
    starts(message, "Request for unknown model: 'broken' has no available versions")
    assert "not_a_field" in message  # inferd's detail: why
    starts(error_of(c.infer, "broken", add_inputs(module), model_version="1"),
           "Request for unknown model: 'broken' version 1 is not at ready state")


@PROTOCOLS
def test_wrong_inputs(server, protocol):
    module, c = client(server, protocol)
    one = [tensor(module, "A", np.ones((1, 4), np.float32))]
    assert error_of(c.infer, "add", one) == (
        "expected 2 inputs but got 1 inputs for model 'add'. Got inputs ['A'], but missing "
        "required inputs ['B']. Please provide all required inputs.")
    extra = add_inputs(module) + [tensor(module, "Z", np.ones((1, 4), np.float32))]
    assert error_of(c.infer, "add", extra) == "unexpected inference input 'Z' for model 'add'"
    starts(error_of(c.infer, "add", add_inputs(module, a=np.ones((1, 5), np.float32))),
           "unexpected shape for input 'A' for model 'add'. Expected [-1,4], got [1,5].")
    starts(error_of(c.infer, "add", add_inputs(module, a=np.ones((9, 4), np.float32),
                                                b=np.ones((9, 4), np.float32))),
           "inference request batch-size must be <= 8 for 'add'")
    wrong_type = [tensor(module, "A", np.ones((1, 4), np.int32), "INT32"),
                  tensor(module, "B", np.ones((1, 4), np.float32))]
    assert error_of(c.infer, "add", wrong_type) == (
        "inference input 'A' data-type is 'INT32', but model 'add' expects 'FP32'")
    outputs = [module.InferRequestedOutput("Z")]
    assert error_of(c.infer, "add", add_inputs(module), outputs=outputs) == (
        "unexpected inference output 'Z' for model 'add'")


@PROTOCOLS
def test_byte_size_mismatch(server, protocol):
    """Triton's own test of this message: data for 5 elements under a shape of 4."""
    module, c = client(server, protocol)
    inputs = add_inputs(module, a=np.ones((1, 5), np.float32))
    inputs[0].set_shape([1, 4])
    starts(error_of(c.infer, "add", inputs),
           "input byte size mismatch for input 'A' for model 'add'. Expected 16, got 20")


@PROTOCOLS
def test_string_element_count(server, protocol):
    module, c = client(server, protocol)
    text = module.InferInput("S", [3], "BYTES")
    text.set_data_from_numpy(np.array([b"a", b"b", b"c"], dtype=np.object_))
    text.set_shape([2])
    starts(error_of(c.infer, "text", [text]),
           "expected 2 string elements for inference input 'S' for model 'text', got 3")


def test_typed_contents_with_raw_input_contents(server):
    stub = service_pb2_grpc.GRPCInferenceServiceStub(grpc.insecure_channel(server.grpc_url))
    request = service_pb2.ModelInferRequest(model_name="add")
    for name in ("A", "B"):
        entry = request.inputs.add(name=name, datatype="FP32", shape=[1, 4])
        if name == "A":
            entry.contents.fp32_contents.extend([1, 2, 3, 4])
    request.raw_input_contents.append(np.ones(4, np.float32).tobytes())
    with pytest.raises(grpc.RpcError) as error:
        stub.ModelInfer(request)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.value.details() == (
        "contents field must not be specified when using raw_input_contents for 'A' for model 'add'")


# --- explicit mode: the index, readiness, load failures -------------------------

@pytest.fixture(scope="module")
def explicit(tmp_path_factory):
    root = tmp_path_factory.mktemp("explicit")
    running = RunningServer([make_repo(root / "models")],
                            ["--model-control-mode", "explicit", "--load-model", "add"],
                            root / "server.log")
    yield running
    running.stop()


def http_index(server):
    reply = requests.post(f"http://{server.http_url}/v2/repository/index", timeout=10)
    assert reply.status_code == 200, reply.text
    return reply.json()


def grpc_index(server):
    c = grpcclient.InferenceServerClient(server.grpc_url)
    return [(m.name, m.version, m.state, m.reason) for m in c.get_model_repository_index().models]


def test_explicit_index_lists_every_model_of_the_repositories(explicit):
    # Never loaded: the name alone, as Triton writes it (no version, state or reason).
    assert http_index(explicit) == [{"name": "add", "version": "1", "state": "READY", "reason": ""},
                                    {"name": "broken"}, {"name": "text"}]
    assert grpc_index(explicit) == [("add", "1", "READY", ""), ("broken", "", "", ""),
                                    ("text", "", "", "")]
    ready_only = requests.post(f"http://{explicit.http_url}/v2/repository/index",
                               json={"ready": True}, timeout=10).json()
    assert [row["name"] for row in ready_only] == ["add"]


@PROTOCOLS
def test_explicit_model_not_loaded_is_not_ready(explicit, protocol):
    _, c = client(explicit, protocol)
    assert c.is_model_ready("add")
    assert not c.is_model_ready("text")  # gRPC: ready=false, not NOT_FOUND
    assert not c.is_model_ready("text", "1")
    r = requests.get(f"http://{explicit.http_url}/v2/models/text/ready", timeout=10)
    assert r.status_code == 400, r.text
    # A name no repository has is still unknown.
    if protocol == "grpc":
        stub = service_pb2_grpc.GRPCInferenceServiceStub(grpc.insecure_channel(explicit.grpc_url))
        with pytest.raises(grpc.RpcError) as error:
            stub.ModelReady(service_pb2.ModelReadyRequest(name="nope"))
        assert error.value.code() == grpc.StatusCode.NOT_FOUND
        assert error.value.details().startswith("Request for unknown model: 'nope' is not found")
    else:
        r = requests.get(f"http://{explicit.http_url}/v2/models/nope/ready", timeout=10)
        assert r.status_code == 404, r.text


@PROTOCOLS
def test_explicit_load_failures(explicit, protocol):
    _, c = client(explicit, protocol)
    starts(error_of(c.load_model, "nope"),
           "failed to load 'nope', failed to poll from model repository")
    message = error_of(c.load_model, "broken")
    starts(message, "load failed for model 'broken': ")
    assert "not_a_field" in message
    # The index now says why, with its state.
    row = next(r for r in http_index(explicit) if r["name"] == "broken")
    assert row["state"] == "UNAVAILABLE" and "not_a_field" in row["reason"], row


def test_explicit_index_after_load_and_unload(explicit):
    c = httpclient.InferenceServerClient(explicit.http_url)
    c.load_model("text")
    assert ("text", "1", "READY", "") in grpc_index(explicit)
    c.unload_model("text")
    assert ("text", "1", "UNAVAILABLE", "unloaded") in grpc_index(explicit)
    assert not c.is_model_ready("text")
