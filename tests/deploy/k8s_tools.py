# SPDX-License-Identifier: Apache-2.0
"""helm and kubeconform as scripts/fetch_deploy_tools.sh installs them (.deps/), with the
Kubernetes and CRD schemas it lays out in .deps/k8s-schemas."""
import json
import pathlib
import subprocess

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEPS = ROOT / ".deps"
HELM = DEPS / "go" / "bin" / "helm"
KUBECONFORM = DEPS / "go" / "bin" / "kubeconform"
SCHEMAS = DEPS / "k8s-schemas"
KUBERNETES_VERSION = "1.33.0"
CHART = ROOT / "deploy" / "helm" / "inferd"
KSERVE = ROOT / "deploy" / "kserve"


def require_tools():
    for tool in (HELM, KUBECONFORM, SCHEMAS / f"v{KUBERNETES_VERSION}-standalone-strict"):
        if not tool.exists():
            pytest.fail(f"{tool} is missing: run scripts/setup.sh (scripts/fetch_deploy_tools.sh)")


def helm(*args, check=True):
    require_tools()
    return subprocess.run([str(HELM), *args], capture_output=True, text=True, check=check)


def render(*set_args, values=None, check=True):
    """helm template of the chart: (the YAML text, its documents)."""
    args = ["template", "t", str(CHART), "--namespace", "serving"]
    if values:
        args += ["--values", str(values)]
    for item in set_args:
        args += ["--set", item]
    result = helm(*args, check=False)
    if check and result.returncode != 0:
        raise AssertionError(f"helm template failed:\n{result.stderr}")
    docs = [d for d in yaml.safe_load_all(result.stdout) if d] if result.returncode == 0 else []
    return result, docs


def kubeconform(text):
    """Strict validation of every resource in `text`: the JSON summary; fails the test on
    any invalid, erroneous or skipped (schema-less) resource."""
    require_tools()
    result = subprocess.run(
        [str(KUBECONFORM), "-strict", "-summary", "-output", "json",
         "-kubernetes-version", KUBERNETES_VERSION,
         "-schema-location",
         f"{SCHEMAS}/{{{{.NormalizedKubernetesVersion}}}}-standalone{{{{.StrictSuffix}}}}/"
         "{{.ResourceKind}}{{.KindSuffix}}.json",
         "-schema-location",
         f"{SCHEMAS}/crds/{{{{.Group}}}}/{{{{.ResourceKind}}}}_{{{{.ResourceAPIVersion}}}}.json",
         "-"],
        input=text, capture_output=True, text=True)
    report = json.loads(result.stdout)
    return result.returncode, report


def assert_valid(text):
    code, report = kubeconform(text)
    summary = report["summary"]
    assert code == 0 and summary["invalid"] == 0 and summary["errors"] == 0 \
        and summary["skipped"] == 0, json.dumps(report, indent=1)
    assert summary["valid"] > 0
    return summary["valid"]


def by_kind(docs, kind):
    found = [d for d in docs if d["kind"] == kind]
    assert len(found) == 1, f"{len(found)} {kind} resources"
    return found[0]
