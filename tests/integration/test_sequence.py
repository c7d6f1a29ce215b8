# SPDX-License-Identifier: Apache-2.0
"""The sequence batcher with Triton's own clients: tritonclient HTTP and gRPC
(`sequence_id=`, `sequence_start=`, `sequence_end=`) and perf_analyzer in
sequence mode, against real ONNX models with implicit state and control
inputs (tests/integration/sequence_repo.py)."""
import concurrent.futures
import csv
import os
import pathlib
import subprocess

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import sequence_repo
from conftest import ROOT
from scheduling_util import metric, model_stats

PERF_ANALYZER = pathlib.Path(os.environ.get("PERF_ANALYZER", ROOT / ".venv" / "bin" / "perf_analyzer"))
START_ERROR = ("inference request for sequence {} to model '{}' must specify the START flag on "
               "the first request of the sequence")


@pytest.fixture(scope="module")
def seq_server(tmp_path_factory):
    from conftest import RunningServer
    root = tmp_path_factory.mktemp("sequence")
    repo = sequence_repo.build(root / "models")
    running = RunningServer([repo], [], root / "server.log")
    yield running
    running.stop()


def client_for(server, protocol):
    if protocol == "http":
        return httpclient, httpclient.InferenceServerClient(server.http_url)
    return grpcclient, grpcclient.InferenceServerClient(server.grpc_url)


def infer(server, protocol, model, value, sequence_id, start=False, end=False, outputs=None,
          extra_inputs=()):
    module, client = client_for(server, protocol)
    with client:
        inp = module.InferInput("INPUT", [1, 1], "INT32")
        inp.set_data_from_numpy(np.array([[value]], dtype=np.int32))
        requested = [module.InferRequestedOutput(name) for name in outputs] if outputs else None
        return client.infer(model, [inp, *extra_inputs], outputs=requested, sequence_id=sequence_id,
                            sequence_start=start, sequence_end=end)


def value(result, name="OUTPUT"):
    return int(result.as_numpy(name).reshape(-1)[0])


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_interleaved_sequences_keep_their_own_state(seq_server, protocol):
    base = 1000 if protocol == "http" else 2000
    ids = [base + 1, base + 2, base + 3]
    values = {ids[0]: [1, 2, 3, 4], ids[1]: [10, 20, 30, 40], ids[2]: [100, 200, 300, 400]}
    sums = {i: 0 for i in ids}
    for step in range(4):
        for sid in ids:
            v = values[sid][step]
            result = infer(seq_server, protocol, "accumulator", v, sid, start=step == 0,
                           end=step == 3)
            sums[sid] += v
            assert value(result) == sums[sid], (sid, step)
            # The state output is the server's: never in the client's response.
            assert result.as_numpy("STATE_OUT") is None
    assert sums == {ids[0]: 10, ids[1]: 100, ids[2]: 1000}


def test_concurrent_sequences_share_batches(seq_server):
    """Eight sequences at once over 2 instances of 4 slots: each sum exact."""
    def run(sid):
        total = 0
        for step in range(6):
            total += sid + step
            result = infer(seq_server, "grpc", "accumulator", sid + step, sid, start=step == 0,
                           end=step == 5)
            assert value(result) == total
        return total

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        totals = list(pool.map(run, range(3001, 3009)))
    assert totals == [6 * sid + 15 for sid in range(3001, 3009)]
    stats = model_stats(seq_server, "accumulator")
    assert int(stats["execution_count"]) > 0
    assert metric(seq_server, "inferd_inference_queue_size", model="accumulator", version="1") == 0


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_triton_errors(seq_server, protocol):
    with pytest.raises(InferenceServerException) as error:
        infer(seq_server, protocol, "accumulator", 1, 0)
    assert ("inference request to model 'accumulator' must specify a non-zero or non-empty "
            "correlation ID") in error.value.message()
    with pytest.raises(InferenceServerException) as error:
        infer(seq_server, protocol, "accumulator", 1, 4242)
    assert START_ERROR.format(4242, "accumulator") in error.value.message()
    assert error.value.status() in ("400", "StatusCode.INVALID_ARGUMENT")
    module, client = client_for(seq_server, protocol)
    with client:
        inp = module.InferInput("INPUT", [2, 1], "INT32")
        inp.set_data_from_numpy(np.array([[1], [2]], dtype=np.int32))
        with pytest.raises(InferenceServerException) as error:
            client.infer("accumulator", [inp], sequence_id=77, sequence_start=True)
    assert ("inference request to model 'accumulator' must specify batch-size 1 due to "
            "requirements of sequence batcher") in error.value.message()


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_client_cannot_send_state_or_controls(seq_server, protocol):
    module, _ = client_for(seq_server, protocol)
    state = module.InferInput("STATE_IN", [1, 1], "INT32")
    state.set_data_from_numpy(np.array([[5]], dtype=np.int32))
    with pytest.raises(InferenceServerException) as error:
        infer(seq_server, protocol, "accumulator", 1, 55, start=True, extra_inputs=[state])
    assert error.value.message().startswith(
        "unexpected inference input 'STATE_IN' for model 'accumulator': it is an implicit state input")
    start = module.InferInput("START", [1, 1], "INT32")
    start.set_data_from_numpy(np.array([[1]], dtype=np.int32))
    with pytest.raises(InferenceServerException) as error:
        infer(seq_server, protocol, "controls", 1, 55, start=True, extra_inputs=[start])
    assert "sequence control input (CONTROL_SEQUENCE_START)" in error.value.message()


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_model_sees_control_inputs(seq_server, protocol):
    sid = 4000 if protocol == "http" else 5000
    outs = ["OUTPUT", "OUT_START", "OUT_END", "OUT_READY", "OUT_CORRID"]
    first = infer(seq_server, protocol, "controls", 7, sid, start=True, outputs=outs)
    middle = infer(seq_server, protocol, "controls", 8, sid, outputs=outs)
    last = infer(seq_server, protocol, "controls", 9, sid, end=True, outputs=outs)
    seen = [(value(r), value(r, "OUT_START"), value(r, "OUT_END"), value(r, "OUT_READY"))
            for r in (first, middle, last)]
    assert seen == [(7, 1, 0, 1), (8, 0, 0, 1), (9, 0, 1, 1)]
    assert [int(r.as_numpy("OUT_CORRID").reshape(-1)[0]) for r in (first, middle, last)] == [sid] * 3
    assert first.as_numpy("OUT_CORRID").dtype == np.uint64


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_string_sequence_ids(seq_server, protocol):
    sid = f"session-{protocol}"
    first = infer(seq_server, protocol, "controls_string", 1, sid, start=True)
    last = infer(seq_server, protocol, "controls_string", 2, sid, end=True)
    assert [r.as_numpy("OUT_CORRID").reshape(-1)[0] for r in (first, last)] == [sid.encode()] * 2
    assert value(last, "OUT_END") == 1
    with pytest.raises(InferenceServerException) as error:
        infer(seq_server, protocol, "controls_string", 1, 12, start=True)
    assert ("sequence batching control 'CORRID' data-type is 'UINT64', but model "
            "'controls_string' expects 'BYTES'") in error.value.message()
    with pytest.raises(InferenceServerException) as error:
        infer(seq_server, protocol, "controls", 1, "text-id", start=True)
    assert ("sequence batching control 'CORRID' data-type is 'BYTES', but model 'controls' "
            "expects 'UINT64'") in error.value.message()
    # A model without a CORRID control takes string ids too.
    a = infer(seq_server, protocol, "accumulator", 3, f"acc-{protocol}", start=True)
    b = infer(seq_server, protocol, "accumulator", 4, f"acc-{protocol}", end=True)
    assert (value(a), value(b)) == (3, 7)


def test_initial_state_from_file_and_idle_release(seq_server):
    """accumulator_init has one slot, an initial state of 100 and a 0.3 s idle
    timeout: a second sequence waits in the backlog until the first, left
    without END, is released as idle; the first then needs START again."""
    assert value(infer(seq_server, "grpc", "accumulator_init", 1, 61, start=True)) == 101
    assert value(infer(seq_server, "grpc", "accumulator_init", 2, 61)) == 103
    # Blocks in the backlog until sequence 61 is released for being idle.
    assert value(infer(seq_server, "http", "accumulator_init", 5, 62, start=True, end=True)) == 105
    with pytest.raises(InferenceServerException) as error:
        infer(seq_server, "grpc", "accumulator_init", 1, 61)
    assert START_ERROR.format(61, "accumulator_init") in error.value.message()


def test_start_on_a_running_sequence_restarts_it(seq_server):
    assert value(infer(seq_server, "http", "accumulator", 5, 71, start=True)) == 5
    assert value(infer(seq_server, "http", "accumulator", 5, 71)) == 10
    assert value(infer(seq_server, "http", "accumulator", 2, 71, start=True)) == 2
    assert value(infer(seq_server, "http", "accumulator", 1, 71, end=True)) == 3


def test_auto_complete_leaves_state_tensors_out(seq_server):
    config = requests.get(f"http://{seq_server.http_url}/v2/models/accumulator_auto/config",
                          timeout=10).json()
    assert [i["name"] for i in config["input"]] == ["INPUT"]
    assert [o["name"] for o in config["output"]] == ["OUTPUT"]
    assert "dynamic_batching" not in config
    assert config["sequence_batching"]["max_sequence_idle_microseconds"] == "1000000" or \
        config["sequence_batching"]["max_sequence_idle_microseconds"] == 1000000
    a = infer(seq_server, "grpc", "accumulator_auto", 2, 81, start=True)
    b = infer(seq_server, "grpc", "accumulator_auto", 3, 81, end=True)
    assert (value(a), value(b)) == (2, 5)


def test_invalid_sequence_configs_fail_to_load(make_server, tmp_path):
    repo = sequence_repo.build(tmp_path / "models")
    bad = repo / "accumulator"
    bad.joinpath("config.pbtxt").write_text(sequence_repo.ACCUMULATOR.replace(
        "direct { }", "direct { }\n  control_input [ { name: \"START\" control [ { kind: "
        "CONTROL_SEQUENCE_START int32_false_true: [ 0 ] } ] } ]").replace(
        "dims: [ 1 ] } ]\n}", "dims: [ 1 ] initial_state { data_type: TYPE_FP32 dims: [ 1 ] "
        "zero_data: true } } ]\n}"))
    running = make_server(repo, wait_models=False)
    index = []

    def reason():
        index[:] = requests.post(f"http://{running.http_url}/v2/repository/index", timeout=10).json()
        entry = [m for m in index if m["name"] == "accumulator"]
        return entry and entry[0].get("reason")

    from scheduling_util import wait_for
    wait_for(reason, lambda: f"a load failure in the index: {index}")
    text = reason()
    assert "the false/true list must hold exactly 2 values" in text
    assert "initial_state data_type TYPE_FP32 does not match the state's TYPE_INT32" in text
    assert "initial_state: 'name' must be set" in text


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_perf_analyzer_sequences(seq_server, tmp_path, protocol):
    if not PERF_ANALYZER.exists():
        pytest.fail(f"{PERF_ANALYZER} is missing: run make setup")
    url = seq_server.http_url if protocol == "http" else seq_server.grpc_url
    report = tmp_path / "report.csv"
    start = 10000 if protocol == "http" else 20000
    args = [str(PERF_ANALYZER), "-m", "accumulator", "-u", url, "-i", protocol,
            "--sequence-length", "5", "--sequence-id-range", f"{start}:{start + 1000}",
            "--concurrency-range", "4", "--measurement-mode", "count_windows",
            "--measurement-request-count", "60", "--max-trials", "3",
            "--stability-percentage", "999", "-f", str(report)]
    run = subprocess.run(args, capture_output=True, text=True, timeout=240)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "error" not in output.lower(), output
    rows = list(csv.DictReader(report.open()))
    assert rows and float(rows[0]["Inferences/Second"]) > 0, output
    assert seq_server.alive()


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_sequence_parameters_on_other_models_are_ignored(server, protocol):
    """As in Triton: a model without sequence_batching ignores sequence_id,
    sequence_start and sequence_end (even a non-START request of an unknown id)."""
    module, client = client_for(server, protocol)
    with client:
        a = module.InferInput("INPUT0", [1, 16], "INT32")
        a.set_data_from_numpy(np.arange(16, dtype=np.int32).reshape(1, 16))
        b = module.InferInput("INPUT1", [1, 16], "INT32")
        b.set_data_from_numpy(np.ones((1, 16), dtype=np.int32))
        for start in (False, True):
            result = client.infer("simple", [a, b], sequence_id=99, sequence_start=start,
                                  sequence_end=True)
            assert result.as_numpy("OUTPUT0").tolist() == [list(range(1, 17))]


def test_server_metadata_lists_the_sequence_extension(server):
    """Triton's clients look for "sequence" among the extensions."""
    import requests
    extensions = requests.get(f"http://{server.http_url}/v2", timeout=10).json()["extensions"]
    assert "sequence" in extensions
