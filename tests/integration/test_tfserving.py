# SPDX-License-Identifier: Apache-2.0
"""TensorFlow Serving's APIs (docs/api.md, "TensorFlow Serving"): REST on
--tfs-rest-port with plain HTTP, gRPC on --tfs-grpc-port with TF Serving's own
Python client (tfs_protos.py); version labels from config.pbtxt, from the
load API's config override, and from KServe v2's `version_label` parameter.
"""
import base64
import json
import shutil

import grpc
import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

import tfs_protos
from conftest import EXAMPLES, free_ports

LABELS = 'parameters { key: "version_labels" value { string_value: "stable:1, canary:2" } }\n'


def labelled_simple(dest):
    """examples' simple as versions 1, 2 and 3, with stable -> 1 and canary -> 2."""
    model = dest / "simple"
    model.mkdir()
    config = (EXAMPLES / "simple" / "config.pbtxt").read_text()
    (model / "config.pbtxt").write_text(config + "version_policy { all { } }\n" + LABELS)
    for version in ("1", "2", "3"):
        (model / version).mkdir()
        shutil.copy(EXAMPLES / "simple" / "1" / "model.onnx", model / version / "model.onnx")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    dest = tmp_path_factory.mktemp("tfs_models")
    labelled_simple(dest)
    for name in ("ocr_cls", "string_identity"):
        shutil.copytree(EXAMPLES / name, dest / name)
    return dest


@pytest.fixture(scope="module")
def tfs(repo, tmp_path_factory):
    from conftest import RunningServer
    rest_port, grpc_port = free_ports(2)
    running = RunningServer([repo], ["--tfs-rest-port", str(rest_port),
                                     "--tfs-grpc-port", str(grpc_port)],
                            tmp_path_factory.mktemp("tfs_log") / "server.log")
    running.rest = f"http://127.0.0.1:{rest_port}"
    running.channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
    yield running
    running.channel.close()
    assert running.stop() == 0, running.output()


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    return tfs_protos.load(tmp_path_factory.mktemp("tfs_protos"))


A = list(range(16))
B = [1] * 16


def post(tfs, path, body):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return requests.post(tfs.rest + path, data=data, timeout=30)


def error_of(reply):
    body = reply.json()
    assert list(body) == ["error"], body
    return body["error"]


# --- REST -------------------------------------------------------------------------

def test_rest_status_lists_every_version(tfs):
    reply = requests.get(tfs.rest + "/v1/models/simple", timeout=10)
    assert reply.status_code == 200, reply.text
    statuses = reply.json()["model_version_status"]
    assert [s["version"] for s in statuses] == ["1", "2", "3"]
    for status in statuses:
        assert status["state"] == "AVAILABLE"
        assert status["status"] == {"error_code": "OK", "error_message": ""}


def test_rest_status_of_a_version_or_label(tfs):
    one = requests.get(tfs.rest + "/v1/models/simple/versions/3", timeout=10).json()
    assert [s["version"] for s in one["model_version_status"]] == ["3"]
    canary = requests.get(tfs.rest + "/v1/models/simple/labels/canary", timeout=10).json()
    assert [s["version"] for s in canary["model_version_status"]] == ["2"]
    unknown = requests.get(tfs.rest + "/v1/models/nope", timeout=10)
    assert unknown.status_code == 404
    assert error_of(unknown).startswith("Could not find any versions of model nope")


def test_rest_metadata(tfs):
    reply = requests.get(tfs.rest + "/v1/models/simple/metadata", timeout=10)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["model_spec"] == {"name": "simple", "version": "3", "signature_name": ""}
    signature = body["metadata"]["signature_def"]["signature_def"]["serving_default"]
    assert signature["method_name"] == "tensorflow/serving/predict"
    assert set(signature["inputs"]) == {"INPUT0", "INPUT1"}
    assert set(signature["outputs"]) == {"OUTPUT0", "OUTPUT1"}
    info = signature["inputs"]["INPUT0"]
    assert info["dtype"] == "DT_INT32"
    assert info["name"] == "INPUT0"
    assert [d["size"] for d in info["tensor_shape"]["dim"]] == ["-1", "16"]
    labelled = requests.get(tfs.rest + "/v1/models/simple/labels/stable/metadata", timeout=10)
    assert labelled.json()["model_spec"]["version"] == "1"


def test_rest_predict_rows(tfs):
    reply = post(tfs, "/v1/models/simple:predict", {
        "signature_name": "serving_default",
        "instances": [{"INPUT0": A, "INPUT1": B}, {"INPUT0": B, "INPUT1": A}]})
    assert reply.status_code == 200, reply.text
    predictions = reply.json()["predictions"]
    assert predictions[0] == {"OUTPUT0": [a + 1 for a in A], "OUTPUT1": [a - 1 for a in A]}
    assert predictions[1] == {"OUTPUT0": [a + 1 for a in A], "OUTPUT1": [1 - a for a in A]}


def test_rest_predict_columns(tfs):
    reply = post(tfs, "/v1/models/simple/versions/1:predict",
                 {"inputs": {"INPUT0": [A], "INPUT1": [B]}})
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"outputs": {"OUTPUT0": [[a + 1 for a in A]],
                                        "OUTPUT1": [[a - 1 for a in A]]}}


def test_rest_predict_with_labels(tfs):
    for label in ("stable", "canary"):
        reply = post(tfs, f"/v1/models/simple/labels/{label}:predict",
                     {"instances": [{"INPUT0": A, "INPUT1": B}]})
        assert reply.status_code == 200, reply.text
    unknown = post(tfs, "/v1/models/simple/labels/beta:predict",
                   {"instances": [{"INPUT0": A, "INPUT1": B}]})
    assert unknown.status_code == 400
    assert error_of(unknown).startswith("Unrecognized servable version label: beta")


def test_rest_predict_a_real_model_in_both_forms(tfs):
    image = np.random.default_rng(7).random((3, 48, 192), dtype=np.float32)
    rows = post(tfs, "/v1/models/ocr_cls:predict", {"instances": [image.tolist()]})
    assert rows.status_code == 200, rows.text
    probabilities = np.array(rows.json()["predictions"], dtype=np.float32)
    assert probabilities.shape == (1, 2)
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-4)
    columns = post(tfs, "/v1/models/ocr_cls:predict", {"inputs": [image.tolist()]})
    assert np.allclose(columns.json()["outputs"], probabilities, atol=1e-6)
    # The same answer as KServe v2 gives.
    client = httpclient.InferenceServerClient(tfs.http_url)
    infer_input = httpclient.InferInput("x", [1, 3, 48, 192], "FP32")
    infer_input.set_data_from_numpy(image[None])
    expected = client.infer("ocr_cls", [infer_input]).as_numpy("softmax_0.tmp_0")
    assert np.allclose(probabilities, expected, atol=1e-6)


def test_rest_b64_strings(tfs):
    binary = bytes([0, 255, 10, 128])
    reply = post(tfs, "/v1/models/string_identity:predict",
                 {"instances": [[{"b64": base64.b64encode(binary).decode()}, "text"]]})
    assert reply.status_code == 200, reply.text
    # Bytes that are not UTF-8 come back as {"b64": ...}, text as text.
    assert reply.json()["predictions"] == [[{"b64": base64.b64encode(binary).decode()}, "text"]]


@pytest.mark.parametrize("path, body, status, start", [
    ("/v1/models/nope:predict", {"instances": [1]}, 404,
     "Servable not found for request: Latest(nope)"),
    ("/v1/models/simple/versions/9:predict", {"instances": [{"INPUT0": A, "INPUT1": B}]}, 404,
     "Servable not found for request: Specific(simple, 9)"),
    ("/v1/models/simple:predict", {"signature_name": "other", "instances": [1]}, 400,
     'Serving signature key "other" not found.'),
    ("/v1/models/simple:predict", "{not json", 400, "the body is not valid JSON"),
    ("/v1/models/simple:predict", {"instances": [{"INPUT0": A}]}, 400, ""),
    ("/v1/models/simple:predict", {"instances": [{"INPUT0": ["x"] * 16, "INPUT1": B}]}, 400,
     "input 'INPUT0' holds a value that is not an integer"),
    ("/v1/models/simple:predict", {"instances": [{"INPUT0": A, "INPUT1": B}], "inputs": {}}, 400,
     "the body must hold one of 'instances' and 'inputs', not both"),
    ("/v1/models/simple:explain", {}, 400, "Malformed request: POST /v1/models/simple:explain"),
    ("/v1/models/simple:classify", {"examples": []}, 501, ":classify takes tf.Example inputs"),
])
def test_rest_errors(tfs, path, body, status, start):
    reply = post(tfs, path, body)
    assert reply.status_code == status, reply.text
    assert error_of(reply).startswith(start)


def test_rest_other_paths(tfs):
    assert requests.get(tfs.rest + "/v2/health/ready", timeout=10).status_code == 404
    wrong_method = requests.get(tfs.rest + "/v1/models/simple:predict", timeout=10)
    assert wrong_method.status_code == 400
    assert error_of(wrong_method).startswith("Malformed request: GET")


# --- gRPC ---------------------------------------------------------------------------

def int32_tensor(api, values, shape):
    proto = api.tensor_pb2.TensorProto(dtype=api.types_pb2.DT_INT32)
    for dim in shape:
        proto.tensor_shape.dim.add(size=dim)
    proto.int_val.extend(values)
    return proto


def simple_request(api, **spec):
    request = api.predict_pb2.PredictRequest()
    request.model_spec.name = "simple"
    for key, value in spec.items():
        if key == "version":
            request.model_spec.version.value = value
        else:
            setattr(request.model_spec, key, value)
    request.inputs["INPUT0"].CopyFrom(int32_tensor(api, A, [1, 16]))
    request.inputs["INPUT1"].CopyFrom(int32_tensor(api, B, [1, 16]))
    return request


def test_grpc_predict(tfs, api):
    stub = api.prediction_service_pb2_grpc.PredictionServiceStub(tfs.channel)
    response = stub.Predict(simple_request(api, signature_name="serving_default"), timeout=30)
    assert response.model_spec.name == "simple"
    assert response.model_spec.version.value == 3
    assert response.model_spec.signature_name == "serving_default"
    out = response.outputs["OUTPUT0"]
    assert out.dtype == api.types_pb2.DT_INT32
    assert [d.size for d in out.tensor_shape.dim] == [1, 16]
    assert list(out.int_val) == [a + 1 for a in A]
    assert list(response.outputs["OUTPUT1"].int_val) == [a - 1 for a in A]


def test_grpc_predict_versions_labels_and_filter(tfs, api):
    stub = api.prediction_service_pb2_grpc.PredictionServiceStub(tfs.channel)
    assert stub.Predict(simple_request(api, version=1)).model_spec.version.value == 1
    assert stub.Predict(simple_request(api, version_label="stable")).model_spec.version.value == 1
    assert stub.Predict(simple_request(api, version_label="canary")).model_spec.version.value == 2
    request = simple_request(api)
    request.output_filter.append("OUTPUT1")
    assert list(stub.Predict(request).outputs) == ["OUTPUT1"]


def test_grpc_predict_tensor_content_and_strings(tfs, api):
    stub = api.prediction_service_pb2_grpc.PredictionServiceStub(tfs.channel)
    image = np.random.default_rng(3).random((1, 3, 48, 192), dtype=np.float32)
    request = api.predict_pb2.PredictRequest()
    request.model_spec.name = "ocr_cls"
    tensor = request.inputs["x"]
    tensor.dtype = api.types_pb2.DT_FLOAT
    for dim in image.shape:
        tensor.tensor_shape.dim.add(size=dim)
    tensor.tensor_content = image.tobytes()
    out = stub.Predict(request, timeout=30).outputs["softmax_0.tmp_0"]
    assert [d.size for d in out.tensor_shape.dim] == [1, 2]
    assert sum(out.float_val) == pytest.approx(1.0, abs=1e-4)

    request = api.predict_pb2.PredictRequest()
    request.model_spec.name = "string_identity"
    strings = request.inputs["INPUT0"]
    strings.dtype = api.types_pb2.DT_STRING
    strings.tensor_shape.dim.add(size=1)
    strings.tensor_shape.dim.add(size=2)
    strings.string_val.extend([b"\x00\xff", b"text"])
    out = stub.Predict(request, timeout=30).outputs["OUTPUT0"]
    assert out.dtype == api.types_pb2.DT_STRING
    assert list(out.string_val) == [b"\x00\xff", b"text"]


@pytest.mark.parametrize("spec, code, start", [
    ({"version_label": "beta"}, grpc.StatusCode.INVALID_ARGUMENT,
     "Unrecognized servable version label: beta"),
    ({"version": 9}, grpc.StatusCode.NOT_FOUND, "Servable not found for request: Specific(simple, 9)"),
    ({"name": "nope"}, grpc.StatusCode.NOT_FOUND, "Servable not found for request: Latest(nope)"),
    ({"signature_name": "other"}, grpc.StatusCode.FAILED_PRECONDITION,
     'Serving signature key "other" not found.'),
])
def test_grpc_predict_errors(tfs, api, spec, code, start):
    stub = api.prediction_service_pb2_grpc.PredictionServiceStub(tfs.channel)
    with pytest.raises(grpc.RpcError) as error:
        stub.Predict(simple_request(api, **spec), timeout=30)
    assert error.value.code() == code
    assert error.value.details().startswith(start)


def test_grpc_bad_tensor(tfs, api):
    stub = api.prediction_service_pb2_grpc.PredictionServiceStub(tfs.channel)
    request = simple_request(api)
    request.inputs["INPUT0"].int_val.append(99)  # 17 values for 16 elements
    with pytest.raises(grpc.RpcError) as error:
        stub.Predict(request, timeout=30)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "holds 17 values, but its shape has 16 elements" in error.value.details()


def test_grpc_metadata(tfs, api):
    stub = api.prediction_service_pb2_grpc.PredictionServiceStub(tfs.channel)
    request = api.get_model_metadata_pb2.GetModelMetadataRequest(metadata_field=["signature_def"])
    request.model_spec.name = "simple"
    request.model_spec.version_label = "canary"
    response = stub.GetModelMetadata(request, timeout=10)
    assert response.model_spec.version.value == 2
    signatures = api.get_model_metadata_pb2.SignatureDefMap()
    assert response.metadata["signature_def"].Unpack(signatures)
    signature = signatures.signature_def["serving_default"]
    assert signature.inputs["INPUT1"].dtype == api.types_pb2.DT_INT32
    assert [d.size for d in signature.outputs["OUTPUT0"].tensor_shape.dim] == [-1, 16]
    request.ClearField("metadata_field")
    with pytest.raises(grpc.RpcError) as error:
        stub.GetModelMetadata(request, timeout=10)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_grpc_model_status(tfs, api):
    stub = api.model_service_pb2_grpc.ModelServiceStub(tfs.channel)
    request = api.get_model_status_pb2.GetModelStatusRequest()
    request.model_spec.name = "simple"
    response = stub.GetModelStatus(request, timeout=10)
    available = api.get_model_status_pb2.ModelVersionStatus.AVAILABLE
    assert [(s.version, s.state) for s in response.model_version_status] == [
        (1, available), (2, available), (3, available)]
    request.model_spec.version_label = "canary"
    assert [s.version for s in stub.GetModelStatus(request).model_version_status] == [2]
    request.model_spec.name = "nope"
    request.model_spec.ClearField("version_label")
    with pytest.raises(grpc.RpcError) as error:
        stub.GetModelStatus(request, timeout=10)
    assert error.value.code() == grpc.StatusCode.NOT_FOUND


def test_grpc_classify_is_not_served(tfs, api):
    stub = api.prediction_service_pb2_grpc.PredictionServiceStub(tfs.channel)
    request = api.classification_pb2.ClassificationRequest()
    request.model_spec.name = "simple"
    with pytest.raises(grpc.RpcError) as error:
        stub.Classify(request, timeout=10)
    assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED


# --- version labels from KServe v2 -------------------------------------------------

def simple_inputs(module):
    inputs = [module.InferInput("INPUT0", [1, 16], "INT32"),
              module.InferInput("INPUT1", [1, 16], "INT32")]
    inputs[0].set_data_from_numpy(np.array([A], dtype=np.int32))
    inputs[1].set_data_from_numpy(np.array([B], dtype=np.int32))
    return inputs


@pytest.mark.parametrize("module, url", [(httpclient, "http_url"), (grpcclient, "grpc_url")])
def test_kserve_version_label_parameter(tfs, module, url):
    client = module.InferenceServerClient(getattr(tfs, url))
    for label, version in (("stable", "1"), ("canary", "2")):
        result = client.infer("simple", simple_inputs(module), parameters={"version_label": label})
        response = result.get_response()
        got = response["model_version"] if module is httpclient else response.model_version
        assert got == version
    with pytest.raises(Exception) as error:
        client.infer("simple", simple_inputs(module), parameters={"version_label": "beta"})
    assert "Unrecognized servable version label: beta" in str(error.value)


def test_labels_from_the_load_api(repo, make_server, tmp_path):
    rest_port, = free_ports(1)
    running = make_server(repo, "--model-control-mode=explicit", "--load-model=simple",
                          "--tfs-rest-port", str(rest_port))
    config = requests.get(f"http://{running.http_url}/v2/models/simple/config", timeout=10).json()
    config["parameters"] = {"version_labels": {"string_value": "stable:3"}}
    reply = requests.post(f"http://{running.http_url}/v2/repository/models/simple/load",
                          json={"parameters": {"config": json.dumps(config)}}, timeout=60)
    assert reply.status_code == 200, reply.text
    status = requests.get(f"http://127.0.0.1:{rest_port}/v1/models/simple/labels/stable",
                          timeout=10).json()
    assert [s["version"] for s in status["model_version_status"]] == ["3"]
    gone = requests.get(f"http://127.0.0.1:{rest_port}/v1/models/simple/labels/canary", timeout=10)
    assert gone.status_code == 400
    assert error_of(gone).startswith("Unrecognized servable version label: canary")
