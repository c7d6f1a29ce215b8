# SPDX-License-Identifier: Apache-2.0
"""The repository extension's explicit model control over HTTP and gRPC, as
tritonclient drives it: load (plain, with a `config` override, with
`file:<version>/<path>` contents of a model that is nowhere on disk) and
unload (with `unload_dependents`), in --model-control-mode explicit; the
refusals of the other modes and of bad requests."""
import base64
import json

import grpc
import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from onnx import TensorProto, helper, numpy_helper
from tritonclient.grpc import service_pb2, service_pb2_grpc
from tritonclient.utils import InferenceServerException

EXPLICIT = ("--model-control-mode", "explicit")


def constant_model_bytes(value):
    """y = x + value, FP32 [-1, 4]: the answer tells which model served."""
    const = numpy_helper.from_array(np.full([4], value, np.float32), "c")
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "c"], ["y"])], "add_const",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])], initializer=[const])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model.SerializeToString()


def add_model(repo, name, value, config='platform: "onnxruntime_onnx"\nmax_batch_size: 8\n'):
    (repo / name / "1").mkdir(parents=True)
    (repo / name / "1" / "model.onnx").write_bytes(constant_model_bytes(value))
    (repo / name / "config.pbtxt").write_text(config)


@pytest.fixture
def repo(tmp_path):
    """Two small models, `a` (answers x + 1) and `b` (answers x + 2)."""
    folder = tmp_path / "models"
    add_model(folder, "a", 1.0)
    add_model(folder, "b", 2.0)
    return folder


def infer_constant(server, model):
    client = httpclient.InferenceServerClient(server.http_url)
    x = httpclient.InferInput("x", [1, 4], "FP32")
    x.set_data_from_numpy(np.zeros((1, 4), np.float32))
    return float(client.infer(model, [x]).as_numpy("y")[0, 0])


def make_client(server, protocol):
    if protocol == "http":
        return httpclient.InferenceServerClient(server.http_url)
    return grpcclient.InferenceServerClient(server.grpc_url)


def is_ready(client, name):
    """Model readiness; a model the server does not know at all is not ready
    either (gRPC's ModelReady answers NOT_FOUND for it)."""
    try:
        return client.is_model_ready(name)
    except InferenceServerException:
        return False


def index(client):
    """{(name, version): row} from the client's repository index call."""
    if isinstance(client, grpcclient.InferenceServerClient):
        rows = client.get_model_repository_index(as_json=True).get("models", [])
    else:
        rows = client.get_model_repository_index()
    return {(r["name"], r.get("version", "")): r for r in rows}


def model_config(client, name):
    if isinstance(client, grpcclient.InferenceServerClient):
        return client.get_model_config(name, as_json=True)["config"]
    return client.get_model_config(name)


def post(server, path, body=None, data=None):
    return requests.post(f"http://{server.http_url}{path}", json=body, data=data, timeout=60)


PROTOCOLS = pytest.mark.parametrize("protocol", ["http", "grpc"])


@PROTOCOLS
def test_load_and_unload(repo, make_server, protocol):
    server = make_server(repo, *EXPLICIT, "--load-model", "a")
    client = make_client(server, protocol)
    # Only the model named at start-up is loaded.
    assert client.is_model_ready("a")
    assert not is_ready(client, "b")

    client.load_model("b")
    assert client.is_model_ready("b")
    assert infer_constant(server, "b") == 2.0
    rows = index(client)
    assert rows[("b", "1")]["state"] == "READY", rows

    client.unload_model("b")
    assert not is_ready(client, "b")
    rows = index(client)
    assert rows[("b", "1")]["state"] == "UNAVAILABLE", rows
    assert rows[("b", "1")]["reason"] == "unloaded", rows
    # The other model never noticed.
    assert client.is_model_ready("a")
    assert infer_constant(server, "a") == 1.0

    # And back again.
    client.load_model("b")
    assert client.is_model_ready("b")
    assert infer_constant(server, "b") == 2.0


def test_load_model_star_loads_everything(repo, make_server):
    server = make_server(repo, *EXPLICIT, "--load-model", "*")
    client = make_client(server, "http")
    assert client.is_model_ready("a") and client.is_model_ready("b")


def test_explicit_mode_without_load_model_starts_empty(repo, make_server):
    server = make_server(repo, *EXPLICIT)
    client = make_client(server, "http")
    assert client.is_server_live()
    assert not is_ready(client, "a")
    assert not is_ready(client, "b")
    client.load_model("a")
    assert infer_constant(server, "a") == 1.0


@PROTOCOLS
def test_load_with_config_override(repo, make_server, protocol):
    server = make_server(repo, *EXPLICIT, "--load-model", "a")
    client = make_client(server, protocol)
    assert int(model_config(client, "a")["max_batch_size"]) == 8

    client.load_model("a", config=json.dumps({"name": "a", "platform": "onnxruntime_onnx",
                                              "max_batch_size": 2}))
    assert client.is_model_ready("a")
    assert int(model_config(client, "a")["max_batch_size"]) == 2
    assert infer_constant(server, "a") == 1.0


@PROTOCOLS
def test_load_with_files_of_a_model_not_on_disk(repo, make_server, protocol):
    server = make_server(repo, *EXPLICIT)
    client = make_client(server, protocol)
    assert not (repo / "fresh").exists()
    config = json.dumps({"name": "fresh", "platform": "onnxruntime_onnx", "max_batch_size": 4})
    client.load_model("fresh", config=config,
                      files={"file:1/model.onnx": constant_model_bytes(7.0)})
    assert client.is_model_ready("fresh")
    assert infer_constant(server, "fresh") == 7.0
    assert int(model_config(client, "fresh")["max_batch_size"]) == 4
    assert index(client)[("fresh", "1")]["state"] == "READY"

    client.unload_model("fresh")
    assert not is_ready(client, "fresh")
    # Nothing was written into the repository.
    assert not (repo / "fresh").exists()


@PROTOCOLS
def test_load_errors(repo, make_server, protocol):
    server = make_server(repo, *EXPLICIT, "--load-model", "a")
    client = make_client(server, protocol)
    with pytest.raises(InferenceServerException) as error:
        client.load_model("no_such_model")
    assert "no_such_model" in error.value.message()
    if protocol == "grpc":
        assert error.value.status() == "StatusCode.NOT_FOUND"
    else:
        assert error.value.status() == "404"

    # Files need a config (the protocol's rule).
    with pytest.raises(InferenceServerException) as error:
        client.load_model("a", files={"file:1/model.onnx": constant_model_bytes(1.0)})
    assert "config" in error.value.message()

    # A config that is not a ModelConfig.
    with pytest.raises(InferenceServerException) as error:
        client.load_model("a", config=json.dumps({"max_batch_sise": 2}))
    assert "max_batch_sise" in error.value.message()

    # The loaded model keeps serving after all of these.
    assert client.is_model_ready("a")
    assert infer_constant(server, "a") == 1.0


@PROTOCOLS
def test_unload_dependents_is_accepted(repo, make_server, protocol):
    server = make_server(repo, *EXPLICIT, "--load-model", "*")
    client = make_client(server, protocol)
    client.unload_model("b", unload_dependents=True)
    assert not is_ready(client, "b")
    assert client.is_model_ready("a")


@PROTOCOLS
def test_unload_unknown_model(repo, make_server, protocol):
    server = make_server(repo, *EXPLICIT)
    client = make_client(server, protocol)
    with pytest.raises(InferenceServerException) as error:
        client.unload_model("no_such_model")
    assert "no_such_model" in error.value.message()


@PROTOCOLS
def test_default_mode_refuses_explicit_control(repo, make_server, protocol):
    server = make_server(repo)
    client = make_client(server, protocol)
    with pytest.raises(InferenceServerException) as error:
        client.load_model("a")
    assert "explicit" in error.value.message()
    with pytest.raises(InferenceServerException) as error:
        client.unload_model("a")
    assert "explicit" in error.value.message()
    # Nothing changed.
    assert client.is_model_ready("a") and client.is_model_ready("b")


# --- raw HTTP: status codes and bodies -------------------------------------------

def test_http_success_is_200_with_an_empty_body(repo, make_server):
    server = make_server(repo, *EXPLICIT)
    r = post(server, "/v2/repository/models/a/load")  # no body at all
    assert r.status_code == 200, r.text
    assert r.content == b""
    assert r.headers["Content-Length"] == "0"
    r = post(server, "/v2/repository/models/a/unload", data=b"")
    assert r.status_code == 200, r.text
    assert r.content == b""
    r = post(server, "/v2/repository/models/a/load", {"parameters": {}})
    assert r.status_code == 200, r.text
    r = post(server, "/v2/repository/models/a/unload", {"parameters": {"unload_dependents": False}})
    assert r.status_code == 200, r.text


def test_http_load_with_base64_files(repo, make_server):
    server = make_server(repo, *EXPLICIT)
    body = {"parameters": {
        "config": json.dumps({"name": "fresh", "platform": "onnxruntime_onnx", "max_batch_size": 4}),
        "file:1/model.onnx": base64.b64encode(constant_model_bytes(5.0)).decode(),
        "some_unknown_parameter": 3,  # ignored, as Triton does
    }}
    r = post(server, "/v2/repository/models/fresh/load", body)
    assert r.status_code == 200, r.text
    assert infer_constant(server, "fresh") == 5.0


def test_http_bad_requests(repo, make_server):
    server = make_server(repo, *EXPLICIT, "--load-model", "a")

    def expect(status, path, fragment=None, **kwargs):
        r = post(server, path, **kwargs)
        assert r.status_code == status, (path, kwargs, r.status_code, r.text)
        assert "error" in r.json()
        if fragment is not None:
            assert fragment in r.json()["error"], r.text

    # A named repository: 501, as Triton.
    expect(501, "/v2/repository/myrepo/models/a/load", "myrepo")
    expect(501, "/v2/repository/myrepo/models/a/unload", "myrepo")
    # Bodies that do not parse or have the wrong types: 400.
    load = "/v2/repository/models/a/load"
    unload = "/v2/repository/models/a/unload"
    expect(400, load, data=b"{not json")
    expect(400, load, data=b"[1, 2]")
    expect(400, load, "parameters", body={"parameters": ["config"]})
    expect(400, load, "config", body={"parameters": {"config": {"max_batch_size": 2}}})
    expect(400, load, "base64", body={"parameters": {"config": "{}", "file:1/model.onnx": "not*base64!"}})
    expect(400, load, "file:1/model.onnx", body={"parameters": {"config": "{}", "file:1/model.onnx": 5}})
    expect(400, unload, data=b"{not json")
    expect(400, unload, "unload_dependents", body={"parameters": {"unload_dependents": "yes"}})
    # The model was never touched.
    assert requests.get(f"http://{server.http_url}/v2/models/a/ready").status_code == 200
    assert infer_constant(server, "a") == 1.0


def test_grpc_named_repository_is_unimplemented(repo, make_server):
    server = make_server(repo, *EXPLICIT, "--load-model", "a")
    channel = grpc.insecure_channel(server.grpc_url)
    stub = service_pb2_grpc.GRPCInferenceServiceStub(channel)
    for rpc, message in [
        (stub.RepositoryModelLoad,
         service_pb2.RepositoryModelLoadRequest(repository_name="myrepo", model_name="a")),
        (stub.RepositoryModelUnload,
         service_pb2.RepositoryModelUnloadRequest(repository_name="myrepo", model_name="a")),
    ]:
        with pytest.raises(grpc.RpcError) as error:
            rpc(message, timeout=30)
        assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED
        assert "myrepo" in error.value.details()

    # Parameters of the wrong type: INVALID_ARGUMENT.
    load = service_pb2.RepositoryModelLoadRequest(model_name="a")
    load.parameters["config"].bytes_param = b"{}"
    with pytest.raises(grpc.RpcError) as error:
        stub.RepositoryModelLoad(load, timeout=30)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    load = service_pb2.RepositoryModelLoadRequest(model_name="a")
    load.parameters["config"].string_param = "{}"
    load.parameters["file:1/model.onnx"].string_param = "AAAA"
    with pytest.raises(grpc.RpcError) as error:
        stub.RepositoryModelLoad(load, timeout=30)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    unload = service_pb2.RepositoryModelUnloadRequest(model_name="a")
    unload.parameters["unload_dependents"].string_param = "yes"
    with pytest.raises(grpc.RpcError) as error:
        stub.RepositoryModelUnload(unload, timeout=30)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    channel.close()
    assert grpcclient.InferenceServerClient(server.grpc_url).is_model_ready("a")
