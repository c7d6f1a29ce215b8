# SPDX-License-Identifier: Apache-2.0
"""Rank-0 (scalar) model tensors. An ONNX model without config.pbtxt whose
input and output are scalars is completed as Triton completes it (dims [1]
with `reshape { shape: [] }`); a request may send the config's shape [1] or
the model's own shape [], and gets its scalar outputs back the same way. A
batching model whose tensors are [batch] takes [n, 1] and [n] alike."""
import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from onnx import TensorProto, helper

from conftest import RunningServer

PROTOCOLS = pytest.mark.parametrize("protocol", ["http", "grpc"])


def save(folder, x_shape):
    """y = 2 * x for FP32 x of `x_shape`; no config.pbtxt (auto-complete)."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "x"], ["y"])], "double",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, x_shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    (folder / "1").mkdir(parents=True)
    (folder / "1" / "model.onnx").write_bytes(model.SerializeToString())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("scalars")
    save(root / "models" / "scalar", [])
    save(root / "models" / "scalar_batch", ["batch"])
    running = RunningServer([root / "models"], [], root / "server.log")
    yield running
    running.stop()


def test_auto_complete_makes_scalars_dims_one_with_empty_reshape(server):
    for model, batch in (("scalar", 0), ("scalar_batch", 4)):
        config = requests.get(f"http://{server.http_url}/v2/models/{model}/config", timeout=10).json()
        assert config["max_batch_size"] == batch, config
        for tensor in config["input"] + config["output"]:
            assert tensor["dims"] == [1] and tensor["reshape"] == {"shape": []}, tensor


def infer(server, protocol, model, x):
    module = httpclient if protocol == "http" else grpcclient
    url = server.http_url if protocol == "http" else server.grpc_url
    client = module.InferenceServerClient(url)
    tensor = module.InferInput("x", list(x.shape), "FP32")
    tensor.set_data_from_numpy(x)
    return client.infer(model, [tensor]).as_numpy("y")


@PROTOCOLS
@pytest.mark.parametrize("shape", [[1], []], ids=["config_shape", "model_shape"])
def test_scalar_model_takes_either_shape(server, protocol, shape):
    y = infer(server, protocol, "scalar", np.full(shape, 3.5, np.float32))
    assert y.shape == tuple(shape)
    assert y.reshape(-1).tolist() == [7.0]


@PROTOCOLS
@pytest.mark.parametrize("shape", [[3, 1], [3]], ids=["config_shape", "model_shape"])
def test_batching_scalar_model_takes_either_shape(server, protocol, shape):
    x = np.array([1, 2, 3], np.float32).reshape(shape)
    y = infer(server, protocol, "scalar_batch", x)
    assert y.shape == tuple(shape)
    assert y.reshape(-1).tolist() == [2.0, 4.0, 6.0]


def test_scalar_as_json(server):
    for shape, data in (([], [1.5]), ([1], [1.5])):
        reply = requests.post(
            f"http://{server.http_url}/v2/models/scalar/infer", timeout=10,
            json={"inputs": [{"name": "x", "datatype": "FP32", "shape": shape, "data": data}]})
        assert reply.status_code == 200, reply.text
        (output,) = reply.json()["outputs"]
        assert output["shape"] == shape and output["data"] == [3.0], output


def test_other_shapes_are_refused(server):
    reply = requests.post(
        f"http://{server.http_url}/v2/models/scalar/infer", timeout=10,
        json={"inputs": [{"name": "x", "datatype": "FP32", "shape": [2], "data": [1, 2]}]})
    assert reply.status_code == 400
    assert reply.json()["error"].startswith(
        "unexpected shape for input 'x' for model 'scalar'. Expected [1], got [2].")
