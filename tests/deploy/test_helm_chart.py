# SPDX-License-Identifier: Apache-2.0
"""The Helm chart deploy/helm/inferd: helm lint, helm template for several value sets
(tests/deploy/values), every rendered manifest validated strictly against the Kubernetes
v1.33 and CRD schemas by kubeconform, and what the manifests must say."""
import pathlib

import pytest
import requests
import yaml

from k8s_tools import CHART, assert_valid, by_kind, helm, kubeconform, render

VALUES = pathlib.Path(__file__).parent / "values"
VALUE_SETS = [None] + sorted(VALUES.glob("*.yaml"))


def value_id(path):
    return "default" if path is None else path.stem


def container(docs):
    return by_kind(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]


def flag(args, name):
    assert args.count(name) == 1, f"{name} in {args}"
    return args[args.index(name) + 1]


@pytest.mark.parametrize("values", VALUE_SETS, ids=value_id)
def test_lint(values):
    args = ["lint", "--strict", str(CHART)] + (["--values", str(values)] if values else [])
    result = helm(*args, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("values", VALUE_SETS, ids=value_id)
def test_rendered_manifests_validate(values):
    result, docs = render(values=values)
    count = assert_valid(result.stdout)
    assert count == len(docs)


@pytest.mark.parametrize("values", VALUE_SETS, ids=value_id)
def test_drain_and_probes_fit_together(values):
    _, docs = render(values=values)
    overrides = yaml.safe_load(values.read_text()) if values else {}
    shutdown = {"graceSecs": 10, "exitTimeoutSecs": 30, "marginSecs": 5,
                **overrides.get("shutdown", {})}
    pod = by_kind(docs, "Deployment")["spec"]["template"]["spec"]
    c = container(docs)
    args = c["args"]
    assert int(flag(args, "--shutdown-grace-secs")) == shutdown["graceSecs"]
    assert int(flag(args, "--exit-timeout-secs")) == shutdown["exitTimeoutSecs"]
    assert pod["terminationGracePeriodSeconds"] == sum(shutdown.values())
    assert c["livenessProbe"]["httpGet"] == {"path": "/v2/health/live", "port": "http"}
    assert c["readinessProbe"]["httpGet"] == {"path": "/v2/health/ready", "port": "http"}
    readiness = c["readinessProbe"]
    # The endpoint is gone before inferd stops accepting requests.
    assert readiness["periodSeconds"] * readiness["failureThreshold"] <= shutdown["graceSecs"]
    assert c["command"] == ["inferd"] and args[0] == "serve"
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports == {"http": 8000, "grpc": 8001, "metrics": 8002}
    assert [int(flag(args, f"--{n}-port")) for n in ("http", "grpc", "metrics")] == [8000, 8001, 8002]


def test_security_context_is_non_root_read_only():
    _, docs = render()
    pod = by_kind(docs, "Deployment")["spec"]["template"]["spec"]
    c = container(docs)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 1000  # the image's USER
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert c["securityContext"]["allowPrivilegeEscalation"] is False
    assert c["securityContext"]["capabilities"]["drop"] == ["ALL"]
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    assert set(mounts) == {"/models", "/dev/shm", "/tmp"}  # the only writable places
    assert mounts["/models"]["readOnly"] is True
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["shm"]["emptyDir"]["medium"] == "Memory"
    assert c["resources"]["requests"] and c["resources"]["limits"]


def test_default_makes_and_mounts_a_claim():
    _, docs = render()
    claim = by_kind(docs, "PersistentVolumeClaim")
    pod = by_kind(docs, "Deployment")["spec"]["template"]["spec"]
    volume = next(v for v in pod["volumes"] if v["name"] == "models")
    assert volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    assert flag(container(docs)["args"], "--model-repository") == "/models"
    assert {d["kind"] for d in docs} == {"PersistentVolumeClaim", "Service", "Deployment"}


def test_existing_claim_and_poll_mode():
    _, docs = render(values=VALUES / "pvc-existing.yaml")
    assert not [d for d in docs if d["kind"] == "PersistentVolumeClaim"]
    pod = by_kind(docs, "Deployment")["spec"]["template"]["spec"]
    volume = next(v for v in pod["volumes"] if v["name"] == "models")
    assert volume["persistentVolumeClaim"] == {"claimName": "shared-models", "readOnly": True}
    args = container(docs)["args"]
    assert flag(args, "--model-control-mode") == "poll"
    assert flag(args, "--repository-poll-secs") == "10"
    assert by_kind(docs, "Deployment")["spec"]["replicas"] == 3
    assert by_kind(docs, "PodDisruptionBudget")["spec"]["maxUnavailable"] == 1


def test_s3_repository():
    _, docs = render(values=VALUES / "s3.yaml")
    c = container(docs)
    args = c["args"]
    assert flag(args, "--model-repository") == "s3://models/production"
    assert flag(args, "--model-cache-dir") == "/var/cache/inferd"
    env = {e["name"]: e["value"] for e in c["env"]}
    assert env == {"AWS_ENDPOINT_URL": "https://s3.storage.internal:9000", "AWS_REGION": "eu-west-1"}
    assert c["envFrom"] == [{"secretRef": {"name": "inferd-s3"}}]
    assert "/models" not in {m["mountPath"] for m in c["volumeMounts"]}
    pod = by_kind(docs, "Deployment")["spec"]["template"]["spec"]
    cache = next(v for v in pod["volumes"] if v["name"] == "model-cache")
    assert cache["emptyDir"]["sizeLimit"] == "4Gi"
    assert not [d for d in docs if d["kind"] == "PersistentVolumeClaim"]


def test_service_exposes_http_grpc_and_metrics():
    _, docs = render()
    ports = {p["name"]: p for p in by_kind(docs, "Service")["spec"]["ports"]}
    assert {n: p["port"] for n, p in ports.items()} == {"http": 8000, "grpc": 8001, "metrics": 8002}
    assert ports["grpc"]["appProtocol"] == "kubernetes.io/h2c"
    assert by_kind(docs, "Service")["spec"]["selector"] == \
        by_kind(docs, "Deployment")["spec"]["selector"]["matchLabels"]


def test_hpa_scales_on_pending_requests_and_service_monitor_scrapes():
    _, docs = render(values=VALUES / "autoscaling-hpa.yaml")
    hpa = by_kind(docs, "HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == by_kind(docs, "Deployment")["metadata"]["name"]
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (2, 8)
    metric = hpa["spec"]["metrics"][0]["pods"]
    assert metric["metric"]["name"] == "inferd_inference_pending_requests"
    assert metric["target"] == {"type": "AverageValue", "averageValue": "6"}
    assert "replicas" not in by_kind(docs, "Deployment")["spec"]  # the HPA owns it
    monitor = by_kind(docs, "ServiceMonitor")
    assert monitor["spec"]["endpoints"] == [{"port": "metrics", "path": "/metrics", "interval": "10s"}]
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"


def test_keda_scaled_object_queries_this_release():
    _, docs = render(values=VALUES / "autoscaling-keda.yaml")
    scaled = by_kind(docs, "ScaledObject")
    trigger = scaled["spec"]["triggers"][0]
    assert trigger["type"] == "prometheus"
    assert trigger["metadata"]["query"] == \
        'sum(inferd_inference_pending_requests{namespace="serving",pod=~"t-inferd-.*"})'
    assert trigger["metadata"]["threshold"] == "4"
    assert not [d for d in docs if d["kind"] == "HorizontalPodAutoscaler"]  # KEDA makes it
    c = container(docs)
    assert c["image"] == "registry.example/inferd:0.1.0-libtorch"
    args = c["args"]
    assert flag(args, "--model-control-mode") == "explicit"
    assert [args[i + 1] for i, a in enumerate(args) if a == "--load-model"] == ["simple", "ocr"]
    assert args[-2:] == ["--log-level", "debug"]
    assert {"name": "OMP_NUM_THREADS", "value": "2"} in c["env"]


@pytest.mark.parametrize("settings, message", [
    (["modelRepository.type=s3"], "modelRepository.s3.url must be s3://"),
    (["modelRepository.type=s3", "modelRepository.s3.url=http://bucket"], "must be s3://"),
    (["modelRepository.type=nfs"], "modelRepository.type must be pvc or s3"),
    (["modelRepository.pvc.create=false"], "modelRepository.pvc.claimName"),
    (["shutdown.graceSecs=5"], "must not exceed shutdown.graceSecs"),
    (["autoscaling.enabled=true", "autoscaling.kind=vpa"], "autoscaling.kind must be hpa or keda"),
])
def test_bad_values_fail_with_a_clear_message(settings, message):
    result, _ = render(*settings, check=False)
    assert result.returncode != 0
    assert message in result.stderr


def test_kubeconform_rejects_what_the_api_server_would():
    """The validation can fail: a misspelt field in an env entry and a string replica count."""
    result, _ = render("extraEnv[0].name=A", "extraEnv[0].valeu=b")
    code, report = kubeconform(result.stdout)
    assert code != 0 and report["summary"]["invalid"] == 1
    assert "valeu" in str(report["resources"])
    bad = result.stdout.replace("replicas: 1", 'replicas: "one"')
    assert kubeconform(bad)[1]["summary"]["invalid"] == 1


@pytest.mark.timeout(180)
def test_chart_container_runs_in_the_image(tmp_path):
    """The Deployment's command and arguments (ports moved to free ones) start the image's
    server on a repository at /models, and its readiness probe answers 200."""
    from test_image import EXAMPLES, IMAGE, ImageServer

    _, docs = render("modelRepository.pvc.create=false", "modelRepository.pvc.claimName=m",
                     "modelControl.mode=poll")
    c = container(docs)

    def command(http, grpc, metrics):
        args = list(c["args"])
        for name, port in (("--http-port", http), ("--grpc-port", grpc), ("--metrics-port", metrics)):
            args[args.index(name) + 1] = str(port)
        return c["command"] + args + ["--host", "127.0.0.1"]

    server = ImageServer(IMAGE, EXAMPLES, tmp_path / "inferd.log", command=command)
    try:
        path = c["readinessProbe"]["httpGet"]["path"]
        assert requests.get(f"http://127.0.0.1:{server.http_port}{path}", timeout=5).status_code == 200
    finally:
        code = server.stop()
    assert code == 0, server.output()
