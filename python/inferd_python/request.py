# SPDX-License-Identifier: Apache-2.0
"""InferenceRequest: what `execute` receives, one per client request, and
what a model builds to call another model (BLS)."""
from __future__ import annotations

import json
from typing import Any, Awaitable, Optional, Union

from .errors import TritonModelException
from .tensor import Tensor

# Sequence flags (TRITONSERVER_REQUEST_FLAG_*).
_SEQUENCE_START = 1
_SEQUENCE_END = 2


class InferenceRequest:
    """One inference request: its input tensors and the outputs it wants.

    The server builds these for `execute`. A model builds one itself, with
    Triton's keyword arguments, to call another model of the server (BLS):

        request = pb_utils.InferenceRequest(
            model_name="simple", requested_output_names=["OUTPUT0"],
            inputs=[pb_utils.Tensor("INPUT0", x), pb_utils.Tensor("INPUT1", y)])
        response = request.exec()            # or: await request.async_exec()
        if response.has_error():
            raise pb_utils.TritonModelException(response.error().message())
        out = pb_utils.get_output_tensor_by_name(response, "OUTPUT0").as_numpy()

    `timeout` is in microseconds (0: none); `parameters` a dict (or its
    JSON text) of str, int and bool values; `correlation_id` and `flags`
    travel as the sequence_id / sequence_start / sequence_end parameters.
    The output arrays of a BLS response are valid until execute() returns:
    copy them to keep them longer.
    """

    __slots__ = ("_inputs", "_requested_output_names", "_model_name", "_request_id", "_correlation_id",
                 "_flags", "_model_version", "_timeout", "_parameters", "_server_id", "_raw_parameters", "_state")

    def __init__(
        self,
        *,
        model_name: str = "",
        inputs: Optional[list[Tensor]] = None,
        requested_output_names: Optional[list[str]] = None,
        request_id: str = "",
        correlation_id: Union[int, str] = 0,
        flags: int = 0,
        model_version: int = -1,
        timeout: int = 0,
        parameters: Optional[Union[dict, str]] = None,
        **_unused_options: Any,
    ) -> None:
        # Triton's preferred_memory and trace are accepted and ignored: CPU
        # memory is the only kind here, and inferd has no request tracing.
        if not isinstance(model_name, str):
            raise TypeError(f"InferenceRequest model_name must be a str, got {type(model_name).__name__}")
        tensors = list(inputs) if inputs is not None else []
        for index, tensor in enumerate(tensors):
            if not isinstance(tensor, Tensor):
                raise TypeError(f"InferenceRequest inputs[{index}] is a {type(tensor).__name__}, not a Tensor")
        names = list(requested_output_names) if requested_output_names is not None else []
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"InferenceRequest requested_output_names holds a {type(name).__name__}, not a str")
        if isinstance(correlation_id, bool) or not isinstance(correlation_id, (int, str)):
            raise TypeError(f"InferenceRequest correlation_id must be an int or a str, got {correlation_id!r}")
        for label, value in (("flags", flags), ("model_version", model_version), ("timeout", timeout)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"InferenceRequest {label} must be an int, got {value!r}")
        if timeout < 0:
            raise ValueError(f"InferenceRequest timeout must be >= 0 microseconds, got {timeout}")
        self._model_name = model_name
        self._inputs = tensors
        self._requested_output_names = names
        self._request_id = request_id
        self._correlation_id = correlation_id
        self._flags = flags
        self._model_version = model_version
        self._timeout = timeout
        self._parameters = _parameters_dict(parameters)
        self._server_id = None
        self._raw_parameters = None
        self._state = None

    @classmethod
    def _from_server(cls, request_id: int, inputs: list[Tensor], requested_output_names: list[str],
                     parameters: str = "{}", correlation_id: Union[int, str] = 0) -> "InferenceRequest":
        """A request decoded from EXECUTE (`request_id` is the server's, for
        RESPONSE); skips __init__ because this is the per-request hot path."""
        request = cls.__new__(cls)
        request._inputs = inputs
        request._requested_output_names = requested_output_names
        request._model_name = ""
        request._request_id = ""
        request._correlation_id = correlation_id
        request._flags = None  # from the parameters, when asked
        request._model_version = -1
        request._timeout = 0
        request._parameters = None
        request._server_id = request_id
        request._raw_parameters = parameters
        request._state = None
        return request

    def inputs(self) -> list[Tensor]:
        """The input tensors, in the order the client sent them."""
        return self._inputs

    def requested_output_names(self) -> list[str]:
        """The names of the outputs the client asked for. A response may hold
        more; only these are sent back."""
        return list(self._requested_output_names)

    def request_id(self) -> str:
        """The request id ("" for requests from the server: inferd does not
        pass it yet)."""
        return self._request_id

    def correlation_id(self) -> Union[int, str]:
        """The sequence correlation id the client sent (the `sequence_id`
        parameter): an int, or a str for a string id; 0 outside a sequence."""
        return self._correlation_id

    def flags(self) -> int:
        """Sequence flags (TRITONSERVER_REQUEST_FLAG_SEQUENCE_START / _END)."""
        if self._flags is None:
            flags = 0
            if self._raw_parameters != "{}":
                given = _json_object(self._raw_parameters)
                if given.get("sequence_start") is True:
                    flags |= _SEQUENCE_START
                if given.get("sequence_end") is True:
                    flags |= _SEQUENCE_END
            self._flags = flags
        return self._flags

    def timeout(self) -> int:
        """The BLS timeout in microseconds (0: none)."""
        return self._timeout

    def model_name(self) -> str:
        """The model a BLS request goes to."""
        return self._model_name

    def model_version(self) -> int:
        """The version a BLS request goes to (-1: the newest ready one)."""
        return self._model_version

    def parameters(self) -> str:
        """The request parameters as JSON text, as Triton gives them: the
        client's parameters without those the server itself acts on
        (sequence_id, sequence_start, sequence_end, priority, timeout,
        binary_data_output); "{}" when none."""
        if self._raw_parameters is not None:
            if self._raw_parameters == "{}":
                return "{}"
            given = _json_object(self._raw_parameters)
            return json.dumps({key: value for key, value in given.items() if key not in _SERVER_PARAMETERS},
                              separators=(",", ":"))
        return json.dumps(self._parameters, separators=(",", ":")) if self._parameters else "{}"

    def is_cancelled(self) -> bool:
        """Whether the client cancelled the request (asks the server; False
        for a request the model built itself)."""
        if self._server_id is None:
            return False
        from . import _responses
        channel = _responses.channel()
        return channel.is_cancelled(self._server_id) if channel is not None else False

    def get_response_sender(self) -> Any:
        """The InferenceResponseSender of this request: the way a decoupled
        model answers (any number of responses, the last with
        pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL), and an ordinary
        model's alternative to returning its one response."""
        if self._server_id is None:
            raise TritonModelException(
                "get_response_sender() works only on the requests execute() receives, not on BLS requests")
        from . import _responses
        if self._state is None:
            channel = _responses.channel()
            if channel is None:
                raise TritonModelException("response senders work only inside the inferd Python worker")
            self._state = _responses._ResponseState(channel, self._server_id, self._requested_output_names)
        return _responses.InferenceResponseSender(self._state)

    def exec(self, decoupled: bool = False) -> Any:
        """Runs this request on model `model_name` and waits for the
        InferenceResponse. A failure (unknown model, bad inputs, timeout) is
        a response whose has_error() is true, never an exception.

        decoupled=True (for a decoupled target) returns an iterator over its
        responses as they arrive; the last one ends the call, and is empty
        when the target sent the final flag alone."""
        self._check_bls()
        from . import _bls
        return _bls.client().call(self, decoupled)

    def async_exec(self, decoupled: bool = False) -> Awaitable[Any]:
        """Sends this request now and returns an awaitable of its
        InferenceResponse (with decoupled=True: of the iterator over its
        responses, once the first arrived), for `async def execute`: several
        may be outstanding at once (asyncio.gather)."""
        self._check_bls()
        from . import _bls
        return _bls.client().call_async(self, decoupled)

    def _check_bls(self) -> None:
        if not self._model_name:
            raise TritonModelException("a BLS request needs model_name: build one with InferenceRequest(model_name=...)")

    def _wire_parameters(self) -> list[tuple[str, Any]]:
        """The parameters BLS_REQUEST carries: the model's, then the
        sequence fields as the KServe parameters that stand for them."""
        wire = list(self._parameters.items()) if self._parameters else []
        given = {key for key, _ in wire}
        extra = []
        if self._correlation_id:
            extra.append(("sequence_id", self._correlation_id))
        if self._flags & _SEQUENCE_START:
            extra.append(("sequence_start", True))
        if self._flags & _SEQUENCE_END:
            extra.append(("sequence_end", True))
        return wire + [(key, value) for key, value in extra if key not in given]


# Request parameters the server acts on itself: Triton does not pass them
# to request.parameters().
_SERVER_PARAMETERS = frozenset(
    ("sequence_id", "sequence_start", "sequence_end", "priority", "timeout", "binary_data_output"))


def _json_object(text: str) -> dict:
    """The parameters object EXECUTE carries (the server wrote it)."""
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _parameters_dict(parameters: Optional[Union[dict, str]]) -> Optional[dict]:
    """Checks Triton's `parameters` argument (a dict or its JSON text)."""
    if parameters is None:
        return None
    if isinstance(parameters, str):
        try:
            parameters = json.loads(parameters) if parameters.strip() else {}
        except ValueError as error:
            raise TritonModelException(f"InferenceRequest parameters is not JSON: {error}") from error
    if not isinstance(parameters, dict):
        raise TritonModelException(
            f"InferenceRequest parameters must be a dict or a JSON object, got {type(parameters).__name__}")
    for key, value in parameters.items():
        if not isinstance(key, str):
            raise TritonModelException(f"InferenceRequest parameter key {key!r} is not a str")
        if not isinstance(value, (bool, int, str)):
            raise TritonModelException(
                f"InferenceRequest parameter '{key}' is a {type(value).__name__}: values must be str, int or bool")
    return dict(parameters)


def get_input_tensor_by_name(request: InferenceRequest, name: str) -> Optional[Tensor]:
    """The input tensor called `name`, or None when the request lacks it."""
    for tensor in request._inputs:
        if tensor._name == name:
            return tensor
    return None
