# SPDX-License-Identifier: Apache-2.0
"""InferenceResponse: what `execute` returns, one per request, and what a
BLS call (InferenceRequest.exec) returns."""
from __future__ import annotations

from typing import Optional, Sequence

from .errors import TritonError
from .tensor import Tensor


class InferenceResponse:
    """The answer to one request: output tensors, or an error.

    When `error` is given the request fails with its code and the outputs are
    ignored. Arguments are checked here, so that a mistake is reported from
    the model's own line rather than later by the worker.
    """

    __slots__ = ("_output_tensors", "_error")

    def __init__(self, output_tensors: Optional[Sequence[Tensor]] = None, error: Optional[TritonError] = None) -> None:
        if output_tensors is None:
            tensors = []
        elif isinstance(output_tensors, (list, tuple)):
            tensors = list(output_tensors)
            for index, tensor in enumerate(tensors):
                if not isinstance(tensor, Tensor):
                    raise TypeError(
                        f"InferenceResponse output_tensors[{index}] is a {type(tensor).__name__}, not a Tensor")
        else:
            raise TypeError(f"InferenceResponse output_tensors must be a list of Tensor, got {type(output_tensors).__name__}")
        if error is not None and not isinstance(error, TritonError):
            raise TypeError(f"InferenceResponse error must be a TritonError, got {type(error).__name__}")
        self._output_tensors = tensors
        self._error = error

    @classmethod
    def _from_bls(cls, output_tensors: list[Tensor], error: Optional[TritonError]) -> "InferenceResponse":
        """The response to a BLS call, decoded by the worker (no checks)."""
        response = cls.__new__(cls)
        response._output_tensors = output_tensors
        response._error = error
        return response

    def output_tensors(self) -> list[Tensor]:
        """The output tensors, in the order given."""
        return self._output_tensors

    def has_error(self) -> bool:
        """Whether this response fails its request."""
        return self._error is not None

    def error(self) -> Optional[TritonError]:
        """The error, or None."""
        return self._error


def get_output_tensor_by_name(response: InferenceResponse, name: str) -> Optional[Tensor]:
    """The output tensor called `name`, or None when the response lacks it."""
    for tensor in response._output_tensors:
        if tensor._name == name:
            return tensor
    return None
