# SPDX-License-Identifier: Apache-2.0
"""Errors a model reports: TritonError for one response, TritonModelException
for misuse of this API."""
from __future__ import annotations


class TritonModelException(Exception):
    """Raised by this API when a model asks for something it cannot do (an
    unsupported dtype, decoupled responses, BLS outside initialize() and
    execute()). Models may raise it too."""


class TritonError:
    """The error of one InferenceResponse: that request fails with `code`.

    Codes are INFERD_ErrorCode numbers, which the server maps to HTTP and gRPC
    statuses (INVALID_ARG is 400, UNAVAILABLE 503, ...). Like Triton's, this
    is a value, not an exception: pass it as InferenceResponse(error=...).
    """

    UNKNOWN = 0
    INTERNAL = 1
    NOT_FOUND = 2
    INVALID_ARG = 3
    UNAVAILABLE = 4
    UNSUPPORTED = 5
    ALREADY_EXISTS = 6
    CANCELLED = 7
    # inferd's own, for a BLS call whose timeout or deadline passed (HTTP
    # 504, gRPC DEADLINE_EXCEEDED); Triton reports those as INTERNAL.
    DEADLINE_EXCEEDED = 8

    __slots__ = ("_message", "_code")

    def __init__(self, message: str, code: int = INTERNAL) -> None:
        if not isinstance(code, int) or not TritonError.UNKNOWN <= code <= TritonError.DEADLINE_EXCEEDED:
            raise ValueError(
                f"TritonError code must be one of TritonError.UNKNOWN..DEADLINE_EXCEEDED (0-8), got {code!r}")
        self._message = str(message)
        self._code = int(code)

    def message(self) -> str:
        """The error text the client sees."""
        return self._message

    def code(self) -> int:
        """The error code (TritonError.INTERNAL unless given)."""
        return self._code

    def __repr__(self) -> str:
        return f"TritonError({self._message!r}, code={self._code})"
