# SPDX-License-Identifier: Apache-2.0
"""Every datatype round-tripped over gRPC through ONNX Identity models made
here, in raw and typed form, and messages larger than gRPC's 4 MB default in
both directions."""
import grpc
import numpy as np
import onnx
import pytest
import tritonclient.grpc as grpcclient
from onnx import TensorProto, helper
from tritonclient.grpc import service_pb2, service_pb2_grpc

from conftest import RunningServer

MAX_MESSAGE = 2**31 - 1

# protocol name -> (ONNX element type, numpy dtype, config type, typed-contents field or None)
TYPES = {
    "BOOL": (TensorProto.BOOL, np.bool_, "TYPE_BOOL", "bool_contents"),
    "UINT8": (TensorProto.UINT8, np.uint8, "TYPE_UINT8", "uint_contents"),
    "UINT16": (TensorProto.UINT16, np.uint16, "TYPE_UINT16", "uint_contents"),
    "UINT32": (TensorProto.UINT32, np.uint32, "TYPE_UINT32", "uint_contents"),
    "UINT64": (TensorProto.UINT64, np.uint64, "TYPE_UINT64", "uint64_contents"),
    "INT8": (TensorProto.INT8, np.int8, "TYPE_INT8", "int_contents"),
    "INT16": (TensorProto.INT16, np.int16, "TYPE_INT16", "int_contents"),
    "INT32": (TensorProto.INT32, np.int32, "TYPE_INT32", "int_contents"),
    "INT64": (TensorProto.INT64, np.int64, "TYPE_INT64", "int64_contents"),
    "FP16": (TensorProto.FLOAT16, np.float16, "TYPE_FP16", None),
    "FP32": (TensorProto.FLOAT, np.float32, "TYPE_FP32", "fp32_contents"),
    "FP64": (TensorProto.DOUBLE, np.float64, "TYPE_FP64", "fp64_contents"),
    "BF16": (TensorProto.BFLOAT16, np.uint16, "TYPE_BF16", None),  # raw bf16 bit patterns
    "BYTES": (TensorProto.STRING, np.object_, "TYPE_STRING", "bytes_contents"),
}


def model_name(datatype):
    return f"identity_{datatype.lower()}"


def write_identity_model(repo, datatype):
    onnx_type, _, config_type, _ = TYPES[datatype]
    graph = helper.make_graph(
        [helper.make_node("Identity", ["INPUT0"], ["OUTPUT0"])], model_name(datatype),
        [helper.make_tensor_value_info("INPUT0", onnx_type, ["n"])],
        [helper.make_tensor_value_info("OUTPUT0", onnx_type, ["n"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    directory = repo / model_name(datatype)
    (directory / "1").mkdir(parents=True)
    onnx.save(model, str(directory / "1" / "model.onnx"))
    (directory / "config.pbtxt").write_text(f"""
name: "{model_name(datatype)}"
platform: "onnxruntime_onnx"
max_batch_size: 0
input [ {{ name: "INPUT0" data_type: {config_type} dims: [ -1 ] }} ]
output [ {{ name: "OUTPUT0" data_type: {config_type} dims: [ -1 ] }} ]
""")


@pytest.fixture(scope="session")
def identity_repo(tmp_path_factory):
    repo = tmp_path_factory.mktemp("identity_models")
    for datatype in TYPES:
        write_identity_model(repo, datatype)
    return repo


@pytest.fixture(scope="module")
def identity_server(identity_repo, tmp_path_factory):
    # Module-scoped (make_server is per test): one start serves every case here.
    running = RunningServer([identity_repo], [], tmp_path_factory.mktemp("inferd") / "server.log")
    yield running
    code = running.stop()
    assert code == 0, f"inferd exited with {code}:\n{running.output()}"


@pytest.fixture(scope="module")
def stub(identity_server):
    channel = grpc.insecure_channel(identity_server.grpc_url,
                                    options=[("grpc.max_send_message_length", MAX_MESSAGE),
                                             ("grpc.max_receive_message_length", MAX_MESSAGE)])
    yield service_pb2_grpc.GRPCInferenceServiceStub(channel)
    channel.close()


def sample(datatype):
    _, dtype, _, _ = TYPES[datatype]
    if datatype == "BOOL":
        return np.array([True, False, True, True, False])
    if datatype == "BYTES":
        return np.array([b"a", b"", b"\x00\x01\xff", "ünïcode".encode(), b"x" * 300], dtype=np.object_)
    if datatype == "BF16":  # 1.0, -2.0, 0.5, +inf, largest finite
        return np.array([0x3F80, 0xC000, 0x3F00, 0x7F80, 0x7F7F], dtype=np.uint16)
    if datatype.startswith(("FP",)):
        return np.array([0.0, -1.5, 3.25, 65504.0, -0.0009765625], dtype=dtype)
    info = np.iinfo(dtype)
    return np.array([info.min, info.max, 0, 1, info.max // 3], dtype=dtype)


def raw_bytes(datatype, values):
    if datatype == "BYTES":
        return b"".join(len(v).to_bytes(4, "little") + v for v in values)
    return values.tobytes()


def identity_request(datatype, values):
    request = service_pb2.ModelInferRequest(model_name=model_name(datatype), id=f"id-{datatype}")
    request.inputs.add(name="INPUT0", datatype=datatype, shape=[len(values)])
    return request


@pytest.mark.parametrize("datatype", list(TYPES))
def test_raw_round_trip(stub, datatype):
    values = sample(datatype)
    request = identity_request(datatype, values)
    request.raw_input_contents.append(raw_bytes(datatype, values))
    response = stub.ModelInfer(request)
    assert response.id == f"id-{datatype}"
    assert response.model_name == model_name(datatype)
    assert response.model_version == "1"
    assert [(o.name, o.datatype, list(o.shape)) for o in response.outputs] == [
        ("OUTPUT0", datatype, [len(values)])]
    assert response.raw_output_contents[0] == raw_bytes(datatype, values)


@pytest.mark.parametrize("datatype", [t for t, v in TYPES.items() if v[3] is not None])
def test_typed_round_trip(stub, datatype):
    values = sample(datatype)
    request = identity_request(datatype, values)
    field = getattr(request.inputs[0].contents, TYPES[datatype][3])
    field.extend(values.tolist())
    response = stub.ModelInfer(request)
    assert response.raw_output_contents[0] == raw_bytes(datatype, values)


@pytest.mark.parametrize("datatype", ["FP16", "BF16"])
def test_typed_half_precision_is_rejected(stub, datatype):
    request = identity_request(datatype, [1.0])
    request.inputs[0].contents.fp32_contents.append(1.0)
    with pytest.raises(grpc.RpcError) as error:
        stub.ModelInfer(request)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "raw_input_contents" in error.value.details()


@pytest.mark.parametrize("datatype", ["INT8", "INT16", "UINT8", "UINT16"])
def test_typed_value_out_of_range_is_rejected(stub, datatype):
    request = identity_request(datatype, [0])
    field = getattr(request.inputs[0].contents, TYPES[datatype][3])
    field.append(70000)
    with pytest.raises(grpc.RpcError) as error:
        stub.ModelInfer(request)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_tritonclient_round_trips_every_datatype(identity_server):
    with grpcclient.InferenceServerClient(identity_server.grpc_url) as client:
        for datatype in TYPES:
            if datatype == "BF16":
                continue  # tritonclient converts BF16 from float32; covered raw above
            values = sample(datatype)
            tensor = grpcclient.InferInput("INPUT0", [len(values)], datatype)
            tensor.set_data_from_numpy(values)
            result = client.infer(model_name(datatype), [tensor])
            out = result.as_numpy("OUTPUT0")
            assert out.tolist() == values.tolist(), datatype
            assert client.get_model_metadata(model_name(datatype)).inputs[0].datatype == datatype


def test_messages_larger_than_4mb_both_ways(identity_server):
    big = np.random.default_rng(0).random(3_000_000, dtype=np.float32)  # 12 MB each way
    long_string = np.array([b"q" * (6 << 20), b"tail"], dtype=np.object_)
    with grpcclient.InferenceServerClient(identity_server.grpc_url) as client:
        tensor = grpcclient.InferInput("INPUT0", [big.size], "FP32")
        tensor.set_data_from_numpy(big)
        np.testing.assert_array_equal(client.infer("identity_fp32", [tensor]).as_numpy("OUTPUT0"), big)
        tensor = grpcclient.InferInput("INPUT0", [2], "BYTES")
        tensor.set_data_from_numpy(long_string)
        out = client.infer("identity_bytes", [tensor]).as_numpy("OUTPUT0")
        assert out.tolist() == long_string.tolist()
        assert client.is_server_live()
