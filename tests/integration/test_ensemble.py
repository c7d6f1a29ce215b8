# SPDX-License-Identifier: Apache-2.0
"""Ensembles (platform "ensemble") as Triton users write them, against the
real inferd binary: data flow over HTTP and gRPC, validation that names every
problem's step, a failing step, statistics, cancellation and deadlines, and
the lifecycle (composing models load first, readiness follows them,
unload_dependents, swaps under load, shutdown drain)."""
import concurrent.futures
import threading
import time

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import ensemble_repo as er

CLIENTS = {"http": httpclient, "grpc": grpcclient}


def client_for(server, protocol):
    url = server.http_url if protocol == "http" else server.grpc_url
    return CLIENTS[protocol].InferenceServerClient(url)


def ab_inputs(module, a, b, names=("A", "B")):
    inputs = []
    for name, data in zip(names, (a, b)):
        tensor = module.InferInput(name, list(data.shape), "INT32")
        tensor.set_data_from_numpy(data)
        inputs.append(tensor)
    return inputs


def index(server):
    return {(m["name"], m.get("version", "")): m for m in
            requests.post(f"http://{server.http_url}/v2/repository/index", json={}).json()}


def model_stats(server, model):
    return requests.get(f"http://{server.http_url}/v2/models/{model}/stats").json()["model_stats"]


A = np.arange(16, dtype=np.int32).reshape(1, 16)
B = np.full((1, 16), 3, dtype=np.int32)


@pytest.fixture
def pipeline_repo(tmp_path):
    repo = tmp_path / "models"
    er.add_simple(repo)
    er.add_chain(repo)
    er.add_diamond(repo)
    return repo


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_chain_and_diamond_compute_through_every_step(make_server, pipeline_repo, protocol):
    server = make_server(pipeline_repo)
    client = client_for(server, protocol)
    module = CLIENTS[protocol]
    result = client.infer("chain", ab_inputs(module, A, B))
    np.testing.assert_array_equal(result.as_numpy("TWICE_A"), 2 * A)
    np.testing.assert_array_equal(result.as_numpy("TWICE_B"), 2 * B)
    result = client.infer("diamond", ab_inputs(module, A, B))
    np.testing.assert_array_equal(result.as_numpy("SUM"), 3 * A + B)
    np.testing.assert_array_equal(result.as_numpy("DIFF"), B - A)
    # A batch of several rows goes through as one request per step.
    a3 = np.arange(48, dtype=np.int32).reshape(3, 16)
    result = client.infer("chain", ab_inputs(module, a3, a3))
    np.testing.assert_array_equal(result.as_numpy("TWICE_B"), 2 * a3)


def test_metadata_and_config_describe_the_ensemble(make_server, pipeline_repo):
    server = make_server(pipeline_repo)
    metadata = requests.get(f"http://{server.http_url}/v2/models/chain").json()
    assert metadata["platform"] == "ensemble"
    assert [i["name"] for i in metadata["inputs"]] == ["A", "B"]
    assert metadata["inputs"][0]["shape"] == [-1, 16]
    config = requests.get(f"http://{server.http_url}/v2/models/chain/config").json()
    steps = config["ensemble_scheduling"]["step"]
    assert [s["model_name"] for s in steps] == ["simple", "simple"]
    assert steps[0]["model_version"] == -1  # a JSON number, as Triton prints it


def test_requested_output_subset_runs_only_the_needed_steps(make_server, pipeline_repo):
    server = make_server(pipeline_repo)
    client = httpclient.InferenceServerClient(server.http_url)
    before = model_stats(server, "simple")[0]["inference_count"]
    result = client.infer("diamond", ab_inputs(httpclient, A, B),
                          outputs=[httpclient.InferRequestedOutput("DIFF")])
    np.testing.assert_array_equal(result.as_numpy("DIFF"), B - A)
    assert result.as_numpy("SUM") is None
    # All three steps lead to DIFF; a chain's first step alone cannot be asked for.
    assert model_stats(server, "simple")[0]["inference_count"] == before + 3


def test_statistics_count_ensemble_traffic_in_composing_models(make_server, pipeline_repo):
    server = make_server(pipeline_repo)
    client = grpcclient.InferenceServerClient(server.grpc_url)
    for _ in range(5):
        client.infer("chain", ab_inputs(grpcclient, A, B))
    client.infer("simple", ab_inputs(grpcclient, A, B, names=("INPUT0", "INPUT1")))
    chain = model_stats(server, "chain")[0]
    simple = model_stats(server, "simple")[0]
    assert chain["inference_count"] == 5
    assert chain["inference_stats"]["success"]["count"] == 5
    assert simple["inference_count"] == 5 * 2 + 1
    metrics = requests.get(f"http://{server.metrics_url}/metrics").text
    assert 'nv_inference_request_success{model="chain",version="1"} 5' in metrics
    assert 'nv_inference_request_success{model="simple",version="1"} 11' in metrics


def write_bad_ensembles(repo):
    er.add_simple(repo)
    er.add_checked_identity(repo, "fp_only")  # INT32 IN/OUT
    t = er.tensor
    # Several problems in one config: every one must be reported.
    er.add_ensemble(repo, "many_problems", [t("A"), t("B"), t("UNUSED")], [t("OUT"), t("NEVER")], [
        er.step("no_such_model", {"X": "A"}, {"Y": "mid"}),
        er.step("simple", {"INPUT0": "A", "NOT_AN_INPUT": "B"}, {"OUTPUT0": "OUT"}),
        er.step("simple", {"INPUT0": "A", "INPUT1": "B"}, {"OUTPUT0": "OUT", "BOGUS": "x"}),
    ])
    er.add_ensemble(repo, "cycle", [t("A")], [t("OUT")], [
        er.step("simple", {"INPUT0": "A", "INPUT1": "loop2"}, {"OUTPUT0": "loop1", "OUTPUT1": "OUT"}),
        er.step("simple", {"INPUT0": "loop1", "INPUT1": "A"}, {"OUTPUT0": "loop2"}),
    ])
    er.add_ensemble(repo, "mismatch", [t("A", "TYPE_FP32"), t("B", dims="[ 8 ]")], [t("OUT")], [
        er.step("simple", {"INPUT0": "A", "INPUT1": "B"}, {"OUTPUT0": "OUT"}),
    ])
    er.add_ensemble(repo, "too_big", [t("A"), t("B")], [t("OUT")], [
        er.step("simple", {"INPUT0": "A", "INPUT1": "B"}, {"OUTPUT0": "OUT"}),
    ], max_batch_size=64)
    er.add_ensemble(repo, "good", [t("A"), t("B")], [t("OUT")], [
        er.step("simple", {"INPUT0": "A", "INPUT1": "B"}, {"OUTPUT0": "OUT"}),
    ])


def test_validation_reports_every_problem_naming_its_step(make_server, tmp_path):
    repo = tmp_path / "models"
    write_bad_ensembles(repo)
    server = make_server(repo)
    entries = index(server)
    reason = entries[("many_problems", "1")]["reason"]
    assert entries[("many_problems", "1")]["state"] == "UNAVAILABLE"
    for expected in [
        "step 1 ('no_such_model'): model 'no_such_model' is not loaded",
        "step 2 ('simple'): input_map names 'NOT_AN_INPUT', which is not an input of 'simple'",
        "step 2 ('simple'): input 'INPUT1' of 'simple' is not mapped",
        "step 3 ('simple'): output_map names 'BOGUS', which is not an output of 'simple'",
        "ensemble tensor 'OUT' is written twice: by step 2 ('simple') and by step 3 ('simple')",
        "ensemble tensor 'NEVER' is never written",
        "ensemble tensor 'UNUSED' is never read (an ensemble input no step uses)",
        "ensemble tensor 'mid' is never read",
    ]:
        assert expected in reason, (expected, reason)
    assert "the steps form a cycle: step 1 ('simple'), step 2 ('simple')" in \
        entries[("cycle", "1")]["reason"]
    mismatch = entries[("mismatch", "1")]["reason"]
    assert ("ensemble tensor 'A' is written as TYPE_FP32 [-1,16] (ensemble input) but read as "
            "TYPE_INT32 [-1,16] (step 1 ('simple') input 'INPUT0')") in mismatch
    assert "ensemble tensor 'B' is written as TYPE_INT32 [-1,8]" in mismatch
    assert "the ensemble's max_batch_size 64 is larger than 'simple''s 8" in \
        entries[("too_big", "1")]["reason"]
    assert entries[("good", "1")]["state"] == "READY"
    # A broken ensemble takes nothing else down.
    result = httpclient.InferenceServerClient(server.http_url).infer(
        "good", ab_inputs(httpclient, A, B))
    np.testing.assert_array_equal(result.as_numpy("OUT"), A + B)
    with pytest.raises(InferenceServerException, match="many_problems"):
        httpclient.InferenceServerClient(server.http_url).infer(
            "many_problems", ab_inputs(httpclient, A, B))


def test_ensemble_folder_mistakes_are_clear(make_server, tmp_path):
    repo = tmp_path / "models"
    er.add_simple(repo)
    folder = repo / "with_backend"
    (folder / "1").mkdir(parents=True)
    (folder / "config.pbtxt").write_text(
        'name: "with_backend" platform: "ensemble" backend: "onnxruntime" '
        f'input [ {er.tensor("A")} ] output [ {er.tensor("B")} ]')
    folder = repo / "no_steps"
    (folder / "1").mkdir(parents=True)
    (folder / "config.pbtxt").write_text(
        f'name: "no_steps" platform: "ensemble" input [ {er.tensor("A")} ] '
        f'output [ {er.tensor("B")} ]')
    server = make_server(repo)
    entries = index(server)
    assert "an ensemble must not set 'backend'" in entries[("with_backend", "1")]["reason"]
    assert "needs 'ensemble_scheduling'" in entries[("no_steps", "1")]["reason"]


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_a_failing_step_fails_the_request_naming_step_model_and_version(
        make_server, tmp_path, protocol):
    repo = tmp_path / "models"
    er.add_simple(repo)
    er.add_checked_identity(repo, "checked")
    er.add_ensemble(repo, "guarded", [er.tensor("A"), er.tensor("B")], [er.tensor("OUT")], [
        er.step("simple", {"INPUT0": "A", "INPUT1": "B"}, {"OUTPUT0": "sum"}),
        er.step("checked", {"IN": "sum"}, {"OUT": "OUT"}),
    ])
    server = make_server(repo)
    client = client_for(server, protocol)
    module = CLIENTS[protocol]
    ok = client.infer("guarded", ab_inputs(module, A, B))
    np.testing.assert_array_equal(ok.as_numpy("OUT"), A + B)
    with pytest.raises(InferenceServerException) as failure:
        client.infer("guarded", ab_inputs(module, -A - 5, B))
    message = str(failure.value)
    assert ("ensemble 'guarded' step 2 ('checked') failed: model 'checked' version 1: "
            "negative input: -2") in message
    # The step's status code passes through the ensemble unchanged.
    with pytest.raises(InferenceServerException) as direct:
        tensor = module.InferInput("IN", [1, 16], "INT32")
        tensor.set_data_from_numpy(-A - 2)
        client.infer("checked", [tensor])
    assert failure.value.status() == direct.value.status()
    # The failure is counted once for the ensemble, and the server goes on.
    stats = model_stats(server, "guarded")[0]["inference_stats"]
    assert stats["fail"]["count"] == 1 and stats["success"]["count"] == 1
    np.testing.assert_array_equal(client.infer("guarded", ab_inputs(module, A, B))
                                  .as_numpy("OUT"), A + B)


def test_grpc_deadline_reaches_a_queued_step(make_server, tmp_path):
    repo = tmp_path / "models"
    er.add_checked_identity(repo, "slow", delay_ms=400, max_batch_size=0)
    t = er.tensor
    er.add_ensemble(repo, "slow_pipe", [t("A")], [t("OUT")], [
        er.step("slow", {"IN": "A"}, {"OUT": "mid"}),
        er.step("slow", {"IN": "mid"}, {"OUT": "OUT"}),
    ], max_batch_size=0)
    server = make_server(repo)
    client = grpcclient.InferenceServerClient(server.grpc_url)
    data = np.ones(16, dtype=np.int32)
    tensor = grpcclient.InferInput("A", [16], "INT32")
    tensor.set_data_from_numpy(data)
    with pytest.raises(InferenceServerException) as failure:
        client.infer("slow_pipe", [tensor], client_timeout=0.2)
    assert "Deadline" in str(failure.value) or "DEADLINE" in str(failure.value)
    # The deadline passed while step 1 ran (it runs to its end); step 2 is
    # never started for that request.
    time.sleep(0.6)
    assert model_stats(server, "slow")[0]["inference_stats"]["success"]["count"] == 1
    assert model_stats(server, "slow_pipe")[0]["inference_stats"]["fail"]["count"] == 1
    result = client.infer("slow_pipe", [tensor])
    np.testing.assert_array_equal(result.as_numpy("OUT"), data)


def test_http_client_disconnect_cancels_pending_steps(make_server, tmp_path):
    repo = tmp_path / "models"
    er.add_checked_identity(repo, "slow", delay_ms=300, max_batch_size=0)
    t = er.tensor
    er.add_ensemble(repo, "slow_pipe", [t("A")], [t("OUT")], [
        er.step("slow", {"IN": "A"}, {"OUT": "mid"}),
        er.step("slow", {"IN": "mid"}, {"OUT": "OUT"}),
    ], max_batch_size=0)
    server = make_server(repo)
    body = {"inputs": [{"name": "A", "shape": [16], "datatype": "INT32", "data": [1] * 16}]}
    with pytest.raises(requests.exceptions.Timeout):
        requests.post(f"http://{server.http_url}/v2/models/slow_pipe/infer", json=body,
                      timeout=0.15)
    # The client left during step 1; step 2 must not run: `slow` executes
    # only once for it.
    time.sleep(1.0)
    stats = model_stats(server, "slow")[0]
    assert stats["inference_stats"]["success"]["count"] == 1, stats
    assert model_stats(server, "slow_pipe")[0]["inference_stats"]["fail"]["count"] == 1


def test_explicit_mode_lifecycle_follows_the_dependency_graph(make_server, pipeline_repo):
    server = make_server(pipeline_repo, "--model-control-mode", "explicit")
    base = f"http://{server.http_url}/v2/repository/models"
    assert requests.post(f"{base}/chain/load").status_code == 200
    # Loading the ensemble loaded what it calls.
    entries = index(server)
    assert entries[("simple", "1")]["state"] == "READY"
    assert entries[("chain", "1")]["state"] == "READY"
    client = httpclient.InferenceServerClient(server.http_url)
    client.infer("chain", ab_inputs(httpclient, A, B))
    # A composing model unloaded: the ensemble is UNAVAILABLE, saying why.
    assert requests.post(f"{base}/simple/unload").status_code == 200
    entries = index(server)
    assert entries[("chain", "1")]["state"] == "UNAVAILABLE"
    assert ("composing model 'simple' (step 1 ('simple')) is not ready: unloaded"
            in entries[("chain", "1")]["reason"])
    assert requests.get(f"http://{server.http_url}/v2/models/chain/ready").status_code == 400
    with pytest.raises(InferenceServerException, match="composing model 'simple'"):
        client.infer("chain", ab_inputs(httpclient, A, B))
    # Back again: the ensemble is READY again without being reloaded.
    assert requests.post(f"{base}/simple/load").status_code == 200
    assert index(server)[("chain", "1")]["state"] == "READY"
    client.infer("chain", ab_inputs(httpclient, A, B))
    # unload_dependents takes the composing models that nothing else uses.
    assert requests.post(f"{base}/diamond/load").status_code == 200
    response = requests.post(f"{base}/chain/unload",
                             json={"parameters": {"unload_dependents": True}})
    assert response.status_code == 200
    assert index(server)[("simple", "1")]["state"] == "READY"  # diamond still uses it
    response = requests.post(f"{base}/diamond/unload",
                             json={"parameters": {"unload_dependents": True}})
    assert response.status_code == 200
    entries = index(server)
    assert entries[("simple", "1")]["state"] == "UNAVAILABLE"
    assert entries[("simple", "1")]["reason"] == "unloaded"


def test_grpc_unload_dependents(make_server, pipeline_repo):
    server = make_server(pipeline_repo, "--model-control-mode", "explicit", "--load-model", "chain")
    client = grpcclient.InferenceServerClient(server.grpc_url)
    assert client.is_model_ready("simple") and client.is_model_ready("chain")
    client.unload_model("chain", unload_dependents=True)
    assert not client.is_model_ready("simple")


def test_loading_an_ensemble_with_a_missing_composing_model_fails_clearly(make_server, tmp_path):
    repo = tmp_path / "models"
    er.add_chain(repo, model="absent")
    server = make_server(repo, "--model-control-mode", "explicit")
    response = requests.post(f"http://{server.http_url}/v2/repository/models/chain/load")
    assert response.status_code == 400
    assert ("step 1 ('absent'): model 'absent' is not loaded (it is not in any model repository)"
            in response.json()["error"])


def test_ensembles_calling_each_other_in_a_cycle_are_refused(make_server, tmp_path):
    repo = tmp_path / "models"
    t = er.tensor
    er.add_ensemble(repo, "ping", [t("A")], [t("OUT")], [er.step("pong", {"A": "A"}, {"OUT": "OUT"})])
    er.add_ensemble(repo, "pong", [t("A")], [t("OUT")], [er.step("ping", {"A": "A"}, {"OUT": "OUT"})])
    server = make_server(repo)
    entries = index(server)
    for name in ("ping", "pong"):
        assert "depends on itself" in entries[(name, "1")]["reason"], entries


def test_a_nested_ensemble_runs_and_goes_down_with_its_inner_one(make_server, pipeline_repo):
    t = er.tensor
    er.add_ensemble(pipeline_repo, "outer", [t("X"), t("Y")], [t("Z")], [
        er.step("chain", {"A": "X", "B": "Y"}, {"TWICE_A": "Z"})])
    server = make_server(pipeline_repo, "--model-control-mode", "explicit", "--load-model", "outer")
    client = httpclient.InferenceServerClient(server.http_url)
    result = client.infer("outer", ab_inputs(httpclient, A, B, names=("X", "Y")))
    np.testing.assert_array_equal(result.as_numpy("Z"), 2 * A)
    requests.post(f"http://{server.http_url}/v2/repository/models/simple/unload")
    entries = index(server)
    assert entries[("chain", "1")]["state"] == "UNAVAILABLE"
    assert "composing model 'chain'" in entries[("outer", "1")]["reason"]


def run_load(client_factory, model, stop, errors, count, make_inputs):
    client = client_factory()
    while not stop.is_set():
        try:
            client.infer(model, make_inputs())
            count[0] += 1
        except InferenceServerException as error:  # noqa: PERF203
            errors.append(str(error))


def test_swapping_a_composing_model_under_load_fails_no_request(make_server, tmp_path):
    repo = tmp_path / "models"
    er.add_simple(repo, versions=(1,))
    er.add_chain(repo)
    server = make_server(repo, "--model-control-mode", "poll", "--repository-poll-secs", "0.2")
    stop = threading.Event()
    errors, counts = [], []
    threads = []
    for protocol in ("http", "grpc", "http", "grpc"):
        count = [0]
        counts.append(count)
        module = CLIENTS[protocol]
        url = server.http_url if protocol == "http" else server.grpc_url
        threads.append(threading.Thread(target=run_load, args=(
            lambda m=module, u=url: m.InferenceServerClient(u), "chain", stop, errors, count,
            lambda m=module: ab_inputs(m, A, B))))
    for thread in threads:
        thread.start()
    try:
        for version in (2, 3, 4):  # each a new version: availability-preserving swaps
            time.sleep(0.6)
            staging = tmp_path / f"v{version}"
            staging.mkdir()
            (staging / "model.onnx").write_bytes((repo / "simple" / "1" / "model.onnx").read_bytes())
            staging.rename(repo / "simple" / str(version))
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                versions = requests.get(f"http://{server.http_url}/v2/models/simple").json()
                if versions.get("versions") == [str(version)]:
                    break
                time.sleep(0.1)
            assert versions.get("versions") == [str(version)], versions
        time.sleep(0.5)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert errors == []
    assert all(c[0] > 10 for c in counts), counts


def test_sigterm_drains_ensemble_requests_in_flight(make_server, tmp_path):
    repo = tmp_path / "models"
    er.add_checked_identity(repo, "slow", delay_ms=150, max_batch_size=0)
    t = er.tensor
    er.add_ensemble(repo, "slow_pipe", [t("A")], [t("OUT")], [
        er.step("slow", {"IN": "A"}, {"OUT": "mid"}),
        er.step("slow", {"IN": "mid"}, {"OUT": "OUT"}),
    ], max_batch_size=0)
    server = make_server(repo)
    data = np.ones(16, dtype=np.int32)

    def one():
        client = grpcclient.InferenceServerClient(server.grpc_url)
        tensor = grpcclient.InferInput("A", [16], "INT32")
        tensor.set_data_from_numpy(data)
        return client.infer("slow_pipe", [tensor]).as_numpy("OUT")

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(one) for _ in range(4)]
        time.sleep(0.1)  # all four accepted, the first in step 1
        server.process.terminate()
        # Their second steps start after SIGTERM and must still run.
        for future in futures:
            np.testing.assert_array_equal(future.result(timeout=30), data)
    assert server.process.wait(timeout=30) == 0
