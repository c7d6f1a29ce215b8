# SPDX-License-Identifier: Apache-2.0
"""InferenceRequest: what `execute` receives, one per client request."""
from __future__ import annotations

from typing import Any, Optional

from .errors import TritonModelException
from .tensor import Tensor

_BLS_UNSUPPORTED = "BLS (InferenceRequest.exec / async_exec) is not supported by inferd yet"


class InferenceRequest:
    """One inference request: its input tensors and the outputs it wants.

    The server builds these for `execute`. Triton also lets a model build one
    itself (model_name=..., inputs=...) to call another model (BLS); inferd
    accepts the construction (keyword arguments, as Triton's examples pass
    them) so such code loads, but `exec()` and `async_exec()` raise
    TritonModelException.
    """

    __slots__ = ("_inputs", "_requested_output_names", "_model_name", "_request_id", "_correlation_id", "_flags")

    def __init__(
        self,
        *,
        model_name: str = "",
        inputs: Optional[list[Tensor]] = None,
        requested_output_names: Optional[list[str]] = None,
        request_id: str = "",
        correlation_id: int = 0,
        flags: int = 0,
        **_bls_options: Any,
    ) -> None:
        self._model_name = model_name
        self._inputs = list(inputs) if inputs is not None else []
        self._requested_output_names = list(requested_output_names) if requested_output_names is not None else []
        self._request_id = request_id
        self._correlation_id = correlation_id
        self._flags = flags

    @classmethod
    def _from_server(cls, inputs: list[Tensor], requested_output_names: list[str]) -> "InferenceRequest":
        """A request decoded from EXECUTE; skips __init__ because this is the
        per-request hot path."""
        request = cls.__new__(cls)
        request._inputs = inputs
        request._requested_output_names = requested_output_names
        request._model_name = ""
        request._request_id = ""
        request._correlation_id = 0
        request._flags = 0
        return request

    def inputs(self) -> list[Tensor]:
        """The input tensors, in the order the client sent them."""
        return self._inputs

    def requested_output_names(self) -> list[str]:
        """The names of the outputs the client asked for. A response may hold
        more; only these are sent back."""
        return list(self._requested_output_names)

    def request_id(self) -> str:
        """The client's request id ("" : inferd does not pass it yet)."""
        return self._request_id

    def correlation_id(self) -> int:
        """The sequence correlation id (0: inferd has no sequence batching
        for Python models)."""
        return self._correlation_id

    def flags(self) -> int:
        """Sequence flags (TRITONSERVER_REQUEST_FLAG_*); 0 here."""
        return self._flags

    def parameters(self) -> str:
        """The request parameters as JSON text ("{}": none are passed)."""
        return "{}"

    def is_cancelled(self) -> bool:
        """Whether the client cancelled the request (never seen here)."""
        return False

    def get_response_sender(self) -> Any:
        """Decoupled models send responses through this in Triton."""
        raise TritonModelException("decoupled models (get_response_sender) are not supported by inferd")

    def exec(self, *_: Any, **__: Any) -> Any:
        """Triton's BLS call to another model: not supported by inferd."""
        raise TritonModelException(_BLS_UNSUPPORTED)

    def async_exec(self, *_: Any, **__: Any) -> Any:
        """Triton's asynchronous BLS call: not supported by inferd."""
        raise TritonModelException(_BLS_UNSUPPORTED)


def get_input_tensor_by_name(request: InferenceRequest, name: str) -> Optional[Tensor]:
    """The input tensor called `name`, or None when the request lacks it."""
    for tensor in request._inputs:
        if tensor._name == name:
            return tensor
    return None
