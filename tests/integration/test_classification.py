# SPDX-License-Identifier: Apache-2.0
"""The classification extension (docs/api.md, "Classification") with
tritonclient HTTP and gRPC: `class_count` on a requested output answers its
top k as BYTES "value:index:label", labels from the output's label_filename.

Models: the OCR angle classifier (examples/models/ocr_cls, ONNX) with a
label file, generated ONNX identities (batched FP32 with labels, unbatched
INT32 without, a BYTES one to refuse) and an ensemble over the batched one.
"""
import shutil

import numpy as np
import onnx
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from onnx import TensorProto, helper
from tritonclient.utils import InferenceServerException

from conftest import EXAMPLES, RunningServer

LABELS = ["cat", "dog", "", "fish"]  # index 2 has an empty label, index 4 none at all
OCR_OUTPUT = "softmax_0.tmp_0"


def identity_model(folder, onnx_type, dims):
    graph = helper.make_graph(
        [helper.make_node("Identity", ["IN"], ["OUT"])], folder.name,
        [helper.make_tensor_value_info("IN", onnx_type, dims)],
        [helper.make_tensor_value_info("OUT", onnx_type, dims)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    (folder / "1").mkdir(parents=True)
    onnx.save(model, str(folder / "1" / "model.onnx"))


@pytest.fixture(scope="module")
def classify_server(tmp_path_factory):
    repo = tmp_path_factory.mktemp("classification_models")
    # The OCR angle classifier: two probabilities per image, labelled 0 and 180 degrees.
    ocr = repo / "ocr_angle"
    (ocr / "1").mkdir(parents=True)
    shutil.copy(EXAMPLES / "ocr_cls" / "1" / "model.onnx", ocr / "1" / "model.onnx")
    (ocr / "angles.txt").write_text("0\n180\n")
    (ocr / "config.pbtxt").write_text(
        'name: "ocr_angle"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\n'
        'input [{ name: "x" data_type: TYPE_FP32 dims: [ 3, -1, -1 ] }]\n'
        f'output [{{ name: "{OCR_OUTPUT}" data_type: TYPE_FP32 dims: [ 2 ] '
        'label_filename: "angles.txt" }]\n')

    identity_model(repo / "scores", TensorProto.FLOAT, ["b", 5])
    (repo / "scores" / "labels.txt").write_text("\n".join(LABELS) + "\n")
    (repo / "scores" / "config.pbtxt").write_text(
        'name: "scores"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 4\n'
        'input [{ name: "IN" data_type: TYPE_FP32 dims: [ 5 ] }]\n'
        'output [{ name: "OUT" data_type: TYPE_FP32 dims: [ 5 ] label_filename: "labels.txt" }]\n')

    identity_model(repo / "counts", TensorProto.INT32, [2, 3])
    (repo / "counts" / "config.pbtxt").write_text(
        'name: "counts"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\n'
        'input [{ name: "IN" data_type: TYPE_INT32 dims: [ 2, 3 ] }]\n'
        'output [{ name: "OUT" data_type: TYPE_INT32 dims: [ 2, 3 ] }]\n')

    identity_model(repo / "words", TensorProto.STRING, [-1])
    (repo / "words" / "config.pbtxt").write_text(
        'name: "words"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\n'
        'input [{ name: "IN" data_type: TYPE_STRING dims: [ -1 ] }]\n'
        'output [{ name: "OUT" data_type: TYPE_STRING dims: [ -1 ] }]\n')

    # The ensemble's own output names its own label file, as in Triton.
    ensemble = repo / "scores_ensemble"
    (ensemble / "1").mkdir(parents=True)
    (ensemble / "upper.txt").write_text("CAT\nDOG\nBIRD\nFISH\nOWL\n")
    (ensemble / "config.pbtxt").write_text(
        'name: "scores_ensemble"\nplatform: "ensemble"\nmax_batch_size: 4\n'
        'input [{ name: "E_IN" data_type: TYPE_FP32 dims: [ 5 ] }]\n'
        'output [{ name: "E_OUT" data_type: TYPE_FP32 dims: [ 5 ] label_filename: "upper.txt" }]\n'
        'ensemble_scheduling { step [ { model_name: "scores" model_version: -1 '
        'input_map { key: "IN" value: "E_IN" } output_map { key: "OUT" value: "E_OUT" } } ] }\n')

    running = RunningServer([repo], [], tmp_path_factory.mktemp("classification_log") / "server.log")
    yield running
    running.stop()


def expected(row, k, labels=None):
    """Triton's strings for one row: std::to_string of the value ("%f" for
    floats), the index, and the label when there is a non-empty one."""
    order = sorted(range(len(row)), key=lambda i: (-row[i], i))[:k]
    out = []
    for i in order:
        value = "%f" % row[i] if isinstance(row[i], (float, np.floating)) else str(int(row[i]))
        text = f"{value}:{i}"
        if labels and i < len(labels) and labels[i]:
            text += f":{labels[i]}"
        out.append(text.encode())
    return out


SCORES = np.array([[0.1, 0.5, 0.3, 0.05, 0.9],
                   [0.7, 0.2, 0.2, 0.6, 0.0]], dtype=np.float32)


def http_infer(server, model, array, datatype, output, class_count, binary_data=True):
    client = httpclient.InferenceServerClient(server.http_url)
    inp = httpclient.InferInput("IN" if model != "scores_ensemble" else "E_IN", list(array.shape),
                                datatype)
    inp.set_data_from_numpy(array)
    out = httpclient.InferRequestedOutput(output, binary_data=binary_data, class_count=class_count)
    return client.infer(model, [inp], outputs=[out])


def grpc_infer(server, model, array, datatype, output, class_count):
    with grpcclient.InferenceServerClient(server.grpc_url) as client:
        inp = grpcclient.InferInput("IN" if model != "scores_ensemble" else "E_IN",
                                    list(array.shape), datatype)
        inp.set_data_from_numpy(array)
        out = grpcclient.InferRequestedOutput(output, class_count=class_count)
        return client.infer(model, [inp], outputs=[out])


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_ocr_classifier_top_angle_per_image(classify_server, protocol):
    images = np.random.default_rng(5).random((3, 3, 48, 192), dtype=np.float32)
    http = httpclient.InferenceServerClient(classify_server.http_url)
    inp = httpclient.InferInput("x", list(images.shape), "FP32")
    inp.set_data_from_numpy(images)
    probabilities = http.infer("ocr_angle", [inp]).as_numpy(OCR_OUTPUT)
    assert probabilities.shape == (3, 2)

    if protocol == "http":
        client = http
        out = httpclient.InferRequestedOutput(OCR_OUTPUT, class_count=2)
    else:
        client = grpcclient.InferenceServerClient(classify_server.grpc_url)
        inp = grpcclient.InferInput("x", list(images.shape), "FP32")
        inp.set_data_from_numpy(images)
        out = grpcclient.InferRequestedOutput(OCR_OUTPUT, class_count=2)
    result = client.infer("ocr_angle", [inp], outputs=[out])
    classes = result.as_numpy(OCR_OUTPUT)
    assert classes.shape == (3, 2)
    assert classes.dtype == np.object_
    for row, got in zip(probabilities, classes):
        assert list(got) == expected(row, 2, ["0", "180"])
        assert got[0].endswith(b":0:0" if row[0] >= row[1] else b":1:180")
    top1 = (http if protocol == "http" else client).infer(
        "ocr_angle", [inp],
        outputs=[(httpclient if protocol == "http" else grpcclient).InferRequestedOutput(
            OCR_OUTPUT, class_count=1)]).as_numpy(OCR_OUTPUT)
    assert top1.shape == (3, 1)


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_batched_rows_with_labels(classify_server, protocol):
    infer = http_infer if protocol == "http" else grpc_infer
    result = infer(classify_server, "scores", SCORES, "FP32", "OUT", 3)
    classes = result.as_numpy("OUT")
    assert classes.shape == (2, 3)
    assert list(classes[0]) == [b"0.900000:4", b"0.500000:1:dog", b"0.300000:2"]
    assert list(classes[1]) == [b"0.700000:0:cat", b"0.600000:3:fish", b"0.200000:1:dog"]
    output = result.get_output("OUT")
    assert (output["datatype"] if protocol == "http" else output.datatype) == "BYTES"


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_unbatched_output_is_one_row_and_k_above_the_size_gives_all(classify_server, protocol):
    counts = np.array([[4, -1, 9], [9, 0, 2]], dtype=np.int32)
    infer = http_infer if protocol == "http" else grpc_infer
    classes = infer(classify_server, "counts", counts, "INT32", "OUT", 10).as_numpy("OUT")
    assert classes.shape == (6,)
    assert list(classes) == [b"9:2", b"9:3", b"4:0", b"2:5", b"0:4", b"-1:1"]


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_ensemble_output_uses_the_ensembles_labels(classify_server, protocol):
    infer = http_infer if protocol == "http" else grpc_infer
    classes = infer(classify_server, "scores_ensemble", SCORES, "FP32", "E_OUT", 2).as_numpy("E_OUT")
    assert classes.shape == (2, 2)
    assert list(classes[0]) == [b"0.900000:4:OWL", b"0.500000:1:DOG"]
    assert list(classes[1]) == [b"0.700000:0:CAT", b"0.600000:3:FISH"]


def test_http_json_and_binary_classification_agree(classify_server):
    binary = http_infer(classify_server, "scores", SCORES, "FP32", "OUT", 2, binary_data=True)
    as_json = http_infer(classify_server, "scores", SCORES, "FP32", "OUT", 2, binary_data=False)
    assert binary.get_output("OUT")["parameters"]["binary_data_size"] > 0
    assert "data" in as_json.get_output("OUT")
    assert [s.encode() for s in as_json.as_numpy("OUT").ravel()] == list(binary.as_numpy("OUT").ravel())
    # The plain JSON answer, as curl would see it.
    reply = requests.post(f"http://{classify_server.http_url}/v2/models/scores/infer", timeout=10, json={
        "inputs": [{"name": "IN", "datatype": "FP32", "shape": [1, 5], "data": SCORES[0].tolist()}],
        "outputs": [{"name": "OUT", "parameters": {"classification": 1}}]})
    assert reply.status_code == 200, reply.text
    assert reply.json()["outputs"] == [
        {"name": "OUT", "datatype": "BYTES", "shape": [1, 1], "data": ["0.900000:4"]}]


def test_classification_is_advertised(classify_server):
    http = httpclient.InferenceServerClient(classify_server.http_url)
    assert "classification" in http.get_server_metadata()["extensions"]
    with grpcclient.InferenceServerClient(classify_server.grpc_url) as client:
        assert "classification" in client.get_server_metadata().extensions


def test_errors_over_http(classify_server):
    words = np.array([b"a", b"b"], dtype=np.object_)
    with pytest.raises(InferenceServerException) as error:
        http_infer(classify_server, "words", words, "BYTES", "OUT", 1)
    assert "model 'words' output 'OUT': class result not available for output due to " \
        "unsupported type 'BYTES'" in error.value.message()
    url = f"http://{classify_server.http_url}/v2/models/scores/infer"
    for bad in (0, -2, 1.5, "3"):
        reply = requests.post(url, timeout=10, json={
            "inputs": [{"name": "IN", "datatype": "FP32", "shape": [1, 5], "data": [0] * 5}],
            "outputs": [{"name": "OUT", "parameters": {"classification": bad}}]})
        assert reply.status_code == 400, (bad, reply.text)
        assert "parameter classification must be a positive integer" in reply.json()["error"]


def test_errors_over_grpc(classify_server):
    words = np.array([b"a", b"b"], dtype=np.object_)
    with pytest.raises(InferenceServerException) as error:
        grpc_infer(classify_server, "words", words, "BYTES", "OUT", 1)
    assert error.value.status() == "StatusCode.INVALID_ARGUMENT"
    assert "unsupported type 'BYTES'" in error.value.message()
    with grpcclient.InferenceServerClient(classify_server.grpc_url) as client:
        inp = grpcclient.InferInput("IN", [1, 5], "FP32")
        inp.set_data_from_numpy(SCORES[:1])
        out = grpcclient.InferRequestedOutput("OUT")
        # tritonclient never sends a count of 0 or less; set it underneath.
        out._get_tensor().parameters["classification"].int64_param = -1
        with pytest.raises(InferenceServerException) as error:
            client.infer("scores", [inp], outputs=[out])
        assert error.value.status() == "StatusCode.INVALID_ARGUMENT"
        assert "parameter 'classification' must be a positive int64_param" in error.value.message()


def test_missing_label_file_keeps_the_model_from_loading(make_server, tmp_path):
    repo = tmp_path / "repo"
    identity_model(repo / "unlabelled", TensorProto.FLOAT, [3])
    (repo / "unlabelled" / "config.pbtxt").write_text(
        'name: "unlabelled"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 0\n'
        'input [{ name: "IN" data_type: TYPE_FP32 dims: [ 3 ] }]\n'
        'output [{ name: "OUT" data_type: TYPE_FP32 dims: [ 3 ] label_filename: "gone.txt" }]\n')
    server = make_server(repo)
    index = requests.post(f"http://{server.http_url}/v2/repository/index", timeout=10).json()
    entry = next(e for e in index if e["name"] == "unlabelled")
    assert entry["state"] == "UNAVAILABLE"
    assert "cannot read its label_filename 'gone.txt'" in entry["reason"]
