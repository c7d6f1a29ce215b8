# SPDX-License-Identifier: Apache-2.0
"""The one exception the package raises for a server-side failure."""


class InferdError(Exception):
    """A failed call into the server.

    `code` is the embedding API's error code name (include/inferd/inferd.h,
    "Errors"): "INVALID_ARG", "NOT_FOUND", "UNAVAILABLE", "UNSUPPORTED",
    "DEADLINE_EXCEEDED", "CANCELLED", "ALREADY_EXISTS", "INTERNAL" or
    "UNKNOWN". `message` is the server's message, in the words the HTTP
    endpoint uses.
    """

    def __init__(self, message: str, code: str = "UNKNOWN"):
        super().__init__(message)
        self.message = message
        self.code = code

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"

    def __reduce__(self):
        return (type(self), (self.message, self.code))
