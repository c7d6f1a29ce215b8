# SPDX-License-Identifier: Apache-2.0
"""The server's side of the worker protocol, written from python/PROTOCOL.md
independently of inferd_python, so that tests catch a worker that drifts
from the document (a shared codec would agree with itself)."""
from __future__ import annotations

import array
import json
import mmap
import os
import socket
import struct
from dataclasses import dataclass, field
from typing import Optional, Union

import numpy as np

HEADER = struct.Struct("<IB3x")

INIT, REGION, EXECUTE, FINALIZE, AUTO_COMPLETE, BLS_RESPONSE = 1, 2, 3, 4, 5, 6
RESPONSE_SOCKET, RESPONSE_POOL, CANCELLED_ANSWER = 7, 8, 9  # (CANCELLED is the error code)
READY, ERROR, RESULT, FINALIZED, CONFIG, BLS_REQUEST = 101, 102, 103, 104, 105, 106
RESPONSE, IS_CANCELLED = 107, 108
FINAL = 1

# INFERD_DataType numbers and their little-endian numpy dtypes.
DATATYPES = {
    "BOOL": (1, np.dtype(np.bool_)),
    "UINT8": (2, np.dtype("<u1")),
    "UINT16": (3, np.dtype("<u2")),
    "UINT32": (4, np.dtype("<u4")),
    "UINT64": (5, np.dtype("<u8")),
    "INT8": (6, np.dtype("<i1")),
    "INT16": (7, np.dtype("<i2")),
    "INT32": (8, np.dtype("<i4")),
    "INT64": (9, np.dtype("<i8")),
    "FP16": (10, np.dtype("<f2")),
    "FP32": (11, np.dtype("<f4")),
    "FP64": (12, np.dtype("<f8")),
    "BYTES": (13, None),
    "BF16": (14, np.dtype("<u2")),
}
NUMBER_TO_NAME = {number: name for name, (number, _) in DATATYPES.items()}

# INFERD_ErrorCode
(UNKNOWN, INTERNAL, NOT_FOUND, INVALID_ARG, UNAVAILABLE, UNSUPPORTED, ALREADY_EXISTS, CANCELLED,
 DEADLINE_EXCEEDED) = range(9)


def str16(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<H", len(data)) + data


def bytes_data(elements: list[bytes]) -> bytes:
    """BYTES tensor data: u32 LE length + bytes per element."""
    return b"".join(struct.pack("<I", len(e)) + e for e in elements)


def parse_bytes_data(data: bytes) -> list[bytes]:
    elements, position = [], 0
    while position < len(data):
        (length,) = struct.unpack_from("<I", data, position)
        elements.append(bytes(data[position + 4:position + 4 + length]))
        position += 4 + length
    assert position == len(data)
    return elements


@dataclass
class In:
    """One input tensor to send: the data is inline unless `offset` says
    where in the region it was written."""

    name: str
    datatype: str
    dims: list[int]
    data: bytes
    offset: Optional[int] = None

    def encode(self) -> bytes:
        out = str16(self.name) + struct.pack("<BB", DATATYPES[self.datatype][0], len(self.dims))
        out += struct.pack(f"<{len(self.dims)}q", *self.dims)
        if self.offset is None:
            return out + struct.pack("<BQ", 1, len(self.data)) + self.data
        return out + struct.pack("<BQQ", 0, len(self.data), self.offset)


def tensor_in(name: str, array_or_list: Union[np.ndarray, list], datatype: str, offset: Optional[int] = None) -> In:
    """An In from a numpy array (or a list of bytes for BYTES)."""
    if datatype == "BYTES":
        arr = np.array(array_or_list, dtype=object)
        return In(name, datatype, list(arr.shape), bytes_data(list(arr.ravel())), offset)
    arr = np.asarray(array_or_list, dtype=DATATYPES[datatype][1])
    return In(name, datatype, list(arr.shape), arr.tobytes(), offset)


@dataclass
class Req:
    inputs: list[In]
    outputs: list[str]
    request_id: Optional[int] = None  # None: the request's position, from 1
    parameters: str = "{}"
    correlation_id: Union[int, str] = 0


def execute_payload(requests: list[Req], output_offset: int = 0, output_size: int = 0) -> bytes:
    out = struct.pack("<IQQ", len(requests), output_offset, output_size)
    for index, request in enumerate(requests):
        request_id = request.request_id if request.request_id is not None else index + 1
        out += struct.pack("<QI", request_id, len(request.inputs))
        for tensor in request.inputs:
            out += tensor.encode()
        out += struct.pack("<I", len(request.outputs))
        for name in request.outputs:
            out += str16(name)
        parameters = request.parameters.encode("utf-8")
        out += struct.pack("<I", len(parameters)) + parameters
        if isinstance(request.correlation_id, str):
            out += b"\x02" + str16(request.correlation_id)
        elif request.correlation_id:
            out += struct.pack("<BQ", 1, request.correlation_id)
        else:
            out += b"\x00"
    return out


@dataclass
class Out:
    """One output tensor of a RESULT."""

    name: str
    datatype: str
    dims: list[int]
    location: int
    byte_size: int
    offset: Optional[int] = None
    inline: Optional[bytes] = None

    def data(self, region: Optional[Union[mmap.mmap, bytes]] = None) -> bytes:
        if self.location == 1:
            return self.inline
        return bytes(region[self.offset:self.offset + self.byte_size])

    def value(self, region=None) -> Union[np.ndarray, list]:
        """The data as a numpy array (BYTES: a list of bytes, row-major)."""
        data = self.data(region)
        if self.datatype == "BYTES":
            return parse_bytes_data(data)
        return np.frombuffer(data, dtype=DATATYPES[self.datatype][1]).reshape(self.dims)


@dataclass
class Response:
    error: Optional[tuple[int, str]] = None
    outputs: list[Out] = field(default_factory=list)
    pending: bool = False  # RESULT: answered by RESPONSE messages
    # RESPONSE only:
    request_id: int = 0
    final: bool = False
    none: bool = False  # the final flag alone
    pool_block: Optional[int] = None

    def output(self, name: str) -> Out:
        (found,) = [o for o in self.outputs if o.name == name]
        return found


def parse_tensor(payload: bytes, position: int) -> tuple[Out, int]:
    """One tensor descriptor (and inline data) at `position`."""
    (length,) = struct.unpack_from("<H", payload, position)
    name = payload[position + 2:position + 2 + length].decode("utf-8")
    position += 2 + length
    datatype, ndim = struct.unpack_from("<BB", payload, position)
    position += 2
    dims = list(struct.unpack_from(f"<{ndim}q", payload, position))
    position += 8 * ndim
    location, byte_size = struct.unpack_from("<BQ", payload, position)
    position += 9
    if location == 0:
        (offset,) = struct.unpack_from("<Q", payload, position)
        return Out(name, NUMBER_TO_NAME[datatype], dims, 0, byte_size, offset=offset), position + 8
    assert location == 1
    out = Out(name, NUMBER_TO_NAME[datatype], dims, 1, byte_size, inline=bytes(payload[position:position + byte_size]))
    return out, position + byte_size


def parse_result(payload: bytes) -> tuple[int, list[Response]]:
    """(output_bytes_used, responses) of a RESULT payload; asserts that
    nothing is left over."""
    count, used = struct.unpack_from("<IQ", payload, 0)
    position = 12
    responses = []
    for _ in range(count):
        has_error = payload[position]
        position += 1
        if has_error == 2:
            responses.append(Response(pending=True))
            continue
        if has_error:
            code, length = struct.unpack_from("<BI", payload, position)
            position += 5
            responses.append(Response(error=(code, payload[position:position + length].decode("utf-8"))))
            position += length
            continue
        (output_count,) = struct.unpack_from("<I", payload, position)
        position += 4
        response = Response()
        for _ in range(output_count):
            out, position = parse_tensor(payload, position)
            response.outputs.append(out)
        responses.append(response)
    assert position == len(payload), f"{len(payload) - position} bytes left over"
    return used, responses


@dataclass
class BlsRequest:
    """A BLS_REQUEST as the server reads it."""

    id: int
    model_name: str
    model_version: int
    timeout_us: int
    parameters: dict
    requested_outputs: list[str]
    inputs: list[Out]
    decoupled: bool = False

    def input(self, name: str) -> Out:
        (found,) = [i for i in self.inputs if i.name == name]
        return found


def parse_bls_request(payload: bytes) -> BlsRequest:
    (call_id,) = struct.unpack_from("<Q", payload, 0)
    (length,) = struct.unpack_from("<H", payload, 8)
    model_name = payload[10:10 + length].decode("utf-8")
    position = 10 + length
    version, timeout_us, flags, parameter_count = struct.unpack_from("<qQBI", payload, position)
    position += 21
    parameters = {}
    for _ in range(parameter_count):
        (length,) = struct.unpack_from("<H", payload, position)
        key = payload[position + 2:position + 2 + length].decode("utf-8")
        position += 2 + length
        kind = payload[position]
        position += 1
        if kind == 0:
            parameters[key] = bool(payload[position])
            position += 1
        elif kind == 1:
            (parameters[key],) = struct.unpack_from("<q", payload, position)
            position += 8
        else:
            assert kind == 2, kind
            (length,) = struct.unpack_from("<I", payload, position)
            parameters[key] = payload[position + 4:position + 4 + length].decode("utf-8")
            position += 4 + length
    (output_count,) = struct.unpack_from("<I", payload, position)
    position += 4
    outputs = []
    for _ in range(output_count):
        (length,) = struct.unpack_from("<H", payload, position)
        outputs.append(payload[position + 2:position + 2 + length].decode("utf-8"))
        position += 2 + length
    (input_count,) = struct.unpack_from("<I", payload, position)
    position += 4
    inputs = []
    for _ in range(input_count):
        tensor, position = parse_tensor(payload, position)
        inputs.append(tensor)
    assert position == len(payload), f"{len(payload) - position} bytes left over"
    return BlsRequest(call_id, model_name, version, timeout_us, parameters, outputs, inputs, bool(flags & 1))


def bls_response_payload(call_id: int, outputs: Optional[list[In]] = None,
                         error: Optional[tuple[int, str]] = None, final: bool = True,
                         none: bool = False) -> bytes:
    """A BLS_RESPONSE: the error, or the outputs (inline unless an `In` says
    where in the region it was written), or with `none` the final flag
    alone."""
    out = struct.pack("<QB", call_id, FINAL if final else 0)
    if none:
        return out + b"\x02"
    if error is not None:
        message = error[1].encode("utf-8")
        return out + struct.pack("<BBI", 1, error[0], len(message)) + message
    out += struct.pack("<BI", 0, len(outputs or []))
    for tensor in outputs or []:
        out += tensor.encode()
    return out


def parse_response(payload: bytes) -> Response:
    """A RESPONSE (the response socket); asserts nothing is left over."""
    request_id, flags, kind, block = struct.unpack_from("<QBBQ", payload, 0)
    position = 18
    response = Response(request_id=request_id, final=bool(flags & FINAL),
                        pool_block=None if block == 2**64 - 1 else block)
    if kind == 2:
        response.none = True
    elif kind == 1:
        code, length = struct.unpack_from("<BI", payload, position)
        position += 5
        response.error = (code, payload[position:position + length].decode("utf-8"))
        position += length
    else:
        assert kind == 0, kind
        (count,) = struct.unpack_from("<I", payload, position)
        position += 4
        for _ in range(count):
            out, position = parse_tensor(payload, position)
            response.outputs.append(out)
    assert position == len(payload), f"{len(payload) - position} bytes left over"
    return response


def parse_error(payload: bytes) -> tuple[int, str]:
    return payload[0], bytes(payload[1:]).decode("utf-8")


class ServerEnd:
    """The server's end of the control socket, with a memfd region."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.region: Optional[mmap.mmap] = None

    def send(self, message_type: int, payload: bytes = b"", fd: Optional[int] = None) -> None:
        data = HEADER.pack(len(payload), message_type) + payload
        if fd is None:
            self.sock.sendall(data)
        else:
            ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))]
            sent = self.sock.sendmsg([data], ancillary)
            self.sock.sendall(data[sent:])

    def send_json(self, message_type: int, value: dict) -> None:
        self.send(message_type, json.dumps(value).encode("utf-8"))

    def receive(self) -> tuple[int, bytes]:
        header = self._exactly(HEADER.size)
        length, message_type = HEADER.unpack(header)
        return message_type, self._exactly(length)

    def _exactly(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise EOFError(f"socket closed after {len(data)} of {count} bytes")
            data += chunk
        return data

    def new_region(self, size: int) -> mmap.mmap:
        """Creates a memfd of `size`, maps it here and sends it by REGION."""
        fd = os.memfd_create("inferd-test-region")
        try:
            os.ftruncate(fd, size)
            self.region = mmap.mmap(fd, size)
            self.send(REGION, struct.pack("<Q", size), fd=fd)
        finally:
            os.close(fd)
        return self.region

    def write(self, offset: int, data: bytes) -> int:
        self.region[offset:offset + len(data)] = data
        return offset
