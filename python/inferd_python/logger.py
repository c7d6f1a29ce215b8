# SPDX-License-Identifier: Apache-2.0
"""Logger: model log lines, written to the server's stderr."""
from __future__ import annotations

import enum
import sys


class LogLevel(enum.IntEnum):
    """The levels Logger.log() takes."""

    INFO = 0
    WARNING = 1
    ERROR = 2
    VERBOSE = 3


_LEVEL_NAMES = {
    LogLevel.INFO: "info",
    LogLevel.WARNING: "warning",
    LogLevel.ERROR: "error",
    LogLevel.VERBOSE: "verbose",
}

# Set from INIT's `log_prefix`, so the server's log shows which model and
# instance a line comes from.
_prefix = ""


def set_prefix(prefix: str) -> None:
    """Sets the text in front of every log line (the worker calls this)."""
    global _prefix
    _prefix = prefix


class Logger:
    """Triton's pb_utils.Logger: static methods, one line per call.

    Every level is written: the worker is not told the server's log level.
    """

    @staticmethod
    def log(message: str, level: LogLevel = LogLevel.INFO) -> None:
        """Writes one line at `level`. Newlines in the message are escaped so
        that each call stays one line of the server's log, with the prefix."""
        text = str(message).replace("\n", "\\n")
        sys.stderr.write(f"{_prefix}[{_LEVEL_NAMES.get(level, 'info')}] {text}\n")
        sys.stderr.flush()

    @staticmethod
    def log_info(message: str) -> None:
        """Writes one line at level INFO."""
        Logger.log(message, LogLevel.INFO)

    @staticmethod
    def log_warn(message: str) -> None:
        """Writes one line at level WARNING."""
        Logger.log(message, LogLevel.WARNING)

    @staticmethod
    def log_error(message: str) -> None:
        """Writes one line at level ERROR."""
        Logger.log(message, LogLevel.ERROR)

    @staticmethod
    def log_verbose(message: str) -> None:
        """Writes one line at level VERBOSE."""
        Logger.log(message, LogLevel.VERBOSE)
