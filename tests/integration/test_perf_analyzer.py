# SPDX-License-Identifier: Apache-2.0
"""perf_analyzer (Triton's own load generator, the C++ client) against inferd.

It reads model metadata, config and server metadata, then sends binary or
JSON infer requests and matches responses by id: any protocol slip is fatal
for it. Count-based windows keep the run short and independent of speed.
"""
import csv
import os
import pathlib
import subprocess

import pytest

from conftest import ROOT

PERF_ANALYZER = pathlib.Path(os.environ.get("PERF_ANALYZER", ROOT / ".venv" / "bin" / "perf_analyzer"))

CASES = [
    pytest.param("simple", "http", [], id="simple-http-binary"),
    pytest.param("simple", "http", ["--input-tensor-format", "json", "--output-tensor-format", "json"],
                 id="simple-http-json"),
    pytest.param("simple", "grpc", [], id="simple-grpc"),
    pytest.param("ocr_cls", "http", ["--shape", "x:3,48,192"], id="ocr_cls-http"),
    pytest.param("ocr_cls", "grpc", ["--shape", "x:3,48,192"], id="ocr_cls-grpc"),
    pytest.param("string_identity", "grpc", ["--shape", "INPUT0:2", "--string-length", "8"],
                 id="string_identity-grpc"),
    # Inputs and outputs in system shared-memory regions perf_analyzer registers.
    pytest.param("simple", "http", ["--shared-memory", "system"], id="simple-http-shm"),
    pytest.param("simple", "grpc", ["--shared-memory", "system"], id="simple-grpc-shm"),
    pytest.param("string_identity", "http",
                 ["--shape", "INPUT0:2", "--string-length", "8", "--shared-memory", "system",
                  "--output-shared-memory-size", "256"], id="string_identity-http-shm"),
]


@pytest.fixture(scope="module")
def perf_analyzer():
    if not PERF_ANALYZER.exists():
        pytest.fail(f"{PERF_ANALYZER} is missing: run make setup")
    return PERF_ANALYZER


@pytest.mark.parametrize("model,protocol,extra", CASES)
def test_perf_analyzer_runs_without_errors(server, perf_analyzer, tmp_path, model, protocol, extra):
    url = server.http_url if protocol == "http" else server.grpc_url
    report = tmp_path / "report.csv"
    args = [str(perf_analyzer), "-m", model, "-u", url, "-i", protocol,
            "--concurrency-range", "2", "--measurement-mode", "count_windows",
            "--measurement-request-count", "40", "--max-trials", "3", "--stability-percentage", "999",
            "-f", str(report), *extra]
    run = subprocess.run(args, capture_output=True, text=True, timeout=240)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "error" not in output.lower(), output
    rows = list(csv.DictReader(report.open()))
    assert rows and float(rows[0]["Inferences/Second"]) > 0, output
    assert server.alive()
