# SPDX-License-Identifier: Apache-2.0
"""Every KServe datatype round-tripped through the HTTP frontend, as JSON data
and as binary tensors, using ONNX identity models made at test time."""
import json

import numpy as np
import pytest
import requests
import tritonclient.http as httpclient

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from test_http_util import binary_body, bytes_blob  # noqa: E402

pytestmark = pytest.mark.timeout(180)

# protocol name -> (ONNX type, config type, numpy dtype or None, sample values)
TYPES = {
    "BOOL": (TensorProto.BOOL, "TYPE_BOOL", np.bool_, [True, False, True]),
    "UINT8": (TensorProto.UINT8, "TYPE_UINT8", np.uint8, [0, 7, 255]),
    "UINT16": (TensorProto.UINT16, "TYPE_UINT16", np.uint16, [0, 7, 65535]),
    "UINT32": (TensorProto.UINT32, "TYPE_UINT32", np.uint32, [0, 7, 4294967295]),
    "UINT64": (TensorProto.UINT64, "TYPE_UINT64", np.uint64, [0, 7, 18446744073709551615]),
    "INT8": (TensorProto.INT8, "TYPE_INT8", np.int8, [-128, 0, 127]),
    "INT16": (TensorProto.INT16, "TYPE_INT16", np.int16, [-32768, 0, 32767]),
    "INT32": (TensorProto.INT32, "TYPE_INT32", np.int32, [-2147483648, 0, 2147483647]),
    "INT64": (TensorProto.INT64, "TYPE_INT64", np.int64,
              [-9223372036854775808, 0, 9223372036854775807]),
    "FP16": (TensorProto.FLOAT16, "TYPE_FP16", np.float16, [0.5, -2.0, 65504.0]),
    "FP32": (TensorProto.FLOAT, "TYPE_FP32", np.float32, [0.1, -2.5, 3.4e38]),
    "FP64": (TensorProto.DOUBLE, "TYPE_FP64", np.float64, [0.1, -2.5, 1e300]),
    "BYTES": (TensorProto.STRING, "TYPE_STRING", np.object_, ["a", "", "\u00fcml\u00e4ut"]),
    "BF16": (TensorProto.BFLOAT16, "TYPE_BF16", None, [1.0, -2.0, 0.5]),
}
JSON_TYPES = [t for t in TYPES if t not in ("FP16", "BF16")]


def model_name(datatype):
    return f"identity_{datatype.lower()}"


@pytest.fixture(scope="module")
def typed_server(tmp_path_factory, request):
    repo = tmp_path_factory.mktemp("typed_models")
    for datatype, (onnx_type, config_type, _, _) in TYPES.items():
        name = model_name(datatype)
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
    # make_server is function-scoped; start the server directly with the same class.
    from conftest import RunningServer
    running = RunningServer([repo], [], tmp_path_factory.mktemp("typed_log") / "server.log")
    yield running
    running.stop()


def infer_url(server, datatype):
    return f"http://{server.http_url}/v2/models/{model_name(datatype)}/infer"


def raw_bytes(datatype, values):
    if datatype == "BYTES":
        return bytes_blob(values)
    if datatype == "BF16":
        as_fp32 = np.array(values, dtype=np.float32).view(np.uint32)
        return (as_fp32 >> 16).astype("<u2").tobytes()
    return np.array(values, dtype=TYPES[datatype][2]).astype(np.dtype(TYPES[datatype][2]).newbyteorder("<")).tobytes()


@pytest.mark.parametrize("datatype", JSON_TYPES)
def test_json_round_trip(typed_server, datatype):
    values = TYPES[datatype][3]
    request = {"inputs": [{"name": "INPUT0", "datatype": datatype, "shape": [3], "data": values}]}
    r = requests.post(infer_url(typed_server, datatype), data=json.dumps(request))
    assert r.status_code == 200, r.text
    output = r.json()["outputs"][0]
    assert output["datatype"] == datatype
    assert output["shape"] == [3]
    if datatype == "FP32":
        np.testing.assert_array_equal(np.array(output["data"], np.float32),
                                      np.array(values, np.float32))
    else:
        assert output["data"] == values


@pytest.mark.parametrize("datatype", list(TYPES))
def test_binary_round_trip(typed_server, datatype):
    blob = raw_bytes(datatype, TYPES[datatype][3])
    request = {"inputs": [{"name": "INPUT0", "datatype": datatype, "shape": [3],
                           "parameters": {"binary_data_size": len(blob)}}],
               "outputs": [{"name": "OUTPUT0", "parameters": {"binary_data": True}}]}
    body, length = binary_body(request, [blob])
    r = requests.post(infer_url(typed_server, datatype), data=body,
                      headers={"Inference-Header-Content-Length": str(length)})
    assert r.status_code == 200, r.text
    n = int(r.headers["Inference-Header-Content-Length"])
    header = json.loads(r.content[:n])
    assert header["outputs"][0]["parameters"]["binary_data_size"] == len(blob)
    assert r.content[n:] == blob


@pytest.mark.parametrize("datatype", ["FP16", "BF16"])
def test_half_precision_as_json_output(typed_server, datatype):
    """Binary in, JSON out: half types are widened to float numbers."""
    blob = raw_bytes(datatype, TYPES[datatype][3])
    request = {"inputs": [{"name": "INPUT0", "datatype": datatype, "shape": [3],
                           "parameters": {"binary_data_size": len(blob)}}]}
    body, length = binary_body(request, [blob])
    r = requests.post(infer_url(typed_server, datatype), data=body,
                      headers={"Inference-Header-Content-Length": str(length)})
    assert r.status_code == 200, r.text
    assert r.json()["outputs"][0]["data"] == TYPES[datatype][3]


@pytest.mark.parametrize("datatype", ["FP16", "BF16"])
def test_half_precision_refused_as_json_input(typed_server, datatype):
    request = {"inputs": [{"name": "INPUT0", "datatype": datatype, "shape": [1], "data": [1.0]}]}
    r = requests.post(infer_url(typed_server, datatype), data=json.dumps(request))
    assert r.status_code == 400
    assert "binary" in r.json()["error"]


@pytest.mark.parametrize("datatype", [t for t in JSON_TYPES if t != "BYTES"])
def test_tritonclient_numpy_round_trip(typed_server, datatype):
    dtype = TYPES[datatype][2]
    values = np.array(TYPES[datatype][3], dtype=dtype)
    with httpclient.InferenceServerClient(typed_server.http_url) as c:
        for binary in (True, False):
            infer_input = httpclient.InferInput("INPUT0", [3], datatype)
            infer_input.set_data_from_numpy(values, binary_data=binary)
            output = httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary)
            result = c.infer(model_name(datatype), [infer_input], outputs=[output])
            np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), values)
