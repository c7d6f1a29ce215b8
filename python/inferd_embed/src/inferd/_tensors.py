# SPDX-License-Identifier: Apache-2.0
"""numpy arrays <-> the server's tensors.

Inputs are lent without a copy when they already are C-contiguous,
native-endian arrays of a type the protocol has; anything else is converted
once. BYTES tensors (numpy object, bytes or str arrays) are encoded into
the protocol's length-prefixed form, which is a copy by nature. Outputs are
read-only views of the server's memory; BYTES outputs are decoded into object
arrays of bytes (a copy), BF16 outputs are their uint16 bit patterns.
"""

import struct

import numpy as np

# numpy dtype kind+size -> protocol datatype name.
_DATATYPES = {
    np.dtype(np.bool_): "BOOL",
    np.dtype(np.uint8): "UINT8",
    np.dtype(np.uint16): "UINT16",
    np.dtype(np.uint32): "UINT32",
    np.dtype(np.uint64): "UINT64",
    np.dtype(np.int8): "INT8",
    np.dtype(np.int16): "INT16",
    np.dtype(np.int32): "INT32",
    np.dtype(np.int64): "INT64",
    np.dtype(np.float16): "FP16",
    np.dtype(np.float32): "FP32",
    np.dtype(np.float64): "FP64",
}
# Datatypes whose numpy form is another type's (no bfloat16 in numpy).
_CARRIERS = {"BF16": np.dtype(np.uint16)}


def _encode_bytes(array: np.ndarray) -> bytes:
    parts = []
    for item in array.reshape(-1):
        if isinstance(item, str):
            item = item.encode("utf-8")
        elif not isinstance(item, (bytes, bytearray, memoryview)):
            item = str(item).encode("utf-8")
        item = bytes(item)
        parts.append(struct.pack("<I", len(item)))
        parts.append(item)
    return b"".join(parts)


def to_input(name: str, value):
    """(name, datatype, shape, buffer) for the extension.

    `value` is an array-like, or (array-like, "DATATYPE") to name the
    datatype (e.g. BF16 as uint16 bit patterns).
    """
    datatype = None
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        value, datatype = value
    array = np.asarray(value)
    shape = tuple(int(d) for d in array.shape)
    if datatype == "BYTES" or (
        datatype is None and array.dtype.kind in ("O", "S", "U")
    ):
        return (name, "BYTES", shape, _encode_bytes(array))
    if datatype is None:
        native = array.dtype.newbyteorder("=")
        datatype = _DATATYPES.get(native)
        if datatype is None:
            raise TypeError(f"input '{name}': numpy dtype {array.dtype} has no protocol datatype")
        dtype = native
    else:
        dtype = _CARRIERS.get(datatype) or next(
            (d for d, n in _DATATYPES.items() if n == datatype), None
        )
        if dtype is None:
            raise TypeError(f"input '{name}': unknown datatype '{datatype}'")
    # No copy for an array that already has the layout the server reads.
    array = np.ascontiguousarray(array, dtype=dtype)
    return (name, datatype, shape, array)


def _decode_bytes(raw: np.ndarray, shape) -> np.ndarray:
    data = raw.tobytes()
    items = []
    offset = 0
    while offset < len(data):
        (length,) = struct.unpack_from("<I", data, offset)
        offset += 4
        items.append(data[offset : offset + length])
        offset += length
    result = np.empty(len(items), dtype=np.object_)
    result[:] = items
    return result.reshape(shape)


def from_output(datatype: str, shape, array: np.ndarray) -> np.ndarray:
    """The numpy form of one output (the extension's read-only view)."""
    if datatype == "BYTES":
        return _decode_bytes(array, shape)
    return array
