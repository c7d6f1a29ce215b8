# SPDX-License-Identifier: Apache-2.0
"""deploy/kserve: inferd's ServingRuntime and ClusterServingRuntime and the example
InferenceServices, validated strictly against KServe v0.15's CRD schemas (from the kserve
Go module's config/crd), and the runtime's container run in the image."""
import pathlib

import requests
import pytest
import yaml

from k8s_tools import KSERVE, assert_valid, kubeconform
from test_image import EXAMPLES, IMAGE, ImageServer

FILES = sorted(KSERVE.glob("*.yaml"))


def load(name):
    return yaml.safe_load((KSERVE / name).read_text())


def runtime_flag(args, name):
    return args[args.index(name) + 1]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_manifest_validates_against_kserve_crds(path):
    assert_valid(path.read_text())


def test_crd_validation_can_fail():
    text = (KSERVE / "servingruntime.yaml").read_text().replace("protocolVersions:", "protocolVersion:")
    code, report = kubeconform(text)
    assert code != 0 and report["summary"]["invalid"] == 1


def test_runtime():
    runtime = load("clusterservingruntime.yaml")
    assert runtime["kind"] == "ClusterServingRuntime"
    namespaced = load("servingruntime.yaml")
    assert namespaced["kind"] == "ServingRuntime" and namespaced["spec"] == runtime["spec"]
    spec = runtime["spec"]
    assert "v2" in spec["protocolVersions"] and "grpc-v2" in spec["protocolVersions"]
    assert {"onnx", "pytorch", "python"} <= {f["name"] for f in spec["supportedModelFormats"]}
    c = spec["containers"][0]
    assert c["name"] == "kserve-container"  # the name KServe looks for
    assert runtime_flag(c["args"], "--model-repository") == "/mnt/models"
    assert runtime_flag(c["args"], "--http-port") == "8080"
    assert c["readinessProbe"]["httpGet"] == {"path": "/v2/health/ready", "port": 8080}
    assert c["livenessProbe"]["httpGet"] == {"path": "/v2/health/live", "port": 8080}
    assert c["securityContext"]["runAsNonRoot"] is True
    assert spec["annotations"]["prometheus.kserve.io/port"] == runtime_flag(c["args"], "--metrics-port")


def test_inference_services_use_the_runtime():
    args = load("clusterservingruntime.yaml")["spec"]["containers"][0]["args"]
    formats = {f["name"] for f in load("clusterservingruntime.yaml")["spec"]["supportedModelFormats"]}
    drain = int(runtime_flag(args, "--shutdown-grace-secs")) + int(runtime_flag(args, "--exit-timeout-secs"))
    modes = {}
    for name in ("inferenceservice-raw.yaml", "inferenceservice-knative.yaml"):
        isvc = load(name)
        model = isvc["spec"]["predictor"]["model"]
        assert model["runtime"] == "inferd" and model["modelFormat"]["name"] in formats
        modes[isvc["metadata"]["annotations"]["serving.kserve.io/deploymentMode"]] = isvc
    assert set(modes) == {"RawDeployment", "Serverless"}
    assert modes["RawDeployment"]["spec"]["predictor"]["terminationGracePeriodSeconds"] > drain


@pytest.mark.timeout(180)
def test_runtime_container_serves_a_repository_at_mnt_models(tmp_path):
    """The runtime's command and arguments, as KServe runs them (ports moved to free
    ones), serve examples/models mounted where the storage initializer puts models."""
    c = load("clusterservingruntime.yaml")["spec"]["containers"][0]

    def command(http, grpc, metrics):
        ports = {"--http-port": http, "--grpc-port": grpc, "--metrics-port": metrics}
        args = list(c["args"])
        for name, port in ports.items():
            args[args.index(name) + 1] = str(port)
        return c["command"] + args + ["--host", "127.0.0.1"]

    server = ImageServer(IMAGE, EXAMPLES, tmp_path / "inferd.log", command=command,
                         mount="/mnt/models")
    try:
        probe = c["readinessProbe"]["httpGet"]["path"]
        assert requests.get(f"http://127.0.0.1:{server.http_port}{probe}", timeout=5).status_code == 200
        assert requests.get(f"http://127.0.0.1:{server.http_port}/v2/models/simple/ready",
                            timeout=5).status_code == 200
    finally:
        code = server.stop()
    assert code == 0, server.output()
