# SPDX-License-Identifier: Apache-2.0
"""The message codec (inferd_python._protocol) against the independent
server-side codec in pyworker_wire: every datatype, inline and in the region."""
import struct

import numpy as np
import pytest

import pyworker_wire as wire
from inferd_python import InferenceResponse, Tensor, TritonError
from inferd_python import _protocol as protocol
from inferd_python._region import OutputArena

SAMPLES = {
    "BOOL": np.array([[True, False, True], [False, False, True]]),
    "UINT8": np.array([0, 1, 255], dtype=np.uint8),
    "UINT16": np.array([0, 65535], dtype=np.uint16),
    "UINT32": np.array([[4294967295], [7]], dtype=np.uint32),
    "UINT64": np.array([2**64 - 1, 3], dtype=np.uint64),
    "INT8": np.array([-128, 127], dtype=np.int8),
    "INT16": np.array([-32768, 5], dtype=np.int16),
    "INT32": np.array([-(2**31), 2**31 - 1], dtype=np.int32),
    "INT64": np.array([[-(2**63)], [2**63 - 1]], dtype=np.int64),
    "FP16": np.array([1.5, -0.0, np.inf], dtype=np.float16),
    "FP32": np.arange(12, dtype=np.float32).reshape(2, 3, 2),
    "FP64": np.array(3.25, dtype=np.float64),  # a scalar: ndim 0
    "BYTES": np.array([[b"ab", b""], [b"\x00\xff", "\u00e9".encode()]], dtype=object),
    "BF16": np.array([0x3F80, 0xC000], dtype=np.uint16),
}


def _decode(payload: bytes, region=None):
    return protocol.decode_execute(bytearray(payload), region)


def test_header_layout():
    assert protocol.encode_header(0x01020304, protocol.RESULT) == b"\x04\x03\x02\x01\x67\x00\x00\x00"
    assert protocol.decode_header(wire.HEADER.pack(9, wire.EXECUTE)) == (9, protocol.EXECUTE)


def test_message_numbers_match_protocol():
    assert (protocol.INIT, protocol.REGION, protocol.EXECUTE, protocol.FINALIZE, protocol.AUTO_COMPLETE) == \
        (wire.INIT, wire.REGION, wire.EXECUTE, wire.FINALIZE, wire.AUTO_COMPLETE)
    assert (protocol.READY, protocol.ERROR, protocol.RESULT, protocol.FINALIZED, protocol.CONFIG) == \
        (wire.READY, wire.ERROR, wire.RESULT, wire.FINALIZED, wire.CONFIG)


def test_small_messages():
    assert protocol.decode_region(struct.pack("<Q", 1 << 33)) == 1 << 33
    with pytest.raises(protocol.ProtocolError):
        protocol.decode_region(b"\x00" * 4)
    assert wire.parse_error(protocol.encode_error(4, "bad \u00e9")) == (4, "bad \u00e9")
    assert protocol.decode_json(b'{"a": [1]}') == {"a": [1]}
    with pytest.raises(protocol.ProtocolError):
        protocol.decode_json(b"[1]")
    with pytest.raises(protocol.ProtocolError):
        protocol.decode_json(b"{nope")
    # numpy values in a config (dims from array.shape) are written as numbers.
    assert protocol.encode_json({"dims": [np.int64(4)], "x": np.array([1, 2])}) == b'{"dims": [4], "x": [1, 2]}'


@pytest.mark.parametrize("datatype", sorted(SAMPLES))
def test_execute_inline_every_datatype(datatype):
    sample = SAMPLES[datatype]
    payload = wire.execute_payload([wire.Req([wire.tensor_in("X", sample, datatype)], ["Y"])])
    output_offset, output_size, requests = _decode(payload)
    assert (output_offset, output_size) == (0, 0)
    (request,) = requests
    assert request.requested_output_names() == ["Y"]
    (tensor,) = request.inputs()
    assert tensor.name() == "X"
    assert tensor.triton_dtype() == wire.DATATYPES[datatype][0]
    array = tensor.as_numpy()
    assert array.shape == sample.shape
    if datatype == "BYTES":
        assert array.dtype == object
        assert array.tolist() == sample.tolist()
    else:
        assert array.dtype == wire.DATATYPES[datatype][1]
        np.testing.assert_array_equal(array, sample)
        assert array.flags.writeable


@pytest.mark.parametrize("datatype", sorted(SAMPLES))
def test_execute_region_every_datatype_is_a_view(datatype, memfd_region):
    region, ours = memfd_region(4096)
    sample = SAMPLES[datatype]
    tensor_in = wire.tensor_in("X", sample, datatype, offset=100)
    ours[100:100 + len(tensor_in.data)] = tensor_in.data
    _, _, (request,) = _decode(wire.execute_payload([wire.Req([tensor_in], ["Y"])], 1024, 2048), region)
    array = request.inputs()[0].as_numpy()
    if datatype == "BYTES":
        assert array.tolist() == sample.tolist()
        return
    np.testing.assert_array_equal(array, sample)
    # Zero copy: the array sees later writes to the region.
    if array.size:
        ours[100:100 + array.itemsize] = b"\x01" * array.itemsize
        assert array.reshape(-1)[0] == np.frombuffer(b"\x01" * array.itemsize, dtype=array.dtype)[0]
    del array, request


def test_execute_several_requests_and_inputs(memfd_region):
    region, ours = memfd_region(4096)
    a = wire.tensor_in("A", np.array([1, 2], dtype=np.int32), "INT32", offset=0)
    ours[0:8] = a.data
    b = wire.tensor_in("B", [b"x"], "BYTES")
    c = wire.tensor_in("C", np.zeros((0, 3), dtype=np.float32), "FP32")
    payload = wire.execute_payload([wire.Req([a, b], ["O1", "O2"]), wire.Req([c], ["O2"])], 512, 64)
    output_offset, output_size, requests = _decode(payload, region)
    assert (output_offset, output_size) == (512, 64)
    assert [t.name() for t in requests[0].inputs()] == ["A", "B"]
    assert requests[0].requested_output_names() == ["O1", "O2"]
    assert requests[1].inputs()[0].as_numpy().shape == (0, 3)
    assert requests[1].requested_output_names() == ["O2"]


@pytest.mark.parametrize("mutate,match", [
    (lambda p: p[:-1], "malformed EXECUTE"),
    (lambda p: p + b"\x00", "bytes follow"),
])
def test_execute_rejects_truncated_or_trailing(mutate, match):
    payload = wire.execute_payload([wire.Req([wire.tensor_in("X", [1.0], "FP32")], ["Y"])])
    with pytest.raises(protocol.ProtocolError, match=match):
        _decode(mutate(payload))


def test_execute_rejects_bad_tensors(memfd_region):
    def one(tensor):
        return wire.execute_payload([wire.Req([tensor], ["Y"])])

    with pytest.raises(protocol.ProtocolError, match="byte_size"):
        _decode(one(wire.In("X", "FP32", [3], b"\x00" * 8)))
    with pytest.raises(protocol.ProtocolError, match="dims"):
        _decode(one(wire.In("X", "FP32", [-1, -1], b"\x00" * 4)))
    with pytest.raises(protocol.ProtocolError, match="no region"):
        _decode(one(wire.In("X", "FP32", [1], b"\x00" * 4, offset=0)))
    region, _ = memfd_region(64)
    with pytest.raises(protocol.ProtocolError, match="outside"):
        _decode(one(wire.In("X", "FP32", [4], b"\x00" * 16, offset=60)), region)
    bad_type = bytearray(one(wire.In("X", "FP32", [1], b"\x00" * 4)))
    bad_type[20 + 8 + 4 + 3] = 99  # the datatype byte of input "X"
    with pytest.raises(protocol.ProtocolError, match="unknown datatype 99"):
        _decode(bytes(bad_type))
    with pytest.raises(protocol.ProtocolError, match="request_count"):
        _decode(struct.pack("<IQQ", 0, 0, 0))


def _result(responses, requests, region=None, arena=None, bf16=frozenset()):
    payload = protocol.encode_result(responses, requests, region, arena, bf16)
    return wire.parse_result(bytes(payload))


def _request(*names):
    from inferd_python import InferenceRequest

    return InferenceRequest(requested_output_names=list(names))


@pytest.mark.parametrize("datatype", sorted(set(SAMPLES) - {"BF16"}))
def test_result_inline_every_datatype(datatype):
    sample = SAMPLES[datatype]
    used, (response,) = _result([InferenceResponse([Tensor("Y", sample)])], [_request("Y")])
    assert used == 0
    (out,) = response.outputs
    assert (out.name, out.datatype, out.dims, out.location) == ("Y", datatype, list(sample.shape), 1)
    if datatype == "BYTES":
        assert out.value() == sample.ravel().tolist()
    else:
        np.testing.assert_array_equal(out.value(), sample)


@pytest.mark.parametrize("datatype", sorted(set(SAMPLES) - {"BF16"}))
def test_result_region_every_datatype(datatype, memfd_region):
    region, ours = memfd_region(4096)
    sample = SAMPLES[datatype]
    arena = OutputArena(1024, 1024)
    used, (response,) = _result([InferenceResponse([Tensor("Y", sample)])], [_request("Y")], region, arena)
    (out,) = response.outputs
    assert (out.location, out.offset) == (0, 1024)
    assert used == out.byte_size
    if datatype == "BYTES":
        assert out.value(ours) == sample.ravel().tolist()
    else:
        np.testing.assert_array_equal(out.value(ours), sample)


def test_result_bf16_from_config_names():
    sample = SAMPLES["BF16"]
    _, (response,) = _result([InferenceResponse([Tensor("B", sample), Tensor("U", sample)])],
                             [_request("B", "U")], bf16=frozenset({"B"}))
    assert [(o.name, o.datatype) for o in response.outputs] == [("B", "BF16"), ("U", "UINT16")]
    np.testing.assert_array_equal(response.output("B").value(), sample)


def test_result_region_packing_alignment_and_overflow(memfd_region):
    region, ours = memfd_region(8192)
    a = np.arange(3, dtype=np.float32)           # 12 bytes at 128
    b = np.arange(40, dtype=np.uint8)            # 40 bytes at 192
    big = np.arange(100, dtype=np.float64)       # 800 bytes: does not fit, inline
    c = np.array([7], dtype=np.int16)            # 2 bytes at 256, after the one that did not fit
    empty = np.zeros((2, 0), dtype=np.float32)   # no data: inline, 0 bytes
    arena = OutputArena(128, 300)
    used, (response,) = _result([InferenceResponse([Tensor(n, x) for n, x in
                                                    [("a", a), ("b", b), ("big", big), ("c", c), ("e", empty)]])],
                                [_request("a", "b", "big", "c", "e")], region, arena)
    layout = [(o.name, o.location, o.offset, o.byte_size) for o in response.outputs]
    assert layout == [("a", 0, 128, 12), ("b", 0, 192, 40), ("big", 1, None, 800), ("c", 0, 256, 2),
                      ("e", 1, None, 0)]
    assert used == 256 + 2 - 128
    np.testing.assert_array_equal(response.output("big").value(), big)
    np.testing.assert_array_equal(response.output("c").value(ours), c)
    assert response.output("e").dims == [2, 0]


def test_result_converts_non_contiguous_and_big_endian(memfd_region):
    region, ours = memfd_region(4096)
    transposed = np.arange(6, dtype=np.int32).reshape(2, 3).T
    swapped = np.array([1.5, 2.5], dtype=">f8")
    tensors = [Tensor("t", transposed), Tensor("s", swapped)]
    for arena in (None, OutputArena(0, 4096)):
        _, (response,) = _result([InferenceResponse(tensors)], [_request("t", "s")], region, arena)
        np.testing.assert_array_equal(response.output("t").value(ours), transposed)
        assert response.output("s").datatype == "FP64"
        np.testing.assert_array_equal(response.output("s").value(ours), swapped)


def test_result_only_requested_outputs_in_model_order():
    x, y, z = (Tensor(n, np.array([i], dtype=np.int8)) for i, n in enumerate("XYZ"))
    _, responses = _result([InferenceResponse([x, y, z]), InferenceResponse([x, y, z])],
                           [_request("Z", "X", "missing"), _request("Y")])
    assert [o.name for o in responses[0].outputs] == ["X", "Z"]
    assert [o.name for o in responses[1].outputs] == ["Y"]


def test_result_errors_per_response():
    ok = InferenceResponse([Tensor("Y", np.array([1], dtype=np.int8))])
    failed = InferenceResponse([Tensor("Y", np.array([1], dtype=np.int8))],
                               error=TritonError("no such thing \u00e9", TritonError.NOT_FOUND))
    default = InferenceResponse(error=TritonError("oops"))
    _, responses = _result([ok, failed, default], [_request("Y")] * 3)
    assert responses[0].error is None and len(responses[0].outputs) == 1
    assert responses[1].error == (wire.NOT_FOUND, "no such thing \u00e9")
    assert responses[1].outputs == []
    assert responses[2].error == (wire.INTERNAL, "oops")
