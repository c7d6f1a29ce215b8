# SPDX-License-Identifier: Apache-2.0
"""The control socket framing (Channel) and model.py loading."""
import os
import socket
import sys
import textwrap
import threading
import time

import pytest

import pyworker_wire as wire
from inferd_python._channel import Channel
from inferd_python._loader import ModelLoadError, describe_exception, load_model_class


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    ours.settimeout(10)
    yield wire.ServerEnd(ours), Channel(theirs)
    ours.close()
    theirs.close()


def test_receive_messages_and_the_attached_descriptor(pair):
    server, channel = pair
    fd = os.memfd_create("t")
    server.send(wire.INIT, b'{"x": 1}')
    server.send(wire.REGION, (4096).to_bytes(8, "little"), fd=fd)
    server.send(wire.FINALIZE)
    os.close(fd)
    first = channel.receive()
    assert (first.type, bytes(first.payload), first.fd) == (wire.INIT, b'{"x": 1}', None)
    second = channel.receive()
    assert second.type == wire.REGION and bytes(second.payload) == (4096).to_bytes(8, "little")
    assert second.fd is not None
    os.fstat(second.fd)  # a live descriptor, ours to close
    os.close(second.fd)
    third = channel.receive()
    assert (third.type, bytes(third.payload), third.fd) == (wire.FINALIZE, b"", None)


def test_receive_header_and_payload_in_pieces(pair):
    server, channel = pair
    data = wire.HEADER.pack(5, wire.EXECUTE) + b"hello"

    def trickle():
        for i in range(len(data)):
            server.sock.sendall(data[i:i + 1])
            time.sleep(0.01)

    thread = threading.Thread(target=trickle)
    thread.start()
    message = channel.receive()
    thread.join()
    assert (message.type, bytes(message.payload)) == (wire.EXECUTE, b"hello")


def test_receive_returns_none_at_end_of_socket(pair):
    server, channel = pair
    server.sock.close()
    assert channel.receive() is None


def test_receive_returns_none_when_cut_inside_a_message(pair):
    server, channel = pair
    server.sock.sendall(wire.HEADER.pack(100, wire.EXECUTE) + b"only part")
    server.sock.shutdown(socket.SHUT_WR)
    assert channel.receive() is None


def test_send_frames_and_survives_partial_sends(pair):
    server, channel = pair
    channel._socket.settimeout(10)  # non-blocking underneath: sendmsg may send part
    payload = bytes(range(256)) * (32 * 1024)  # 8 MiB, more than the socket buffer
    received = {}
    reader = threading.Thread(target=lambda: received.update(message=server.receive()))
    reader.start()
    channel.send(wire.RESULT, bytearray(payload))
    reader.join()
    assert received["message"] == (wire.RESULT, payload)
    channel.send(wire.FINALIZED)
    assert server.receive() == (wire.FINALIZED, b"")


# -- loading -------------------------------------------------------------------


@pytest.fixture
def isolated_import(monkeypatch):
    """load_model_class changes sys.path and sys.modules["model"]; undo it."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "model", raising=False)


def write(folder, name, text):
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_load_imports_model_with_neighbours(tmp_path, isolated_import):
    write(tmp_path, "helper_for_model.py", "VALUE = 41\n")
    model_file = write(tmp_path, "model.py", """\
        import helper_for_model

        class TritonPythonModel:
            value = helper_for_model.VALUE + 1
        """)
    model_class = load_model_class(model_file)
    assert model_class.value == 42
    assert sys.modules["model"].TritonPythonModel is model_class
    assert sys.path[-1] == str(tmp_path)


def test_load_syntax_error_names_file_and_line(tmp_path, isolated_import):
    model_file = write(tmp_path, "model.py", "x = 1\ny = 2\ndef broken(:\n")
    with pytest.raises(ModelLoadError) as caught:
        load_model_class(model_file)
    message = str(caught.value)
    assert message.startswith(f"importing {model_file} raised SyntaxError: ")
    assert "(model.py, line 3)" in message
    assert "model" not in sys.modules


def test_load_import_error_names_the_model_line(tmp_path, isolated_import):
    model_file = write(tmp_path, "model.py", "\n\nimport not_a_module_anywhere\n")
    with pytest.raises(ModelLoadError, match=r"ModuleNotFoundError: No module named 'not_a_module_anywhere' "
                                             r"\(model.py, line 3\)"):
        load_model_class(model_file)


def test_load_requires_the_class(tmp_path, isolated_import):
    model_file = write(tmp_path, "model.py", "class SomethingElse:\n    pass\n")
    with pytest.raises(ModelLoadError, match="defines no class TritonPythonModel"):
        load_model_class(model_file)


def test_load_missing_file(tmp_path, isolated_import):
    with pytest.raises(ModelLoadError, match="FileNotFoundError"):
        load_model_class(str(tmp_path / "model.py"))


def test_describe_exception_uses_the_innermost_model_frame(tmp_path, isolated_import):
    write(tmp_path, "deep_helper.py", "def fail():\n    raise ValueError('bad path')\n")
    model_file = write(tmp_path, "model.py", """\
        import deep_helper

        def outer():
            return inner()

        def inner():
            return deep_helper.fail()

        class TritonPythonModel:
            pass
        """)
    load_model_class(model_file)
    with pytest.raises(ValueError) as caught:
        sys.modules["model"].outer()
    assert describe_exception("initialize()", caught.value, model_file) == \
        "initialize() raised ValueError: bad path (model.py, line 7)"


def test_describe_exception_without_text_or_model_frame():
    assert describe_exception("execute()", KeyError(), "/nowhere/model.py") == "execute() raised KeyError"
