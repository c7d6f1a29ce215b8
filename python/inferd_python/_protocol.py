# SPDX-License-Identifier: Apache-2.0
"""The worker protocol's messages (python/PROTOCOL.md) as pure functions over
bytes, so that every encoder and decoder is testable without a socket.

BLS_REQUEST / BLS_RESPONSE carry a model's calls to other models (BLS).

Decoding EXECUTE and encoding RESULT are the per-request path, measured
against calling `execute` in-process: structs are compiled once, input arrays
are views (of the region, or of the payload for inline data), and outputs are
copied once, into the region when they fit.
"""
from __future__ import annotations

import json
import struct
from typing import Any, Optional, Sequence

import numpy as np

from . import _types
from ._region import OutputArena, Region
from .request import InferenceRequest
from .response import InferenceResponse
from .tensor import Tensor

# Message types, server -> worker.
INIT = 1
REGION = 2
EXECUTE = 3
FINALIZE = 4
AUTO_COMPLETE = 5
BLS_RESPONSE = 6
RESPONSE_SOCKET = 7
RESPONSE_POOL = 8
CANCELLED = 9  # on the response socket
# Message types, worker -> server.
READY = 101
ERROR = 102
RESULT = 103
FINALIZED = 104
CONFIG = 105
BLS_REQUEST = 106
RESPONSE = 107  # on the response socket
IS_CANCELLED = 108  # on the response socket

PROTOCOL_VERSION = 2

LOCATION_REGION = 0  # RESPONSE: in the response pool
LOCATION_INLINE = 1

# RESULT entries (the u8 after each response's start).
RESULT_OUTPUTS = 0
RESULT_ERROR = 1
RESULT_PENDING = 2  # answered by RESPONSE messages

# Flags of RESPONSE and BLS_RESPONSE: TRITONSERVER_RESPONSE_COMPLETE_FINAL.
FLAG_FINAL = 1
# BLS_REQUEST flags: exec(decoupled=True).
BLS_DECOUPLED = 1
# RESPONSE kinds, and BLS_RESPONSE's has_error values.
RESPONSE_OUTPUTS = 0
RESPONSE_ERROR = 1
RESPONSE_NONE = 2  # the final flag alone
NO_POOL_BLOCK = 2**64 - 1

HEADER = struct.Struct("<IB3x")

_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_EXECUTE_HEAD = struct.Struct("<IQQ")  # request_count, output_offset, output_size
_RESULT_HEAD = struct.Struct("<IQ")  # response_count, output_bytes_used
_TYPE_NDIM = struct.Struct("<BB")
_RESPONSE_OK = struct.Struct("<BI")  # has_error = 0, output_count
_RESPONSE_ERROR = struct.Struct("<BBI")  # has_error = 1, code, message length
_BLS_REQUEST_FIELDS = struct.Struct("<qQBI")  # model_version, timeout_us, flags, parameter_count
_PARAMETER_BOOL = struct.Struct("<BB")
_PARAMETER_INT = struct.Struct("<Bq")
_PARAMETER_STRING = struct.Struct("<BI")
_BLS_RESPONSE_HEAD = struct.Struct("<QBB")  # id, flags, has_error
_RESPONSE_HEAD = struct.Struct("<QBBQ")  # request_id, flags, kind, pool_block
_RESPONSE_ERROR_KIND = struct.Struct("<BI")  # code, message length
_CORRELATION_INT = struct.Struct("<Q")
_INT64_RANGE = range(-(2**63), 2**63)
# A tensor descriptor after its name, one struct per ndim (a u8), so that a
# tensor costs one pack or two unpacks: dims, location, byte_size[, offset].
_DIMS_LOCATION_SIZE = [struct.Struct(f"<{ndim}qBQ") for ndim in range(256)]
_REGION_DESCRIPTOR = [struct.Struct(f"<BB{ndim}qBQQ") for ndim in range(256)]
_INLINE_DESCRIPTOR = [struct.Struct(f"<BB{ndim}qBQ") for ndim in range(256)]

# Encoded str16 names of outputs: the same few names come back every batch.
_NAME_CACHE_LIMIT = 4096
_encoded_names: dict[str, bytes] = {}


class ProtocolError(Exception):
    """A message that does not follow PROTOCOL.md."""


def encode_header(length: int, message_type: int) -> bytes:
    """The 8-byte header in front of a payload of `length` bytes."""
    return HEADER.pack(length, message_type)


def decode_header(header: bytes) -> tuple[int, int]:
    """(payload length, message type) of an 8-byte header."""
    return HEADER.unpack(header)


def _json_default(value: Any) -> Any:
    """Lets configs hold numpy scalars and arrays (dims = array.shape items)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def encode_json(value: Any) -> bytes:
    """A JSON payload (READY, CONFIG)."""
    return json.dumps(value, default=_json_default).encode("utf-8")


def decode_json(payload: bytes) -> dict:
    """A JSON object payload (INIT, AUTO_COMPLETE)."""
    try:
        value = json.loads(payload)
    except ValueError as error:
        raise ProtocolError(f"payload is not JSON: {error}") from error
    if not isinstance(value, dict):
        raise ProtocolError(f"payload is JSON {type(value).__name__}, not an object")
    return value


def decode_region(payload: bytes) -> int:
    """The size of the region a REGION message announces."""
    if len(payload) != _U64.size:
        raise ProtocolError(f"REGION payload has {len(payload)} bytes, not 8")
    return _U64.unpack(payload)[0]


def encode_error(code: int, message: str) -> bytes:
    """An ERROR payload: the code, then the message to the end."""
    return bytes((code,)) + message.encode("utf-8", "replace")


def decode_execute(payload: bytearray, region: Optional[Region]) -> tuple[int, int, list[InferenceRequest]]:
    """(output_offset, output_size, requests) of an EXECUTE payload.

    Inputs become arrays that view `region` (location 0) or `payload` itself
    (location 1), so `payload` must stay alive, and unchanged, while the
    requests are in use.
    """
    try:
        return _decode_execute(payload, region)
    except (struct.error, ValueError, UnicodeDecodeError, IndexError) as error:
        raise ProtocolError(f"malformed EXECUTE: {error}") from error


def _decode_execute(payload: bytearray, region: Optional[Region]) -> tuple[int, int, list[InferenceRequest]]:
    view = memoryview(payload)
    size = len(view)
    request_count, output_offset, output_size = _EXECUTE_HEAD.unpack_from(view, 0)
    if request_count < 1:
        raise ValueError("request_count is 0")
    position = _EXECUTE_HEAD.size
    unpack_u32 = _U32.unpack_from
    unpack_u16 = _U16.unpack_from
    unpack_u64 = _U64.unpack_from
    new_request = InferenceRequest._from_server
    requests = []
    for _ in range(request_count):
        (request_id,) = unpack_u64(view, position)
        (input_count,) = unpack_u32(view, position + 8)
        position += 12
        inputs = []
        for _ in range(input_count):
            tensor, position = _decode_tensor(payload, view, size, position, region)
            inputs.append(tensor)
        (output_count,) = unpack_u32(view, position)
        position += 4
        names = []
        for _ in range(output_count):
            (length,) = unpack_u16(view, position)
            position += 2
            end = position + length
            if end > size:
                raise ValueError("requested output name runs past the payload")
            names.append(str(view[position:end], "utf-8"))
            position = end
        (length,) = unpack_u32(view, position)
        position += 4
        end = position + length
        if end > size:
            raise ValueError("parameters run past the payload")
        parameters = str(view[position:end], "utf-8")
        kind = view[end]
        position = end + 1
        if kind == 0:
            correlation_id: Any = 0
        elif kind == 1:
            (correlation_id,) = unpack_u64(view, position)
            position += 8
        elif kind == 2:
            (length,) = unpack_u16(view, position)
            position += 2
            end = position + length
            if end > size:
                raise ValueError("correlation id runs past the payload")
            correlation_id = str(view[position:end], "utf-8")
            position = end
        else:
            raise ValueError(f"correlation id kind {kind}")
        requests.append(new_request(request_id, inputs, names, parameters, correlation_id))
    if position != size:
        raise ValueError(f"{size - position} bytes follow the last request")
    return output_offset, output_size, requests


def _decode_tensor(payload: bytearray, view: memoryview, size: int, position: int,
                   region: Optional[Region]) -> tuple[Tensor, int]:
    """One tensor descriptor (and its inline data) at `position` of the
    `size`-byte payload; returns the tensor and the position after it."""
    (length,) = _U16.unpack_from(view, position)
    position += 2
    end = position + length
    if end > size:
        raise ValueError("tensor name runs past the payload")
    name = str(view[position:end], "utf-8")
    dtype_number, ndim = _TYPE_NDIM.unpack_from(view, end)
    fields = _DIMS_LOCATION_SIZE[ndim].unpack_from(view, end + 2)
    position = end + 2 + _DIMS_LOCATION_SIZE[ndim].size
    dims = fields[:ndim]
    location = fields[ndim]
    byte_size = fields[ndim + 1]
    if location == LOCATION_REGION:
        (offset,) = _U64.unpack_from(view, position)
        position += 8
        if region is None:
            raise ValueError(f"input '{name}' lies in the region, but no region is mapped")
        buffer = region.buffer
        limit = region.size
    elif location == LOCATION_INLINE:
        offset = position
        position += byte_size
        buffer = payload
        limit = size
    else:
        raise ValueError(f"input '{name}' has location {location}")
    if offset + byte_size > limit:
        raise ValueError(f"input '{name}' data [{offset}, {offset + byte_size}) lies outside its buffer of {limit} bytes")
    count = 1
    for dim in dims:
        if dim < 0:
            raise ValueError(f"input '{name}' has dims {list(dims)}")
        count *= dim
    if dtype_number == _types.BYTES:
        array = _types.deserialize_bytes(buffer, offset, byte_size, count).reshape(dims)
    else:
        dtype = _types.WIRE_DTYPES.get(dtype_number)
        if dtype is None:
            raise ValueError(f"input '{name}' has unknown datatype {dtype_number}")
        if count * dtype.itemsize != byte_size:
            raise ValueError(f"input '{name}' of {count} x {dtype} elements has byte_size {byte_size}")
        array = np.ndarray(dims, dtype, buffer, offset)
    return Tensor._wrap(name, array, dtype_number), position


def encode_result(responses: Sequence[InferenceResponse], requests: Sequence[InferenceRequest],
                  region: Optional[Region], arena: Optional[OutputArena],
                  bf16_outputs: frozenset = frozenset()) -> bytearray:
    """The RESULT payload for `responses` (one per request, already checked;
    None for a request its response sender answers: RESULT_PENDING).

    Each response carries only the outputs its request asked for, in the
    model's order. Data goes into the region through `arena` when it fits,
    else inline; `arena` None means all inline. A uint16 output named in
    `bf16_outputs` (the config says TYPE_BF16) is sent as BF16, since numpy
    cannot say so itself.
    """
    out = bytearray(_RESULT_HEAD.size)
    for response, request in zip(responses, requests):
        if response is None:
            out.append(RESULT_PENDING)
            continue
        error = response._error
        if error is not None:
            message = error._message.encode("utf-8", "replace")
            out += _RESPONSE_ERROR.pack(1, error._code, len(message))
            out += message
            continue
        wanted = request._requested_output_names
        tensors = [tensor for tensor in response._output_tensors if tensor._name in wanted]
        out += _RESPONSE_OK.pack(0, len(tensors))
        for tensor in tensors:
            _encode_tensor(out, tensor, region, arena, bf16_outputs)
    _RESULT_HEAD.pack_into(out, 0, len(responses), arena.used if arena is not None else 0)
    return out


def _encoded_name(name: str) -> bytes:
    """`name` as str16, cached."""
    encoded = _encoded_names.get(name)
    if encoded is None:
        data = name.encode("utf-8")
        encoded = _U16.pack(len(data)) + data
        if len(_encoded_names) < _NAME_CACHE_LIMIT:
            _encoded_names[name] = encoded
    return encoded


def _encode_tensor(out: bytearray, tensor: Tensor, region: Optional[Region], arena: Optional[OutputArena],
                   bf16_outputs: frozenset) -> None:
    """Appends one output descriptor to `out`, its data to the region or,
    when it does not fit, to `out` (inline). Empty data is always inline."""
    prepared = _prepare_tensor(tensor, bf16_outputs)
    offset = arena.place(prepared[3]) if arena is not None and prepared[3] else None
    _write_tensor(out, prepared, region.buffer if offset is not None else None, offset)


def _prepare_tensor(tensor: Tensor, bf16_outputs: frozenset) -> tuple:
    """(tensor, wire datatype, serialized BYTES data or None, byte size)."""
    dtype_number = tensor._dtype
    if dtype_number == _types.UINT16 and tensor._name in bf16_outputs:
        dtype_number = _types.BF16
    if dtype_number == _types.BYTES:
        data = _types.serialize_bytes(tensor._array)
        return tensor, dtype_number, data, len(data)
    return tensor, dtype_number, None, tensor._array.nbytes


def _write_tensor(out: bytearray, prepared: tuple, buffer: Any, offset: Optional[int]) -> None:
    """Appends the descriptor of a prepared tensor to `out` and copies its
    data to `buffer` at `offset` (location 0) or, with offset None, to `out`.

    Dense little-endian arrays, the usual case, are copied with one memcpy;
    others (transposed, big-endian) are converted by numpy on the way.
    """
    tensor, dtype_number, data, nbytes = prepared
    array = tensor._array
    shape = array.shape
    ndim = len(shape)
    out += _encoded_name(tensor._name)
    if offset is not None:
        out += _REGION_DESCRIPTOR[ndim].pack(dtype_number, ndim, *shape, LOCATION_REGION, nbytes, offset)
        if data is None:
            wire_dtype = _types.WIRE_DTYPES[dtype_number]
            if array.dtype == wire_dtype and array.flags.c_contiguous:
                buffer[offset:offset + nbytes] = array
            else:
                np.copyto(np.ndarray(shape, wire_dtype, buffer, offset), array)
        else:
            buffer[offset:offset + nbytes] = data
        return
    out += _INLINE_DESCRIPTOR[ndim].pack(dtype_number, ndim, *shape, LOCATION_INLINE, nbytes)
    if data is not None:
        out += data
    elif nbytes:
        wire_dtype = _types.WIRE_DTYPES[dtype_number]
        if array.dtype != wire_dtype or not array.flags.c_contiguous:
            array = np.ascontiguousarray(array, dtype=wire_dtype)
        # memoryview: `bytearray += ndarray` would be numpy's broadcasting add.
        out += memoryview(array)


# -- RESPONSE -------------------------------------------------------------------


def encode_response(request_id: int, flags: int, response: Optional[InferenceResponse],
                    requested_output_names: Optional[Sequence[str]], pool: Any,
                    bf16_outputs: frozenset = frozenset()) -> bytearray:
    """The RESPONSE payload for one send of a request's response sender:
    `response` None is the final flag alone. The outputs are those of
    `requested_output_names` (None: all), in the model's order, in one block
    of the response pool (`pool.allocate`, None: no pool) when it has room,
    else inline."""
    if response is None:
        return bytearray(_RESPONSE_HEAD.pack(request_id, flags, RESPONSE_NONE, NO_POOL_BLOCK))
    error = response._error
    if error is not None:
        message = error._message.encode("utf-8", "replace")
        out = bytearray(_RESPONSE_HEAD.pack(request_id, flags, RESPONSE_ERROR, NO_POOL_BLOCK))
        out += _RESPONSE_ERROR_KIND.pack(error._code, len(message))
        out += message
        return out
    tensors = response._output_tensors
    if requested_output_names is not None:
        tensors = [tensor for tensor in tensors if tensor._name in requested_output_names]
    prepared = [_prepare_tensor(tensor, bf16_outputs) for tensor in tensors]
    sizes = [item[3] for item in prepared]
    placed = pool.allocate(sizes) if pool is not None and any(sizes) else None
    block, offsets = placed if placed is not None else (NO_POOL_BLOCK, None)
    out = bytearray(_RESPONSE_HEAD.pack(request_id, flags, RESPONSE_OUTPUTS, block))
    out += _U32.pack(len(prepared))
    try:
        for index, item in enumerate(prepared):
            offset = offsets[index] if offsets is not None else None
            _write_tensor(out, item, pool.buffer if offset is not None else None, offset)
    except BaseException:
        if offsets is not None:
            pool.buffer[block] = 0  # never sent: the worker takes it back
        raise
    return out


def decode_cancelled(payload: bytearray) -> tuple[int, bool]:
    """(request id, cancelled) of a CANCELLED answer."""
    if len(payload) != 9:
        raise ProtocolError(f"CANCELLED payload has {len(payload)} bytes, not 9")
    return _U64.unpack_from(payload, 0)[0], payload[8] != 0


# -- BLS ------------------------------------------------------------------------


def _str16(text: str) -> bytes:
    data = text.encode("utf-8")
    if len(data) > 0xFFFF:
        raise ValueError(f"{text[:40]!r}... is longer than 65535 bytes")
    return _U16.pack(len(data)) + data


def encode_bls_request(call_id: int, model_name: str, model_version: int, timeout_us: int,
                       parameters: Sequence[tuple[str, Any]], requested_output_names: Sequence[str],
                       inputs: Sequence[Tensor], region: Optional[Region],
                       arena: Optional[OutputArena], decoupled: bool = False) -> bytearray:
    """The BLS_REQUEST payload. Input data goes into the current EXECUTE's
    output range through `arena` (shared with the outputs RESULT will
    carry) when it fits, else inline. Parameter values are bool, int or str.
    `decoupled` asks for every response of a decoupled target.
    """
    out = bytearray(_U64.pack(call_id))
    out += _str16(model_name)
    out += _BLS_REQUEST_FIELDS.pack(model_version, timeout_us, BLS_DECOUPLED if decoupled else 0, len(parameters))
    for key, value in parameters:
        out += _str16(key)
        if isinstance(value, bool):
            out += _PARAMETER_BOOL.pack(0, value)
        elif isinstance(value, int):
            if value not in _INT64_RANGE:
                raise ValueError(f"parameter '{key}' = {value} does not fit in 64 bits")
            out += _PARAMETER_INT.pack(1, value)
        else:
            data = str(value).encode("utf-8")
            out += _PARAMETER_STRING.pack(2, len(data))
            out += data
    out += _U32.pack(len(requested_output_names))
    for name in requested_output_names:
        out += _str16(name)
    out += _U32.pack(len(inputs))
    for tensor in inputs:
        _encode_tensor(out, tensor, region, arena, frozenset())
    return out


def bls_response_id(payload: bytearray) -> int:
    """The call id a BLS_RESPONSE answers."""
    if len(payload) < 8:
        raise ProtocolError("BLS_RESPONSE shorter than its id")
    return _U64.unpack_from(payload, 0)[0]


def decode_bls_response(payload: bytearray, region: Optional[Region]) -> tuple[int, int, Optional[tuple[int, str]], Optional[list[Tensor]]]:
    """(call id, flags, (code, message) or None, output tensors) of a
    BLS_RESPONSE; the tensors are None for a final flag without a response.

    Outputs view the region (location 0) or `payload` (location 1), as
    EXECUTE's inputs do.
    """
    try:
        view = memoryview(payload)
        size = len(view)
        call_id, flags, has_error = _BLS_RESPONSE_HEAD.unpack_from(view, 0)
        position = _BLS_RESPONSE_HEAD.size
        if has_error == RESPONSE_NONE:
            if position != size or not flags & FLAG_FINAL:
                raise ValueError("a BLS_RESPONSE without a response must end the call and the payload")
            return call_id, flags, None, None
        if has_error:
            code, length = struct.unpack_from("<BI", view, position)
            position += 5
            if position + length != size:
                raise ValueError("the error message does not end the payload")
            return call_id, flags, (code, str(view[position:], "utf-8", "replace")), []
        (count,) = _U32.unpack_from(view, position)
        position += 4
        outputs = []
        for _ in range(count):
            tensor, position = _decode_tensor(payload, view, size, position, region)
            outputs.append(tensor)
        if position != size:
            raise ValueError(f"{size - position} bytes follow the last output")
        return call_id, flags, None, outputs
    except (struct.error, ValueError, UnicodeDecodeError) as error:
        raise ProtocolError(f"malformed BLS_RESPONSE: {error}") from error
