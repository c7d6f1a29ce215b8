# SPDX-License-Identifier: Apache-2.0
"""The gRPC frontend (inference.GRPCInferenceService and grpc.health.v1.Health)
driven by tritonclient.grpc and by raw stubs, on the example models.

Raw stubs cover what the official clients never send: typed `contents`,
mixed raw/typed data, reserved parameters, requested-output order.
"""
import signal
import threading
import time

import grpc
import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.grpc import service_pb2, service_pb2_grpc
from tritonclient.utils import InferenceServerException

from conftest import EXAMPLES

MAX_MESSAGE = 2**31 - 1
SERVING, NOT_SERVING = 1, 2


@pytest.fixture(scope="module")
def client(server):
    with grpcclient.InferenceServerClient(server.grpc_url) as c:
        yield c


def make_stub(url):
    channel = grpc.insecure_channel(url, options=[("grpc.max_send_message_length", MAX_MESSAGE),
                                                  ("grpc.max_receive_message_length", MAX_MESSAGE)])
    return channel, service_pb2_grpc.GRPCInferenceServiceStub(channel)


@pytest.fixture(scope="module")
def stub(server):
    channel, s = make_stub(server.grpc_url)
    yield s
    channel.close()


def health_check(url, service=""):
    """grpc.health.v1.Health/Check with hand-encoded messages; returns the status number."""
    request = b"" if not service else b"\x0a" + bytes([len(service)]) + service.encode()
    with grpc.insecure_channel(url) as channel:
        reply = channel.unary_unary("/grpc.health.v1.Health/Check")(request, timeout=10)
    # HealthCheckResponse{status = 1 (varint)}; an all-default message is empty (UNKNOWN).
    return reply[1] if reply[:1] == b"\x08" else 0


def simple_request(a, b, outputs=("OUTPUT0", "OUTPUT1"), request_id=""):
    request = service_pb2.ModelInferRequest(model_name="simple", id=request_id)
    for name in ("INPUT0", "INPUT1"):
        request.inputs.add(name=name, datatype="INT32", shape=[1, 16])
    request.raw_input_contents.extend([a.astype(np.int32).tobytes(), b.astype(np.int32).tobytes()])
    for name in outputs:
        request.outputs.add(name=name)
    return request


def expect_code(call, code, *args, **kwargs):
    with pytest.raises(grpc.RpcError) as error:
        call(*args, **kwargs)
    assert error.value.code() == code, error.value.details()
    return error.value.details()


A = np.arange(16, dtype=np.int32)
B = np.full(16, 3, dtype=np.int32)


def test_health_rpcs(client, server):
    assert client.is_server_live()
    assert client.is_server_ready()
    assert health_check(server.grpc_url) == SERVING
    assert health_check(server.grpc_url, "inference.GRPCInferenceService") == SERVING


def test_health_watch_is_unimplemented(server):
    with grpc.insecure_channel(server.grpc_url) as channel:
        watch = channel.unary_stream("/grpc.health.v1.Health/Watch")
        with pytest.raises(grpc.RpcError) as error:
            list(watch(b"", timeout=10))
    assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_server_metadata(client):
    metadata = client.get_server_metadata(as_json=True)
    assert metadata["name"] == "triton"  # --id's default, as Triton's
    assert metadata["version"]
    assert isinstance(metadata.get("extensions", []), list)


def test_model_ready(client):
    assert client.is_model_ready("simple")
    assert client.is_model_ready("simple", "1")
    assert client.is_model_ready("string_identity")


@pytest.mark.parametrize("name,version", [("no_such_model", ""), ("simple", "7"), ("simple", "x")])
def test_model_ready_unknown_is_not_found(stub, name, version):
    expect_code(stub.ModelReady, grpc.StatusCode.NOT_FOUND,
                service_pb2.ModelReadyRequest(name=name, version=version))


def test_model_metadata(client):
    metadata = client.get_model_metadata("simple", as_json=True)
    assert metadata["name"] == "simple"
    assert metadata["versions"] == ["1"]
    assert metadata["platform"] == "onnxruntime_onnx"
    assert [(t["name"], t["datatype"], t["shape"]) for t in metadata["inputs"]] == [
        ("INPUT0", "INT32", ["-1", "16"]), ("INPUT1", "INT32", ["-1", "16"])]
    assert [t["name"] for t in metadata["outputs"]] == ["OUTPUT0", "OUTPUT1"]
    strings = client.get_model_metadata("string_identity", "1")
    assert strings.inputs[0].datatype == "BYTES"
    assert list(strings.inputs[0].shape) == [-1, -1]


@pytest.mark.parametrize("name,version", [("no_such_model", ""), ("simple", "7")])
def test_model_metadata_unknown_is_not_found(stub, name, version):
    expect_code(stub.ModelMetadata, grpc.StatusCode.NOT_FOUND,
                service_pb2.ModelMetadataRequest(name=name, version=version))


def test_model_config(client, stub):
    config = client.get_model_config("simple", as_json=True)["config"]
    assert config["name"] == "simple"
    assert config["max_batch_size"] == 8
    assert [i["name"] for i in config["input"]] == ["INPUT0", "INPUT1"]
    assert config["input"][0]["data_type"] == "TYPE_INT32"
    strings = stub.ModelConfig(service_pb2.ModelConfigRequest(name="string_identity")).config
    assert strings.input[0].data_type == 13  # TYPE_STRING
    expect_code(stub.ModelConfig, grpc.StatusCode.NOT_FOUND,
                service_pb2.ModelConfigRequest(name="no_such_model"))


def test_repository_index(client, stub):
    models = client.get_model_repository_index(as_json=True)["models"]
    by_name = {m["name"]: m for m in models}
    assert by_name["simple"]["version"] == "1"
    assert by_name["simple"]["state"] == "READY"
    assert [m["name"] for m in models] == sorted(m["name"] for m in models)
    ready = stub.RepositoryIndex(service_pb2.RepositoryIndexRequest(ready=True)).models
    assert {m.name for m in ready} >= {"simple", "string_identity"}
    assert all(m.state == "READY" for m in ready)
    expect_code(stub.RepositoryIndex, grpc.StatusCode.UNIMPLEMENTED,
                service_pb2.RepositoryIndexRequest(repository_name="other"))


def test_infer_simple_with_tritonclient(client):
    inputs = [grpcclient.InferInput("INPUT0", [1, 16], "INT32"),
              grpcclient.InferInput("INPUT1", [1, 16], "INT32")]
    inputs[0].set_data_from_numpy(A.reshape(1, 16))
    inputs[1].set_data_from_numpy(B.reshape(1, 16))
    result = client.infer("simple", inputs, request_id="req-7")
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), (A + B).reshape(1, 16))
    np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), (A - B).reshape(1, 16))
    response = result.get_response()
    assert response.id == "req-7"
    assert response.model_name == "simple"
    assert response.model_version == "1"


def test_infer_returns_outputs_in_requested_order(stub):
    response = stub.ModelInfer(simple_request(A, B, outputs=("OUTPUT1", "OUTPUT0")))
    assert [o.name for o in response.outputs] == ["OUTPUT1", "OUTPUT0"]
    assert len(response.raw_output_contents) == 2
    np.testing.assert_array_equal(np.frombuffer(response.raw_output_contents[0], np.int32), A - B)
    np.testing.assert_array_equal(np.frombuffer(response.raw_output_contents[1], np.int32), A + B)
    assert list(response.outputs[0].shape) == [1, 16]
    assert response.outputs[0].datatype == "INT32"
    assert response.id == ""


def test_infer_without_requested_outputs_returns_all(stub):
    response = stub.ModelInfer(simple_request(A, B, outputs=()))
    assert [o.name for o in response.outputs] == ["OUTPUT0", "OUTPUT1"]
    assert len(response.raw_output_contents) == 2


def test_infer_typed_contents(stub):
    request = service_pb2.ModelInferRequest(model_name="simple", model_version="1")
    for name, values in (("INPUT0", A), ("INPUT1", B)):
        tensor = request.inputs.add(name=name, datatype="INT32", shape=[1, 16])
        tensor.contents.int_contents.extend(values.tolist())
    response = stub.ModelInfer(request)
    np.testing.assert_array_equal(np.frombuffer(response.raw_output_contents[0], np.int32), A + B)


def test_infer_bytes_raw_and_typed(client, stub):
    data = np.array([[b"hello", b"", b"\x00\xffbinary"]], dtype=np.object_)
    tensor = grpcclient.InferInput("INPUT0", [1, 3], "BYTES")
    tensor.set_data_from_numpy(data)
    result = client.infer("string_identity", [tensor])
    assert result.as_numpy("OUTPUT0").tolist() == data.tolist()

    request = service_pb2.ModelInferRequest(model_name="string_identity")
    typed = request.inputs.add(name="INPUT0", datatype="BYTES", shape=[1, 3])
    typed.contents.bytes_contents.extend([b"hello", b"", b"\x00\xffbinary"])
    response = stub.ModelInfer(request)
    assert response.outputs[0].datatype == "BYTES"
    assert response.raw_output_contents[0] == (
        b"\x05\x00\x00\x00hello" + b"\x00\x00\x00\x00" + b"\x08\x00\x00\x00\x00\xffbinary")


def test_infer_accepts_parameters(client, stub):
    inputs = [grpcclient.InferInput("INPUT0", [1, 16], "INT32"),
              grpcclient.InferInput("INPUT1", [1, 16], "INT32")]
    inputs[0].set_data_from_numpy(A.reshape(1, 16))
    inputs[1].set_data_from_numpy(B.reshape(1, 16))
    result = client.infer("simple", inputs, priority=1, timeout=10_000_000,
                          parameters={"custom_str": "x", "custom_int": 3, "custom_bool": True})
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), (A + B).reshape(1, 16))
    request = simple_request(A, B)
    request.parameters["triton_enable_empty_final_response"].bool_param = False
    request.parameters["custom_double"].double_param = 0.5
    request.parameters["priority"].int64_param = 0
    stub.ModelInfer(request)


@pytest.mark.parametrize("key,set_value", [
    ("triton_other", lambda p: setattr(p, "bool_param", True)),
    ("priority", lambda p: setattr(p, "int64_param", -1)),
    ("timeout", lambda p: setattr(p, "string_param", "soon")),
    ("sequence_start", lambda p: setattr(p, "int64_param", 1)),
])
def test_infer_rejects_bad_parameters(stub, key, set_value):
    request = simple_request(A, B)
    set_value(request.parameters[key])
    details = expect_code(stub.ModelInfer, grpc.StatusCode.INVALID_ARGUMENT, request)
    assert key in details


def bad_requests():
    """(name, request, expected code) for every error path of ModelInfer."""
    cases = []

    unknown_model = simple_request(A, B)
    unknown_model.model_name = "no_such_model"
    cases.append(("unknown model", unknown_model, grpc.StatusCode.NOT_FOUND))

    unknown_version = simple_request(A, B)
    unknown_version.model_version = "9"
    cases.append(("unknown version", unknown_version, grpc.StatusCode.NOT_FOUND))

    wrong_type = simple_request(A, B)
    wrong_type.inputs[0].datatype = "FP32"
    cases.append(("wrong datatype", wrong_type, grpc.StatusCode.INVALID_ARGUMENT))

    unknown_type = simple_request(A, B)
    unknown_type.inputs[0].datatype = "STRING"
    cases.append(("unknown datatype", unknown_type, grpc.StatusCode.INVALID_ARGUMENT))

    wrong_shape = simple_request(A, B)
    del wrong_shape.inputs[0].shape[:]
    wrong_shape.inputs[0].shape.extend([2, 8])
    cases.append(("wrong shape", wrong_shape, grpc.StatusCode.INVALID_ARGUMENT))

    short_data = simple_request(A, B)
    short_data.raw_input_contents[1] = short_data.raw_input_contents[1][:-4]
    cases.append(("byte size mismatch", short_data, grpc.StatusCode.INVALID_ARGUMENT))

    mixed = simple_request(A, B)
    del mixed.raw_input_contents[1]
    mixed.inputs[1].contents.int_contents.extend(B.tolist())
    cases.append(("mixed raw and typed", mixed, grpc.StatusCode.INVALID_ARGUMENT))

    no_data = simple_request(A, B)
    del no_data.raw_input_contents[1]
    cases.append(("input without data", no_data, grpc.StatusCode.INVALID_ARGUMENT))

    extra_raw = simple_request(A, B)
    extra_raw.raw_input_contents.append(B.tobytes())
    cases.append(("unused raw entry", extra_raw, grpc.StatusCode.INVALID_ARGUMENT))

    typed_count = service_pb2.ModelInferRequest(model_name="simple")
    for name in ("INPUT0", "INPUT1"):
        typed_count.inputs.add(name=name, datatype="INT32", shape=[1, 16]).contents.int_contents.extend([1] * 15)
    cases.append(("typed count mismatch", typed_count, grpc.StatusCode.INVALID_ARGUMENT))

    missing_input = simple_request(A, B)
    del missing_input.inputs[1]
    del missing_input.raw_input_contents[1]
    cases.append(("missing input", missing_input, grpc.StatusCode.INVALID_ARGUMENT))

    unknown_output = simple_request(A, B, outputs=("OUTPUT0", "OUTPUT9"))
    cases.append(("unknown output", unknown_output, grpc.StatusCode.INVALID_ARGUMENT))

    classification = simple_request(A, B, outputs=("OUTPUT0",))
    classification.outputs[0].parameters["classification"].int64_param = 0
    cases.append(("classification of 0 classes", classification, grpc.StatusCode.INVALID_ARGUMENT))

    shm = simple_request(A, B)
    shm.inputs[0].parameters["shared_memory_region"].string_param = "region"
    del shm.raw_input_contents[0]
    cases.append(("unregistered shm region", shm, grpc.StatusCode.INVALID_ARGUMENT))
    return cases


@pytest.mark.parametrize("name,request_message,code", bad_requests(), ids=[c[0] for c in bad_requests()])
def test_infer_errors(stub, client, name, request_message, code):
    details = expect_code(stub.ModelInfer, code, request_message)
    assert details, "an error carries a message"
    # The server keeps serving after each bad request.
    assert client.is_server_live()
    response = stub.ModelInfer(simple_request(A, B))
    np.testing.assert_array_equal(np.frombuffer(response.raw_output_contents[0], np.int32), A + B)


def test_infer_errors_through_tritonclient(client):
    tensor = grpcclient.InferInput("INPUT0", [1, 16], "INT32")
    tensor.set_data_from_numpy(A.reshape(1, 16))
    with pytest.raises(InferenceServerException) as error:
        client.infer("no_such_model", [tensor])
    assert error.value.status() == "StatusCode.NOT_FOUND"


# (The shared-memory RPCs are served: tests/integration/test_shared_memory.py.)
@pytest.mark.parametrize("rpc,message", [
    ("TraceSetting", service_pb2.TraceSettingRequest()),
    ("LogSettings", service_pb2.LogSettingsRequest()),
])
def test_later_rpcs_are_unimplemented_with_a_message(stub, rpc, message):
    details = expect_code(getattr(stub, rpc), grpc.StatusCode.UNIMPLEMENTED, message)
    assert rpc in details


def test_stream_infer_answers_and_ends_after_the_last_request(stub):
    # The full behaviour is in test_streaming.py.
    replies = list(stub.ModelStreamInfer(iter([simple_request(A, B)] * 2), timeout=10))
    assert [r.error_message for r in replies] == ["", ""]
    assert all(r.infer_response.model_name == "simple" for r in replies)


def test_not_ready_server_reports_not_serving(make_server, example_copy):
    broken = example_copy / "broken"
    (broken / "1").mkdir(parents=True)
    (broken / "1" / "model.onnx").write_bytes(b"not an onnx model")
    (broken / "config.pbtxt").write_text('name: "broken"\nplatform: "onnxruntime_onnx"\n')
    running = make_server(example_copy)
    with grpcclient.InferenceServerClient(running.grpc_url) as c:
        assert c.is_server_live()
        assert not c.is_server_ready()
        assert c.is_model_ready("simple")
        assert not c.is_model_ready("broken")
        index = {m["name"]: m for m in c.get_model_repository_index(as_json=True)["models"]}
        assert index["broken"]["state"] == "UNAVAILABLE"
        assert index["broken"].get("reason")
    assert health_check(running.grpc_url) == NOT_SERVING
    channel, s = make_stub(running.grpc_url)
    with channel:
        ready = s.RepositoryIndex(service_pb2.RepositoryIndexRequest(ready=True)).models
    assert "broken" not in {m.name for m in ready}


def test_stop_with_requests_in_flight_answers_each_and_exits_cleanly(make_server):
    running = make_server(EXAMPLES)
    answers = []
    lock = threading.Lock()

    def on_answer(result, error):
        with lock:
            answers.append("ok" if error is None else error.status())

    total = 400
    with grpcclient.InferenceServerClient(running.grpc_url) as c:
        for i in range(total):
            inputs = [grpcclient.InferInput("INPUT0", [1, 16], "INT32"),
                      grpcclient.InferInput("INPUT1", [1, 16], "INT32")]
            inputs[0].set_data_from_numpy(A.reshape(1, 16))
            inputs[1].set_data_from_numpy(B.reshape(1, 16))
            c.async_infer("simple", inputs, on_answer)
            if i == total // 2:
                # Signal once the server answers (under ASan the first half
                # may still be in the client's queue): those requests were
                # accepted before the shutdown began and must succeed.
                deadline = time.monotonic() + 30
                while "ok" not in answers and time.monotonic() < deadline:
                    time.sleep(0.005)
                running.process.send_signal(signal.SIGTERM)
        assert running.process.wait(timeout=30) == 0, running.output()
        deadline = time.monotonic() + 30
        while len(answers) < total and time.monotonic() < deadline:
            time.sleep(0.05)
    assert len(answers) == total
    assert answers.count("ok") > 0
    assert set(answers) <= {"ok", "StatusCode.UNAVAILABLE", "StatusCode.CANCELLED"}, set(answers)
