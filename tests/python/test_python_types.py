# SPDX-License-Identifier: Apache-2.0
"""Datatype tables and BYTES (de)serialization."""
import struct

import numpy as np
import pytest

from inferd_python import _types, numpy_to_triton_type, triton_string_to_numpy, triton_to_numpy_type
from inferd_python.errors import TritonModelException

TABLE = [
    ("TYPE_BOOL", 1, np.bool_),
    ("TYPE_UINT8", 2, np.uint8),
    ("TYPE_UINT16", 3, np.uint16),
    ("TYPE_UINT32", 4, np.uint32),
    ("TYPE_UINT64", 5, np.uint64),
    ("TYPE_INT8", 6, np.int8),
    ("TYPE_INT16", 7, np.int16),
    ("TYPE_INT32", 8, np.int32),
    ("TYPE_INT64", 9, np.int64),
    ("TYPE_FP16", 10, np.float16),
    ("TYPE_FP32", 11, np.float32),
    ("TYPE_FP64", 12, np.float64),
    ("TYPE_STRING", 13, np.object_),
]


@pytest.mark.parametrize("name,number,numpy_type", TABLE)
def test_type_tables_agree(name, number, numpy_type):
    assert triton_string_to_numpy(name) is numpy_type
    assert triton_to_numpy_type(number) is numpy_type
    assert numpy_to_triton_type(numpy_type) == number
    assert numpy_to_triton_type(np.dtype(numpy_type)) == number
    assert _types.config_name_to_number(name) == number
    assert _types.number_to_config_name(number) == name


def test_bf16_is_raw_uint16():
    assert triton_string_to_numpy("TYPE_BF16") is np.uint16
    assert triton_to_numpy_type(14) is np.uint16
    # numpy's uint16 is UINT16; BF16 is only known from the config.
    assert numpy_to_triton_type(np.uint16) == 3


def test_byte_string_dtypes_are_bytes():
    assert numpy_to_triton_type(np.bytes_) == 13
    assert numpy_to_triton_type(np.dtype("S7")) == 13
    assert numpy_to_triton_type(np.str_) == 13


def test_big_endian_maps_like_native():
    assert numpy_to_triton_type(np.dtype(">f4")) == 11
    assert numpy_to_triton_type(np.dtype(">i8")) == 9


def test_unknown_types():
    assert numpy_to_triton_type(np.complex64) is None
    assert numpy_to_triton_type("not a type") is None
    assert triton_to_numpy_type(0) is None
    assert triton_to_numpy_type(99) is None
    with pytest.raises(KeyError):
        triton_string_to_numpy("TYPE_COMPLEX")
    with pytest.raises(TritonModelException, match="complex128"):
        _types.require_dtype_number(np.dtype(np.complex128))


def test_serialize_bytes_row_major_with_lengths():
    array = np.array([[b"a", b""], [b"xyz", b"\x00\xff"]], dtype=object)
    data = _types.serialize_bytes(array)
    assert data == (struct.pack("<I", 1) + b"a" + struct.pack("<I", 0) + struct.pack("<I", 3) + b"xyz"
                    + struct.pack("<I", 2) + b"\x00\xff")


def test_serialize_bytes_accepts_str_and_numpy_string_arrays():
    assert _types.serialize_bytes(np.array(["h\u00e9", b"b"], dtype=object)) == \
        struct.pack("<I", 3) + "h\u00e9".encode() + struct.pack("<I", 1) + b"b"
    assert _types.serialize_bytes(np.array([b"ab", b"c"], dtype=np.bytes_)) == \
        struct.pack("<I", 2) + b"ab" + struct.pack("<I", 1) + b"c"
    assert _types.serialize_bytes(np.array(["\u00fc"], dtype=np.str_)) == struct.pack("<I", 2) + "\u00fc".encode()
    # Anything else is written as its str(), as Triton does.
    assert _types.serialize_bytes(np.array([7, bytearray(b"q")], dtype=object)) == \
        struct.pack("<I", 1) + b"7" + struct.pack("<I", 1) + b"q"


def test_serialize_bytes_non_contiguous():
    array = np.array([[b"a", b"b"], [b"c", b"d"]], dtype=object).T
    assert _types.serialize_bytes(array) == b"".join(struct.pack("<I", 1) + x for x in (b"a", b"c", b"b", b"d"))


def test_deserialize_bytes_round_trip_at_offset():
    elements = [b"", b"one", b"\x00two", "\u20ac".encode()]
    data = _types.serialize_bytes(np.array(elements, dtype=object))
    buffer = b"junk" + data + b"tail"
    result = _types.deserialize_bytes(buffer, 4, len(data), 4)
    assert result.dtype == object
    assert list(result) == elements
    assert all(type(e) is bytes for e in result)


def test_deserialize_bytes_empty():
    assert _types.deserialize_bytes(b"", 0, 0, 0).shape == (0,)


@pytest.mark.parametrize("data,count,match", [
    (struct.pack("<I", 3) + b"ab", 1, "runs past"),
    (struct.pack("<I", 1) + b"a", 2, "ends inside"),
    (struct.pack("<I", 1) + b"ab", 1, "after its 1 elements"),
])
def test_deserialize_bytes_rejects_malformed(data, count, match):
    with pytest.raises(ValueError, match=match):
        _types.deserialize_bytes(data, 0, len(data), count)


def test_deserialize_bytes_rejects_data_outside_buffer():
    with pytest.raises(ValueError, match="outside"):
        _types.deserialize_bytes(b"1234", 2, 8, 1)
