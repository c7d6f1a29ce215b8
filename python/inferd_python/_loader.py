# SPDX-License-Identifier: Apache-2.0
"""Loading model.py, and describing the model's exceptions for the server.

The server shows these messages as the reason a model is UNAVAILABLE or a
request failed, where no traceback is seen: so each names the call, the
exception type and text, and the innermost line of model.py involved.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import traceback
from typing import Optional

MODULE_NAME = "model"
CLASS_NAME = "TritonPythonModel"


class ModelLoadError(Exception):
    """model.py could not be imported, or has no TritonPythonModel class;
    the text is the message for the server."""


def describe_exception(call: str, error: BaseException, model_file: str) -> str:
    """The message `<call> raised <Type>: <text> (model.py, line N)`.

    The frame is the innermost one in `model_file`: an error inside numpy or
    a helper module is reported at the model line that called it. A
    SyntaxError's own text already names its file and line.
    """
    text = str(error)
    message = f"{call} raised {type(error).__name__}: {text}" if text else f"{call} raised {type(error).__name__}"
    line = _innermost_line(error, model_file)
    if line is not None:
        message += f" ({os.path.basename(model_file)}, line {line})"
    return message


def _innermost_line(error: BaseException, model_file: str) -> Optional[int]:
    target = os.path.abspath(model_file)
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.abspath(frame.filename) == target:
            line = frame.lineno
    return line


def load_model_class(model_file: str) -> type:
    """Imports `model_file` as module "model" and returns its
    TritonPythonModel class.

    The file's folder is appended to sys.path first, so that model.py can
    import modules that sit beside it, as in Triton.
    """
    folder = os.path.dirname(os.path.abspath(model_file))
    if folder not in sys.path:
        sys.path.append(folder)
    spec = importlib.util.spec_from_file_location(MODULE_NAME, model_file)
    if spec is None or spec.loader is None:
        raise ModelLoadError(f"cannot import {model_file}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as a normal import does, so that pickle,
    # dataclasses and the like can find the module by name.
    sys.modules[MODULE_NAME] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:
        sys.modules.pop(MODULE_NAME, None)
        raise ModelLoadError(describe_exception(f"importing {model_file}", error, model_file)) from error
    model_class = getattr(module, CLASS_NAME, None)
    if not isinstance(model_class, type):
        raise ModelLoadError(f"{model_file} defines no class {CLASS_NAME}")
    return model_class
