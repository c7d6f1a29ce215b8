# SPDX-License-Identifier: Apache-2.0
"""Embedding from an installed inferd only: `cmake --install` of the build
under test into a temporary prefix, then the C example built against it
with pkg-config and with find_package(inferd), and the Python package built
against it and installed into a fresh virtualenv on Debian's numpy 1.24."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import EXAMPLES, ROOT

BUILD = pathlib.Path(os.environ.get("INFERD_BUILD_DIR", ROOT / "build"))
EXPECTED = [
    "  OUTPUT0 INT32 [1, 16]: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",
    "  OUTPUT1 INT32 [1, 16]: -1 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14",
]


def run(args, **kwargs):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(map(str, args))} exited {result.returncode}:\n"
                    f"{result.stdout}\n{result.stderr}")
    return result.stdout


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    if not (BUILD / "cmake_install.cmake").exists():
        pytest.fail(f"{BUILD} is not a CMake build tree with install rules")
    prefix = tmp_path_factory.mktemp("prefix") / "inferd"
    run(["cmake", "--install", BUILD, "--prefix", prefix])
    for installed in ["include/inferd/inferd.h", "include/inferd/types.h", "lib/libinferd.so",
                      "lib/pkgconfig/inferd.pc", "lib/cmake/inferd/inferdConfig.cmake",
                      "lib/backends/onnxruntime/libinferd_onnxruntime.so"]:
        assert (prefix / installed).exists(), installed
    return prefix


def test_the_library_exports_only_the_api(prefix):
    symbols = run(["nm", "-D", "--defined-only", prefix / "lib" / "libinferd.so"]).split("\n")
    names = [line.split()[-1] for line in symbols if line.strip()]
    assert "INFERD_ServerNew@@INFERD_1" in names or "INFERD_ServerNew" in names
    assert [n for n in names if not n.startswith("INFERD_")] == []
    soname = run(["readelf", "-d", prefix / "lib" / "libinferd.so"])
    assert "Library soname: [libinferd.so.1]" in soname


def check_example_output(stdout):
    lines = stdout.splitlines()
    assert lines.count(EXPECTED[0]) == 2 and lines.count(EXPECTED[1]) == 2, stdout


def test_c_example_with_pkg_config(prefix, tmp_path):
    source = tmp_path / "embed"
    shutil.copytree(ROOT / "examples" / "embed", source)
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    assert run(["pkg-config", "--modversion", "inferd"], env=env).strip()
    run(["make", "-C", source], env=env)
    # libinferd.so found through the rpath pkg-config gave, its backends beside it.
    check_example_output(run([source / "simple", EXAMPLES]))


def test_c_example_with_find_package(prefix, tmp_path):
    build = tmp_path / "build"
    run(["cmake", "-S", ROOT / "examples" / "embed", "-B", build, "-G", "Ninja",
         f"-DCMAKE_PREFIX_PATH={prefix}"])
    run(["cmake", "--build", build])
    env = dict(os.environ, LD_LIBRARY_PATH=str(prefix / "lib"))
    check_example_output(run([build / "embed_simple", EXAMPLES], env=env))


SCRIPT = """
import numpy, inferd
with inferd.Server({repo!r}, model_control_mode="explicit", load_models=["simple"],
                   log_level="warn") as server:
    a = numpy.arange(16, dtype=numpy.int32).reshape(1, 16)
    out = server.model("simple").infer({{"INPUT0": a, "INPUT1": numpy.ones_like(a)}})
    assert (out["OUTPUT0"] == a + 1).all() and (out["OUTPUT1"] == a - 1).all()
    maps = open("/proc/self/maps").read()
    assert {lib!r} in maps, "not the installed libinferd.so"
    print("numpy", numpy.__version__, "ok")
"""


@pytest.mark.skipif(not os.path.exists("/usr/bin/python3"), reason="needs Debian's python3")
def test_python_package_against_the_installed_library(prefix, tmp_path):
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    wheels = tmp_path / "wheels"
    run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
         "--disable-pip-version-check", "-w", wheels,
         "--config-settings=build-dir=" + str(tmp_path / "wheel-build"),
         ROOT / "python" / "inferd_embed"], env=env)
    (wheel,) = wheels.glob("inferd-*.whl")
    venv = tmp_path / "venv"
    # Debian's interpreter with its own numpy (1.24): the package needs no numpy 2 API.
    run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv])
    run([venv / "bin" / "pip", "install", "--no-deps", "--no-index",
         "--disable-pip-version-check", wheel])
    library = str((prefix / "lib" / "libinferd.so.1.0").resolve())
    stdout = run([venv / "bin" / "python", "-c", SCRIPT.format(repo=str(EXAMPLES), lib=library)],
                 cwd=tmp_path)
    assert stdout.strip().endswith("ok"), stdout
