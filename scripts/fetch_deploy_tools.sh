#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the deployment tests (tests/deploy) need beyond Debian's packages, into .deps/
# (scripts/setup.sh runs it in the full profile; docs/dependencies.md says why each):
#   .deps/go/bin/helm, .deps/go/bin/kubeconform   built with `go install` from the Go module
#                                                  proxy, pinned
#   .deps/k8s-schemas/<version>-standalone-strict/ Kubernetes' JSON schemas, from PyPI's
#                                                  kubernetes-validate wheel
#   .deps/k8s-schemas/crds/<group>/<kind>_<v>.json KServe's, the Prometheus Operator's and
#                                                  KEDA's CRDs (their Go modules hold the CRD
#                                                  YAML), converted by
#                                                  deploy/schemas/crd_to_jsonschema.py
# Idempotent: a stamp per pinned set; a second run does nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
log() { printf '[setup] %s\n' "$*"; }

HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.7.0
# The Kubernetes release whose API the manifests are validated against.
K8S_SCHEMA_VERSION=v1.33.0
KUBERNETES_VALIDATE=1.37.0
KUBERNETES_VALIDATE_WHEEL=kubernetes_validate-$KUBERNETES_VALIDATE-py3-none-any.whl
KUBERNETES_VALIDATE_SHA256=85136d018a27b50ec7fc049d902bfa5193f5976807e6c0f408e3ab6fe078cad9
KSERVE_VERSION=v0.15.0
PROMETHEUS_OPERATOR_VERSION=v0.85.0
KEDA_VERSION=v2.21.0

GOBIN_DIR="$ROOT/.deps/go/bin"
SCHEMAS="$ROOT/.deps/k8s-schemas"
DOWNLOADS="$ROOT/.deps/downloads"
PYTHON="$ROOT/.venv/bin/python"

command -v go >/dev/null || { echo "error: go is missing (Go 1.24 or newer)" >&2; exit 1; }

go_tool() {  # go_tool NAME PACKAGE VERSION
  local name=$1 package=$2 version=$3 stamp="$GOBIN_DIR/.$1-$3"
  [ -f "$stamp" ] && [ -x "$GOBIN_DIR/$name" ] && return 0
  log "building $name $version with go install (a few minutes the first time)"
  mkdir -p "$GOBIN_DIR"
  GOBIN="$GOBIN_DIR" GOFLAGS=-mod=mod nice go install "$package@$version"
  rm -f "$GOBIN_DIR/.$name-"*
  touch "$stamp"
}
go_tool kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION"
go_tool helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION"

stamp="$SCHEMAS/.stamp-$K8S_SCHEMA_VERSION-$KUBERNETES_VALIDATE-$KSERVE_VERSION-$PROMETHEUS_OPERATOR_VERSION-$KEDA_VERSION-$(sha256sum deploy/schemas/crd_to_jsonschema.py | cut -c1-12)"
[ -f "$stamp" ] && exit 0
log "installing Kubernetes $K8S_SCHEMA_VERSION and CRD JSON schemas into .deps/k8s-schemas"
rm -rf "$SCHEMAS"
mkdir -p "$SCHEMAS" "$DOWNLOADS"

# Kubernetes' own kinds. The wheel's schemas point at one _definitions.json through an
# https://kubernetes.io/api/ $id and an absolute "/api/..." reference (kubernetes-validate
# resolves it itself); kubeconform reads them as files, so the $id goes and the reference
# becomes relative to each schema.
if [ ! -f "$DOWNLOADS/$KUBERNETES_VALIDATE_WHEEL" ]; then
  "$PYTHON" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$DOWNLOADS" "kubernetes-validate==$KUBERNETES_VALIDATE"
fi
echo "$KUBERNETES_VALIDATE_SHA256  $DOWNLOADS/$KUBERNETES_VALIDATE_WHEEL" | sha256sum -c --status \
  || { echo "error: $KUBERNETES_VALIDATE_WHEEL does not match its sha256" >&2; exit 1; }
"$PYTHON" - "$DOWNLOADS/$KUBERNETES_VALIDATE_WHEEL" "$K8S_SCHEMA_VERSION" "$SCHEMAS" <<'PY'
import json, pathlib, sys, zipfile
wheel, version, out = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
prefix = f"kubernetes_validate/kubernetes-json-schema/{version}-local-strict/"
target = out / f"{version}-standalone-strict"
target.mkdir(parents=True)
count = 0
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(prefix) and name.endswith(".json"):
            text = z.read(name).decode().replace('"/api/_definitions.json#', '"_definitions.json#')
            schema = json.loads(text)
            schema.pop("$id", None)  # an https:// base would send the reference there
            (target / name[len(prefix):]).write_text(json.dumps(schema, separators=(",", ":")))
            count += 1
if count < 100:
    sys.exit(f"error: only {count} schemas for {version} in {wheel}")
PY

# The CRDs of what the chart and deploy/kserve render.
crd_module() {  # crd_module MODULE VERSION: prints the module's folder
  GOFLAGS=-mod=mod go mod download -json "$1@$2" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])'
}
kserve=$(crd_module github.com/kserve/kserve "$KSERVE_VERSION")
prometheus_operator=$(crd_module github.com/prometheus-operator/prometheus-operator "$PROMETHEUS_OPERATOR_VERSION")
keda=$(crd_module github.com/kedacore/keda/v2 "$KEDA_VERSION")
"$PYTHON" deploy/schemas/crd_to_jsonschema.py "$SCHEMAS/crds" \
  "$kserve"/config/crd/full/serving.kserve.io_servingruntimes.yaml \
  "$kserve"/config/crd/full/serving.kserve.io_clusterservingruntimes.yaml \
  "$kserve"/config/crd/full/serving.kserve.io_inferenceservices.yaml \
  "$prometheus_operator"/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml \
  "$keda"/config/crd/bases/keda.sh_scaledobjects.yaml >/dev/null
touch "$stamp"
