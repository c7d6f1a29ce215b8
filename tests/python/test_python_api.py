# SPDX-License-Identifier: Apache-2.0
"""The Triton-compatible model API: Tensor, requests, responses, errors,
helpers, Logger, and the triton_python_backend_utils module."""
import json

import numpy as np
import pytest

import inferd_python
from inferd_python import (InferenceRequest, InferenceResponse, Logger, LogLevel, Tensor, TritonError,
                           TritonModelException, get_input_config_by_name, get_input_tensor_by_name,
                           get_output_config_by_name, get_output_tensor_by_name)
from inferd_python import logger as logger_module


def test_pb_utils_module_reexports_the_api():
    import triton_python_backend_utils as pb_utils

    for name in inferd_python.__all__:
        assert getattr(pb_utils, name) is getattr(inferd_python, name)
    assert pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START == 1
    assert pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_END == 2


def test_tensor_basics():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    tensor = Tensor("OUT", array)
    assert tensor.name() == "OUT"
    assert tensor.as_numpy() is array
    assert tensor.shape() == [2, 3]
    assert tensor.triton_dtype() == 11
    assert tensor.is_cpu() is True
    assert "OUT" in repr(tensor) and "TYPE_FP32" in repr(tensor)


@pytest.mark.parametrize("array,number", [
    (np.array([True]), 1),
    (np.array([b"a"], dtype=object), 13),
    (np.array(["a"], dtype=object), 13),
    (np.array([b"a"], dtype=np.bytes_), 13),
    (np.array(["a"], dtype=np.str_), 13),
    (np.array([1], dtype=np.float16), 10),
    (np.array(1, dtype=np.int64), 9),
])
def test_tensor_dtypes(array, number):
    assert Tensor("t", array).triton_dtype() == number


def test_tensor_rejects_bad_arguments():
    with pytest.raises(TritonModelException, match="complex"):
        Tensor("t", np.array([1j]))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        Tensor("t", [1, 2])
    with pytest.raises(TypeError, match="name"):
        Tensor(b"t", np.array([1]))


def test_tensor_dlpack_round_trip():
    array = np.arange(4, dtype=np.int32)
    capsule = Tensor("a", array).to_dlpack()
    from_capsule = Tensor.from_dlpack("b", capsule)
    assert from_capsule.name() == "b"
    np.testing.assert_array_equal(from_capsule.as_numpy(), array)
    array[0] = 99  # shared memory, no copy
    assert from_capsule.as_numpy()[0] == 99
    from_object = Tensor.from_dlpack("c", np.arange(3, dtype=np.float64))
    assert from_object.triton_dtype() == 12


def test_tensor_dlpack_unsupported_raises_model_exception():
    with pytest.raises(TritonModelException, match="DLPack"):
        Tensor("s", np.array([b"x"], dtype=object)).to_dlpack()
    read_only = np.frombuffer(b"\x00" * 8, dtype=np.float32)
    with pytest.raises(TritonModelException, match="DLPack"):
        Tensor("r", read_only).to_dlpack()


def test_request_from_server():
    inputs = [Tensor("A", np.array([1])), Tensor("B", np.array([2]))]
    request = InferenceRequest._from_server(1, inputs, ["X"])
    assert request.inputs() == inputs
    assert request.requested_output_names() == ["X"]
    request.requested_output_names().append("Y")  # a copy: the filter is not changed
    assert request.requested_output_names() == ["X"]
    assert request.request_id() == ""
    assert request.correlation_id() == 0
    assert request.flags() == 0
    assert request.parameters() == "{}"
    assert request.is_cancelled() is False
    assert get_input_tensor_by_name(request, "B") is inputs[1]
    assert get_input_tensor_by_name(request, "C") is None


def test_request_parameters_correlation_id_and_flags():
    raw = json.dumps({"sequence_id": "s-1", "sequence_start": True, "sequence_end": False, "priority": 2,
                      "timeout": 5, "binary_data_output": True, "temperature": 0.5, "tag": "x", "n": 3})
    request = InferenceRequest._from_server(1, [], ["X"], raw, "s-1")
    # As Triton: compact JSON without the parameters the server acts on.
    assert request.parameters() == '{"temperature":0.5,"tag":"x","n":3}'
    assert request.correlation_id() == "s-1"
    assert request.flags() == inferd_python.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START
    numeric = InferenceRequest._from_server(2, [], ["X"], '{"sequence_id": 7, "sequence_end": true}', 7)
    assert numeric.correlation_id() == 7
    assert numeric.flags() == inferd_python.TRITONSERVER_REQUEST_FLAG_SEQUENCE_END
    assert numeric.parameters() == "{}"


def test_request_unsupported_features():
    request = InferenceRequest._from_server(1, [], ["X"])
    # Outside a worker there is no response socket.
    with pytest.raises(TritonModelException, match="only inside the inferd Python worker"):
        request.get_response_sender()
    with pytest.raises(TritonModelException, match=r"only on the requests execute\(\) receives"):
        InferenceRequest(model_name="m").get_response_sender()
    bls = InferenceRequest(model_name="other", inputs=[Tensor("A", np.array([1]))],
                           requested_output_names=["X"], preferred_memory=None)
    # Outside a worker there is no server to call (tests/python/
    # test_python_bls.py runs BLS in a worker).
    with pytest.raises(TritonModelException, match="only inside the inferd Python worker"):
        bls.exec()
    with pytest.raises(TritonModelException, match="only inside the inferd Python worker"):
        bls.async_exec()
    with pytest.raises(TritonModelException, match="only inside the inferd Python worker"):
        bls.exec(decoupled=True)
    with pytest.raises(TritonModelException, match="needs model_name"):
        request.exec()


def test_bls_request_arguments():
    x = Tensor("A", np.array([1]))
    request = InferenceRequest(model_name="m", inputs=[x], requested_output_names=["X"], model_version=2,
                               timeout=5000, correlation_id=7, flags=3, parameters='{"k": "v", "n": 1}')
    assert (request.model_name(), request.model_version(), request.timeout()) == ("m", 2, 5000)
    assert json.loads(request.parameters()) == {"k": "v", "n": 1}
    assert request._wire_parameters() == [("k", "v"), ("n", 1), ("sequence_id", 7), ("sequence_start", True),
                                          ("sequence_end", True)]
    explicit = InferenceRequest(model_name="m", correlation_id="abc", parameters={"sequence_id": 9, "b": True})
    assert explicit._wire_parameters() == [("sequence_id", 9), ("b", True)]
    with pytest.raises(TypeError, match="inputs\\[0\\] is a ndarray"):
        InferenceRequest(model_name="m", inputs=[np.array([1])])
    with pytest.raises(ValueError, match="timeout must be >= 0"):
        InferenceRequest(model_name="m", timeout=-1)
    with pytest.raises(TritonModelException, match="parameter 'f' is a float"):
        InferenceRequest(model_name="m", parameters={"f": 1.5})
    with pytest.raises(TritonModelException, match="not JSON"):
        InferenceRequest(model_name="m", parameters="{")


def test_response_basics():
    tensors = [Tensor("X", np.array([1])), Tensor("Y", np.array([2]))]
    response = InferenceResponse(output_tensors=tensors)
    assert response.output_tensors() == tensors
    assert not response.has_error()
    assert response.error() is None
    assert get_output_tensor_by_name(response, "Y") is tensors[1]
    assert get_output_tensor_by_name(response, "Z") is None
    assert InferenceResponse().output_tensors() == []
    assert InferenceResponse(tuple(tensors)).output_tensors() == tensors


def test_response_with_error():
    error = TritonError("bad input", TritonError.INVALID_ARG)
    response = InferenceResponse(error=error)
    assert response.has_error()
    assert response.error() is error
    assert response.error().code() == 3
    assert response.error().message() == "bad input"


def test_response_rejects_bad_arguments():
    with pytest.raises(TypeError, match=r"output_tensors\[1\] is a ndarray"):
        InferenceResponse([Tensor("X", np.array([1])), np.array([2])])
    with pytest.raises(TypeError, match="list of Tensor"):
        InferenceResponse(Tensor("X", np.array([1])))
    with pytest.raises(TypeError, match="TritonError"):
        InferenceResponse(error="failed")


def test_triton_error_codes():
    assert [TritonError.UNKNOWN, TritonError.INTERNAL, TritonError.NOT_FOUND, TritonError.INVALID_ARG,
            TritonError.UNAVAILABLE, TritonError.UNSUPPORTED, TritonError.ALREADY_EXISTS,
            TritonError.CANCELLED, TritonError.DEADLINE_EXCEEDED] == list(range(9))
    assert TritonError("x").code() == TritonError.INTERNAL
    assert TritonError("x", TritonError.CANCELLED).code() == 7
    assert TritonError("x", TritonError.DEADLINE_EXCEEDED).code() == 8
    with pytest.raises(ValueError):
        TritonError("x", 9)
    assert issubclass(TritonModelException, Exception)


CONFIG = {
    "name": "m",
    "input": [{"name": "IN", "data_type": "TYPE_FP32", "dims": [4]}],
    "output": [{"name": "OUT", "data_type": "TYPE_STRING", "dims": [-1]}],
}


def test_config_lookups():
    assert get_input_config_by_name(CONFIG, "IN")["data_type"] == "TYPE_FP32"
    assert get_output_config_by_name(CONFIG, "OUT")["dims"] == [-1]
    assert get_input_config_by_name(CONFIG, "OUT") is None
    assert get_output_config_by_name(CONFIG, "nope") is None
    assert get_input_config_by_name({}, "IN") is None


def test_logger_writes_one_prefixed_line_per_call(capsys, monkeypatch):
    monkeypatch.setattr(logger_module, "_prefix", "[m_0] ")
    Logger.log_info("hello")
    Logger.log_warn("careful")
    Logger.log_error("two\nlines")
    Logger.log_verbose("details")
    Logger.log("explicit", LogLevel.ERROR)
    assert capsys.readouterr().err.splitlines() == [
        "[m_0] [info] hello",
        "[m_0] [warning] careful",
        "[m_0] [error] two\\nlines",
        "[m_0] [verbose] details",
        "[m_0] [error] explicit",
    ]
