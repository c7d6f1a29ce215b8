# SPDX-License-Identifier: Apache-2.0
"""Element types: INFERD/Triton datatype numbers, numpy dtypes, config names.

The numbers are INFERD_DataType from include/inferd/backend.h, which are also
Triton's model-config DataType numbers ("TYPE_FP32" is 11), so one table
serves the wire protocol, `Tensor.triton_dtype()` and the config helpers.

numpy has no bfloat16, so BF16 data is seen as raw uint16 bit patterns: an
input tensor of type BF16 is a numpy uint16 array whose `triton_dtype()` says
BF16. That is a documented limitation of this backend.
"""
from __future__ import annotations

import struct
from typing import Any, Optional

import numpy as np

from .errors import TritonModelException

INVALID = 0
BOOL = 1
UINT8 = 2
UINT16 = 3
UINT32 = 4
UINT64 = 5
INT8 = 6
INT16 = 7
INT32 = 8
INT64 = 9
FP16 = 10
FP32 = 11
FP64 = 12
BYTES = 13
BF16 = 14

# Wire dtype of every fixed-size type: little-endian, as the protocol says.
WIRE_DTYPES: dict[int, np.dtype] = {
    BOOL: np.dtype(np.bool_),
    UINT8: np.dtype("<u1"),
    UINT16: np.dtype("<u2"),
    UINT32: np.dtype("<u4"),
    UINT64: np.dtype("<u8"),
    INT8: np.dtype("<i1"),
    INT16: np.dtype("<i2"),
    INT32: np.dtype("<i4"),
    INT64: np.dtype("<i8"),
    FP16: np.dtype("<f2"),
    FP32: np.dtype("<f4"),
    FP64: np.dtype("<f8"),
    BF16: np.dtype("<u2"),
}

# numpy dtype (native byte order) -> number. uint16 means UINT16, never BF16.
NUMBER_BY_DTYPE: dict[np.dtype, int] = {
    np.dtype(np.bool_): BOOL,
    np.dtype(np.uint8): UINT8,
    np.dtype(np.uint16): UINT16,
    np.dtype(np.uint32): UINT32,
    np.dtype(np.uint64): UINT64,
    np.dtype(np.int8): INT8,
    np.dtype(np.int16): INT16,
    np.dtype(np.int32): INT32,
    np.dtype(np.int64): INT64,
    np.dtype(np.float16): FP16,
    np.dtype(np.float32): FP32,
    np.dtype(np.float64): FP64,
}

# numpy kinds that hold byte strings: object arrays of bytes/str, numpy.bytes_
# ("S") and numpy.str_ ("U") arrays.
_BYTES_KINDS = frozenset("OSU")

# Model-config spelling without the "TYPE_" prefix; BYTES is TYPE_STRING there.
_CONFIG_NAMES: dict[int, str] = {
    BOOL: "BOOL",
    UINT8: "UINT8",
    UINT16: "UINT16",
    UINT32: "UINT32",
    UINT64: "UINT64",
    INT8: "INT8",
    INT16: "INT16",
    INT32: "INT32",
    INT64: "INT64",
    FP16: "FP16",
    FP32: "FP32",
    FP64: "FP64",
    BYTES: "STRING",
    BF16: "BF16",
}
_NUMBER_BY_CONFIG_NAME: dict[str, int] = {"TYPE_" + name: number for number, name in _CONFIG_NAMES.items()}


def dtype_number(dtype: np.dtype) -> Optional[int]:
    """The datatype number for a numpy dtype, or None when there is none.

    Byte order does not matter (data is converted to little-endian when it is
    written), so a big-endian float32 is still FP32.
    """
    number = NUMBER_BY_DTYPE.get(dtype)
    if number is not None:
        return number
    if dtype.kind in _BYTES_KINDS:
        return BYTES
    if dtype.byteorder not in "=|":
        return NUMBER_BY_DTYPE.get(dtype.newbyteorder("="))
    return None


def numpy_scalar_type(number: int) -> Optional[type]:
    """The numpy scalar type for a datatype number (np.object_ for BYTES)."""
    if number == BYTES:
        return np.object_
    dtype = WIRE_DTYPES.get(number)
    return None if dtype is None else dtype.type


def config_name_to_number(name: str) -> Optional[int]:
    """The datatype number for a config name such as "TYPE_FP32"."""
    return _NUMBER_BY_CONFIG_NAME.get(name)


def number_to_config_name(number: int) -> str:
    """The config name ("TYPE_FP32") for a datatype number, for messages."""
    name = _CONFIG_NAMES.get(number)
    return f"TYPE_{name}" if name is not None else f"datatype {number}"


# -- public Triton helpers ---------------------------------------------------


def triton_string_to_numpy(triton_type_string: str) -> type:
    """The numpy type for a config type name, e.g. "TYPE_FP32" -> numpy.float32.

    Models use it on `get_output_config_by_name(...)["data_type"]`. Raises
    KeyError for an unknown name, like Triton's dictionary lookup does.
    """
    number = _NUMBER_BY_CONFIG_NAME.get(triton_type_string)
    if number is None:
        raise KeyError(triton_type_string)
    return numpy_scalar_type(number)


def numpy_to_triton_type(data_type: Any) -> Optional[int]:
    """The datatype number of a numpy dtype or type; None if it has none."""
    try:
        dtype = np.dtype(data_type)
    except TypeError:
        return None
    return dtype_number(dtype)


def triton_to_numpy_type(data_type: int) -> Optional[type]:
    """The numpy type of a datatype number; None if it has none."""
    return numpy_scalar_type(data_type)


# -- BYTES encoding ------------------------------------------------------------

_U32 = struct.Struct("<I")


def _element_bytes(element: Any) -> bytes:
    """One BYTES element as bytes: str is UTF-8, anything else its str()."""
    if isinstance(element, bytes):
        return element
    if isinstance(element, (bytearray, memoryview)):
        return bytes(element)
    return str(element).encode("utf-8")


def serialize_bytes(array: np.ndarray) -> bytes:
    """A BYTES tensor's wire data: per element in row-major order, a u32 LE
    length and the bytes."""
    pack = _U32.pack
    parts = []
    append = parts.append
    for element in array.ravel(order="C").tolist():
        data = element if type(element) is bytes else _element_bytes(element)
        append(pack(len(data)))
        append(data)
    return b"".join(parts)


def deserialize_bytes(buffer: Any, offset: int, byte_size: int, count: int) -> np.ndarray:
    """The `count` elements of BYTES data at buffer[offset:offset+byte_size]
    as a flat numpy object array of bytes.

    Raises ValueError when the data does not hold exactly `count` elements.
    """
    # Released on return: a region mapping must not stay exported by it.
    with memoryview(buffer) as view:
        end = offset + byte_size
        if end > len(view):
            raise ValueError(f"BYTES data [{offset}, {end}) lies outside its buffer of {len(view)} bytes")
        unpack = _U32.unpack_from
        elements = []
        append = elements.append
        position = offset
        for _ in range(count):
            if position + 4 > end:
                raise ValueError(f"BYTES data ends inside element {len(elements)} of {count}")
            (length,) = unpack(view, position)
            position += 4
            if position + length > end:
                raise ValueError(f"BYTES element {len(elements)} of {length} bytes runs past the data")
            append(bytes(view[position:position + length]))
            position += length
        if position != end:
            raise ValueError(f"BYTES data has {end - position} bytes after its {count} elements")
    result = np.empty(count, dtype=np.object_)
    result[:] = elements
    return result


def require_dtype_number(dtype: np.dtype) -> int:
    """dtype_number() that raises TritonModelException for unsupported types,
    so a model learns at Tensor() time, inside its own frame, what is wrong."""
    number = dtype_number(dtype)
    if number is None:
        raise TritonModelException(f"numpy dtype {dtype} has no Triton datatype")
    return number
