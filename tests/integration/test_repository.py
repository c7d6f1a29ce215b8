# SPDX-License-Identifier: Apache-2.0
"""Model repositories as Triton users lay them out: versions and policies,
configs with mistakes, broken model files, missing configs, several
repositories. A model that cannot load is UNAVAILABLE with its reason and
never takes the others down."""
import shutil

import numpy as np
import onnx
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from onnx import TensorProto, helper, numpy_helper

from conftest import EXAMPLES

SIMPLE_CONFIG = (EXAMPLES / "simple" / "config.pbtxt").read_text()


def add_constant_model(path, value, external=False):
    """y = x + value, FP32 [-1, 4]; value identifies the version that answered."""
    # raw_data (from numpy) so that the tensor can be saved as external data.
    const = numpy_helper.from_array(np.full([4], value, np.float32), "c")
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "c"], ["y"])], "add_const",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])], initializer=[const])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path.parent.mkdir(parents=True, exist_ok=True)
    if external:
        onnx.save(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                  location="weights.bin", size_threshold=0)
    else:
        onnx.save(model, str(path))


def make_versions(repo, name, versions, config=None):
    for v in versions:
        add_constant_model(repo / name / str(v) / "model.onnx", v)
    if config is not None:
        (repo / name / "config.pbtxt").write_text(config)


def infer_constant(url, model, version=""):
    client = httpclient.InferenceServerClient(url)
    x = httpclient.InferInput("x", [1, 4], "FP32")
    x.set_data_from_numpy(np.zeros((1, 4), np.float32))
    result = client.infer(model, [x], model_version=version)
    return result.as_numpy("y")[0, 0], result.get_response()["model_version"]


def index(url):
    rows = requests.post(f"http://{url}/v2/repository/index").json()
    return {(r["name"], r.get("version", "")): r for r in rows}


def test_version_policies(tmp_path, make_server):
    make_versions(tmp_path, "latest1", [1, 2, 3])
    make_versions(tmp_path, "latest2", [1, 2, 3], 'version_policy: { latest: { num_versions: 2 } }\n')
    make_versions(tmp_path, "all", [1, 3], "version_policy: { all: { } }\n")
    make_versions(tmp_path, "specific", [1, 2, 3], "version_policy: { specific: { versions: [1, 3] } }\n")
    # Folders that are not versions are ignored.
    (tmp_path / "latest1" / "01").mkdir()
    (tmp_path / "latest1" / "warmup").mkdir()
    server = make_server(tmp_path)
    assert infer_constant(server.http_url, "latest1") == (3.0, "3")
    assert infer_constant(server.http_url, "latest2") == (3.0, "3")
    assert infer_constant(server.http_url, "latest2", "2") == (2.0, "2")
    assert infer_constant(server.http_url, "all", "1") == (1.0, "1")
    assert infer_constant(server.http_url, "specific", "1") == (1.0, "1")
    assert infer_constant(server.http_url, "specific") == (3.0, "3")
    meta = requests.get(f"http://{server.http_url}/v2/models/specific").json()
    assert meta["versions"] == ["1", "3"]
    # A version the policy did not select is unknown.
    r = requests.get(f"http://{server.http_url}/v2/models/specific/versions/2/ready")
    assert r.status_code != 200
    with pytest.raises(Exception, match="version"):
        infer_constant(server.http_url, "latest1", "1")


def test_broken_models_are_unavailable_and_others_serve(tmp_path, make_server):
    shutil.copytree(EXAMPLES / "simple", tmp_path / "simple")
    make_versions(tmp_path, "good", [1])
    # A corrupt model file.
    (tmp_path / "corrupt" / "1").mkdir(parents=True)
    (tmp_path / "corrupt" / "1" / "model.onnx").write_bytes(b"this is not an onnx file")
    # A config with an unknown field on line 3.
    make_versions(tmp_path, "typo", [1], 'platform: "onnxruntime_onnx"\nmax_batch_size: 8\nmax_batch_sise: 4\n')
    # A config with two problems: both must be reported at once.
    make_versions(tmp_path, "invalid", [1], 'platform: "onnxruntime_onnx"\nmax_batch_size: -1\n'
                  'input [ { name: "x" data_type: TYPE_FP32 dims: [ 0 ] } ]\n'
                  'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n')
    # A backend that does not exist.
    make_versions(tmp_path, "nobackend", [1], 'backend: "tensorflow_xyz"\n')
    # A model folder with no version.
    (tmp_path / "empty").mkdir()
    # GPU instances on a CPU-only build.
    make_versions(tmp_path, "gpu", [1], 'instance_group [ { kind: KIND_GPU } ]\n')
    server = make_server(tmp_path)
    rows = index(server.http_url)
    for name in ("corrupt", "typo", "invalid", "nobackend", "gpu"):
        assert rows[(name, "1")]["state"] == "UNAVAILABLE", rows
    assert "config.pbtxt:3" in rows[("typo", "1")]["reason"]
    assert "max_batch_sise" in rows[("typo", "1")]["reason"]
    reason = rows[("invalid", "1")]["reason"]
    assert "max_batch_size" in reason and "dimension 0" in reason, reason
    assert "tensorflow_xyz" in rows[("nobackend", "1")]["reason"]
    assert "KIND_GPU" in rows[("gpu", "1")]["reason"]
    assert rows[("empty", "")]["state"] == "UNAVAILABLE"
    assert rows[("good", "1")]["state"] == "READY"
    assert infer_constant(server.http_url, "good") == (1.0, "1")
    # Strict readiness: the server is not ready, but live and serving.
    assert requests.get(f"http://{server.http_url}/v2/health/live").status_code == 200
    assert requests.get(f"http://{server.http_url}/v2/health/ready").status_code == 400
    r = requests.post(f"http://{server.http_url}/v2/models/corrupt/infer", json={"inputs": []})
    assert r.status_code == 503 and r.json()["error"].startswith(
        "Request for unknown model: 'corrupt' has no available versions: ")
    grpc = grpcclient.InferenceServerClient(server.grpc_url)
    assert not grpc.is_model_ready("corrupt")
    assert grpc.is_model_ready("simple")


def test_auto_complete_and_strict_mode(tmp_path, make_server):
    make_versions(tmp_path, "derived", [1])
    server = make_server(tmp_path)
    config = requests.get(f"http://{server.http_url}/v2/models/derived/config").json()
    assert config["max_batch_size"] == 4
    assert config["input"][0]["name"] == "x" and config["input"][0]["dims"] == [4]
    assert config["output"][0]["data_type"] == "TYPE_FP32"
    assert "dynamic_batching" in config
    assert config["instance_group"][0]["kind"] == "KIND_CPU"
    server.stop()
    strict = make_server(tmp_path, "--disable-auto-complete-config")
    row = index(strict.http_url)[("derived", "1")]
    assert row["state"] == "UNAVAILABLE" and "auto-complete" in row["reason"]


def test_several_repositories_and_duplicates(tmp_path, make_server):
    first, second = tmp_path / "a", tmp_path / "b"
    make_versions(first, "one", [1])
    make_versions(second, "two", [2])
    make_versions(first, "both", [1])
    make_versions(second, "both", [1])
    server = make_server([first, second])
    assert infer_constant(server.http_url, "one") == (1.0, "1")
    assert infer_constant(server.http_url, "two") == (2.0, "2")
    # A model-level failure is shown on the versions the model would serve.
    rows = [r for (name, _), r in index(server.http_url).items() if name == "both"]
    assert rows, index(server.http_url)
    for row in rows:
        assert row["state"] == "UNAVAILABLE" and "more than one repository" in row["reason"]


def test_external_weights_and_instances(tmp_path, make_server):
    add_constant_model(tmp_path / "ext" / "1" / "model.onnx" / "model.onnx", 7, external=True)
    assert (tmp_path / "ext" / "1" / "model.onnx" / "weights.bin").exists()
    make_versions(tmp_path, "three", [1], "instance_group [ { count: 3 kind: KIND_CPU } ]\n"
                  'parameters { key: "intra_op_thread_count" value: { string_value: "1" } }\n')
    server = make_server(tmp_path)
    assert infer_constant(server.http_url, "ext") == (7.0, "1")
    config = requests.get(f"http://{server.http_url}/v2/models/three/config").json()
    assert config["instance_group"][0]["count"] == 3
    assert infer_constant(server.http_url, "three") == (1.0, "1")


def test_missing_repository_fails_start(tmp_path):
    import subprocess
    from conftest import BINARY
    run = subprocess.run([str(BINARY), "serve", "--model-repository", str(tmp_path / "nope"),
                          "--http-port", "0", "--grpc-port", "0"], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "nope" in run.stdout + run.stderr
