# SPDX-License-Identifier: Apache-2.0
"""Tensor: a named numpy array, the unit requests and responses carry."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _types
from .errors import TritonModelException


class Tensor:
    """A named tensor held as a numpy array on the CPU.

    Input tensors view the server's shared memory directly (no copy): they
    are valid only until `execute` returns, so copy an input array to keep
    it. BYTES tensors are numpy object arrays whose elements are bytes.
    """

    __slots__ = ("_name", "_array", "_dtype")

    def __init__(self, name: str, array: np.ndarray) -> None:
        if not isinstance(name, str):
            raise TypeError(f"Tensor name must be a str, got {type(name).__name__}")
        if not isinstance(array, np.ndarray):
            raise TypeError(f"Tensor '{name}' needs a numpy.ndarray, got {type(array).__name__}")
        self._name = name
        self._array = array
        number = _types.NUMBER_BY_DTYPE.get(array.dtype)  # the common case, without a call
        self._dtype = number if number is not None else _types.require_dtype_number(array.dtype)

    @classmethod
    def _wrap(cls, name: str, array: np.ndarray, dtype: int) -> "Tensor":
        """An input tensor the worker decoded: no validation, since the
        datatype number came from the server (BF16 data is a uint16 array)."""
        tensor = cls.__new__(cls)
        tensor._name = name
        tensor._array = array
        tensor._dtype = dtype
        return tensor

    def name(self) -> str:
        """The tensor's name."""
        return self._name

    def as_numpy(self) -> np.ndarray:
        """The data as a numpy array (no copy)."""
        return self._array

    def shape(self) -> list[int]:
        """The dims."""
        return list(self._array.shape)

    def triton_dtype(self) -> int:
        """The datatype number (TYPE_FP32 is 11; see triton_to_numpy_type)."""
        return self._dtype

    def is_cpu(self) -> bool:
        """Always True: inferd's Python backend keeps tensors in CPU memory."""
        return True

    def to_dlpack(self) -> Any:
        """A DLPack capsule of the data, for torch.utils.dlpack.from_dlpack()
        and the like. numpy cannot export BYTES, read-only arrays nor (before
        numpy 1.25) BOOL through DLPack; those raise TritonModelException."""
        try:
            return self._array.__dlpack__()
        except (AttributeError, BufferError, TypeError) as error:
            raise TritonModelException(f"Tensor '{self._name}' cannot be exported through DLPack: {error}") from error

    @staticmethod
    def from_dlpack(name: str, dlpack: Any) -> "Tensor":
        """A tensor from an object that supports DLPack (a torch CPU tensor,
        another array) or from a DLPack capsule, sharing its memory."""
        from_dlpack = getattr(np, "from_dlpack", None)
        if from_dlpack is None:
            raise TritonModelException("this numpy has no from_dlpack (numpy >= 1.22 needed)")
        source = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
        try:
            array = from_dlpack(source)
        except (BufferError, TypeError, ValueError, RuntimeError) as error:
            raise TritonModelException(f"Tensor '{name}' cannot be imported through DLPack: {error}") from error
        return Tensor(name, array)

    def __repr__(self) -> str:
        return f"Tensor({self._name!r}, {_types.number_to_config_name(self._dtype)}, shape={self.shape()})"


class _Capsule:
    """Presents a bare DLPack capsule as the producer object that
    numpy.from_dlpack wants; the memory is on the CPU (kDLCPU = 1)."""

    __slots__ = ("_capsule",)

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self._capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)
