#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs everything inferd needs on Debian 12: Debian packages, ONNX Runtime,
# the Python virtualenv (.venv) with the test clients and perf_analyzer, and the
# example models. Idempotent: each step checks first, so a second run does nothing
# and takes well under a second or two. Versions are explained in docs/dependencies.md.
#
#   scripts/setup.sh           everything: building, serving and every test tier
#   scripts/setup.sh serving   only what building the server and serving examples/models
#                              need (`make serve`): no test-only Debian packages, a .venv with
#                              just the model generators' packages, no perf_analyzer, no test
#                              data. A later full run adds the rest.
set -euo pipefail

PROFILE=${1:-all}
case "$PROFILE" in
  all | serving) ;;
  *) echo "usage: scripts/setup.sh [serving]" >&2; exit 2 ;;
esac

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

log() { printf '[setup] %s\n' "$*"; }
START=$SECONDS
# step NAME: logs the start of a long step and how long the previous one took,
# so that a first run's wait is visible.
step() { log "$* ($((SECONDS - START)) s so far)"; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# --- Debian packages -------------------------------------------------------------
# What building and serving need (both profiles).
APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  protobuf-compiler libprotobuf-dev protobuf-compiler-grpc libgrpc++-dev
  libboost-dev libboost-system-dev libabsl-dev libspdlog-dev libfmt-dev libcli11-dev
  libsimdjson-dev rapidjson-dev zlib1g-dev
  libxxhash-dev  # the response cache's 128-bit key hash (src/server/response_cache_key.cc)
  # CMake's configure step finds GoogleTest (the unit tests are on by default);
  # headers and sources only, a few hundred kilobytes.
  libgtest-dev libgmock-dev googletest
  python3-venv python3-dev curl
  # Model repositories in S3 (src/repository/s3_store.cc): libcurl's SigV4
  # signing and expat for the listings' XML.
  libcurl4-openssl-dev libexpat1-dev
  # The Python backend's workers run python3 (or the model's EXECUTION_ENV_PATH)
  # with the inferd_python package, which needs numpy.
  python3-numpy
  # The example OCR pipeline's Python models (examples/models/ocr_*) decode and
  # crop images with Pillow on the workers' python3.
  python3-pil
)
# Only the tests and benchmarks need these (the full profile).
TEST_APT_PACKAGES=(
  libbenchmark-dev clang-format wrk
  libb64-0d  # perf_analyzer (tritonclient 2.51.0 build) links libb64.so.0d
  prometheus  # tests/integration/test_metrics.py scrapes inferd with a real Prometheus
  libjpeg-dev libpng-dev  # examples/backends/image_preprocess (tests/integration/test_custom_backend.py)
  # The LibTorch backend (src/backends/pytorch) builds only when find_package(Torch)
  # succeeds; python3-torch (same 1.13 release) makes its test models with /usr/bin/python3.
  # No example model uses it, so serving goes without (a later full setup adds it, and
  # the next build configures it in).
  libtorch-dev python3-torch
  # The OCR tests and benchmark render their test images with DejaVu fonts.
  fonts-dejavu-core
  # `make image` (deploy/image/build.sh): buildah builds the OCI image without a daemon,
  # mmdebstrap makes its Debian 12 slim base; HAProxy balances `make bench-scaleout`'s
  # replicas (tests/integration/test_scaleout.py).
  buildah mmdebstrap haproxy
)
if [ "$PROFILE" = all ]; then
  APT_PACKAGES+=("${TEST_APT_PACKAGES[@]}")
fi
# Node/npm may come from elsewhere (e.g. NodeSource, which bundles npm); Debian's
# npm package would conflict with that, so only ask for them when npm is absent.
if ! command -v npm >/dev/null 2>&1; then
  APT_PACKAGES+=(nodejs npm)
fi

install_apt_packages() {
  local installed missing=() p
  installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${APT_PACKAGES[@]}" 2>/dev/null \
    | awk '$NF == "installed" && $(NF-1) == "ok" { print $1 }' || true)
  for p in "${APT_PACKAGES[@]}"; do
    grep -qxF "$p" <<<"$installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  step "installing ${#missing[@]} Debian packages (on a fresh machine the longest step;" \
    "apt lists each package as it unpacks it): ${missing[*]}"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    -o Dpkg::Progress-Fancy=0 -o Dpkg::Use-Pty=0 "${missing[@]}"
  if printf '%s\n' "${missing[@]}" | grep -qxF prometheus; then
    disable_prometheus_service
  fi
}

# The prometheus package enables a system service on :9090. Tests start their
# own Prometheus on a free port, so a fresh install must not leave one running.
disable_prometheus_service() {
  if command -v systemctl >/dev/null 2>&1; then
    $SUDO systemctl disable prometheus.service >/dev/null 2>&1 || true  # works offline too
  fi
  if [ -d /run/systemd/system ]; then
    $SUDO systemctl stop prometheus.service >/dev/null 2>&1 || true
  elif [ -x /etc/init.d/prometheus ]; then
    $SUDO /etc/init.d/prometheus stop >/dev/null 2>&1 || true
    $SUDO update-rc.d prometheus disable >/dev/null 2>&1 || true
  fi
}

# --- Python virtualenv -----------------------------------------------------------
VENV="$ROOT/.venv"
REQUIREMENTS="$ROOT/tests/requirements.txt"
TFS_CLIENT="tensorflow-serving-api==2.21.0"
# The serving profile's subset of it: what scripts/fetch_models.sh runs
# (examples/make_models.py, examples/silero_vad/make_model.py), same pins.
SERVING_REQUIREMENTS="$ROOT/scripts/requirements-serving.txt"
DOWNLOADS="$ROOT/.deps/downloads"

# Debian's own interpreter when present (a clean Debian 12 box); else whatever
# python3 is on PATH (e.g. pyenv).
if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=$(command -v python3); fi

setup_venv() {
  if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c '' >/dev/null 2>&1; then
    log "creating virtualenv $VENV with $PYTHON"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
  fi
  local hash stamp serving_stamp requirements=$REQUIREMENTS
  hash=$( (cat "$REQUIREMENTS"; echo "$TFS_CLIENT") | sha256sum | cut -c1-16)
  stamp="$VENV/.stamp-$hash"
  serving_stamp="$VENV/.stamp-serving-$(sha256sum "$SERVING_REQUIREMENTS" | cut -c1-16)"
  # The full set holds the serving one.
  if [ -f "$stamp" ] || { [ "$PROFILE" = serving ] && [ -f "$serving_stamp" ]; }; then
    return 0
  fi
  if [ "$PROFILE" = serving ]; then requirements=$SERVING_REQUIREMENTS; stamp=$serving_stamp; fi
  step "installing $(grep -c '^[A-Za-z]' "$requirements") Python packages from" \
    "${requirements#"$ROOT"/} into .venv"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  if [ "$PROFILE" = all ]; then
    # TF Serving's own Python client for tests/integration/test_tfserving.py, without its
    # TensorFlow dependency (its modules need only protobuf and grpcio; tfs_protos.py compiles
    # the TensorFlow protos they import).
    step "installing $TFS_CLIENT (--no-deps)"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "$TFS_CLIENT"
    rm -f "$VENV"/.stamp-*
  fi
  touch "$stamp"
}

# --- perf_analyzer ---------------------------------------------------------------
# The newest perf-analyzer wheel needs glibc 2.38 (Debian 12 has 2.36), and pip
# then installs an empty placeholder. tritonclient 2.51.0 is the newest wheel that
# bundles a perf_analyzer binary built for glibc <= 2.34; it needs libb64.so.0d
# (Debian: libb64-0d) and libcudart.so.12 (PyPI: nvidia-cuda-runtime-cu12; loads
# fine without a GPU). Both wheels are unpacked into .venv/perf_analyzer, apart from
# the venv's own (newer) tritonclient, and .venv/bin/perf_analyzer wraps the binary.
PA_TRITONCLIENT=2.51.0
PA_TRITONCLIENT_WHEEL="tritonclient-$PA_TRITONCLIENT-py3-none-manylinux1_x86_64.whl"
PA_TRITONCLIENT_SHA256=c485bb0123bdf310f90bc8b03d3489b28df2ffed55b30c7eee0b795b48113d52
PA_CUDART=12.9.79
PA_CUDART_WHEEL="nvidia_cuda_runtime_cu12-$PA_CUDART-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
PA_CUDART_SHA256=25bba2dfb01d48a9b59ca474a1ac43c6ebf7011f1b0b8cc44f54eb6ac48a96c3

# fetch_wheel SPEC FILE SHA256: download FILE into $DOWNLOADS once, check its hash.
fetch_wheel() {
  local spec=$1 file=$2 sha=$3
  if [ ! -f "$DOWNLOADS/$file" ]; then
    log "downloading $spec"
    mkdir -p "$DOWNLOADS"
    "$VENV/bin/python" -m pip download -q --disable-pip-version-check --no-deps \
      --only-binary=:all: -d "$DOWNLOADS" "$spec"
  fi
  if ! echo "$sha  $DOWNLOADS/$file" | sha256sum -c --status; then
    echo "error: $DOWNLOADS/$file does not match sha256 $sha" >&2
    rm -f "$DOWNLOADS/$file"
    return 1
  fi
}

# unzip_member WHEEL MEMBER DEST: extract one file of a wheel to DEST, executable.
unzip_member() {
  "$VENV/bin/python" - "$@" <<'PY'
import os, shutil, sys, zipfile
wheel, member, dest = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(dest + ".tmp", "wb") as out:
    shutil.copyfileobj(src, out)
os.chmod(dest + ".tmp", 0o755)
os.replace(dest + ".tmp", dest)
PY
}

setup_perf_analyzer() {
  local dir="$VENV/perf_analyzer" stamp
  stamp="$dir/.stamp-$PA_TRITONCLIENT-$PA_CUDART"
  if [ -f "$stamp" ] && [ -x "$VENV/bin/perf_analyzer" ]; then
    return 0
  fi
  step "installing perf_analyzer from tritonclient $PA_TRITONCLIENT"
  fetch_wheel "tritonclient==$PA_TRITONCLIENT" "$PA_TRITONCLIENT_WHEEL" "$PA_TRITONCLIENT_SHA256"
  fetch_wheel "nvidia-cuda-runtime-cu12==$PA_CUDART" "$PA_CUDART_WHEEL" "$PA_CUDART_SHA256"
  rm -rf "$dir"
  mkdir -p "$dir/bin" "$dir/lib"
  unzip_member "$DOWNLOADS/$PA_TRITONCLIENT_WHEEL" \
    "tritonclient-$PA_TRITONCLIENT.data/data/bin/perf_analyzer" "$dir/bin/perf_analyzer"
  unzip_member "$DOWNLOADS/$PA_CUDART_WHEEL" \
    nvidia/cuda_runtime/lib/libcudart.so.12 "$dir/lib/libcudart.so.12"
  cat >"$VENV/bin/perf_analyzer" <<'SH'
#!/bin/sh
# perf_analyzer from tritonclient 2.51.0 (see docs/dependencies.md), with its libcudart.
dir=$(dirname "$(readlink -f "$0")")/../perf_analyzer
LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$dir/bin/perf_analyzer" "$@"
SH
  chmod +x "$VENV/bin/perf_analyzer"
  if ! "$VENV/bin/perf_analyzer" --version >/dev/null 2>&1; then
    echo "error: perf_analyzer does not run here:" >&2
    "$VENV/bin/perf_analyzer" --version >&2 || true
    return 1
  fi
  touch "$stamp"
}

# --- versitygw -------------------------------------------------------------------
# An S3-compatible server (Apache-2.0) that tests/integration/test_s3_repository.py
# starts over a folder of its own; built from the Go module proxy into .deps/go/bin.
# Needs Go >= 1.25 (its go.mod); Debian 12's golang-go is 1.19, so the Go found on
# PATH or in /usr/local/go is used.
VERSITYGW_VERSION=v1.8.0
setup_versitygw() {
  local bin="$ROOT/.deps/go/bin" go=go
  local stamp="$bin/.stamp-versitygw-$VERSITYGW_VERSION"
  if [ -f "$stamp" ] && [ -x "$bin/versitygw" ]; then
    return 0
  fi
  if ! command -v go >/dev/null 2>&1; then go=/usr/local/go/bin/go; fi
  if ! "$go" version >/dev/null 2>&1; then
    echo "error: building versitygw needs Go >= 1.25 (go on PATH or /usr/local/go)" >&2
    return 1
  fi
  step "building versitygw $VERSITYGW_VERSION with go install (a few minutes the first time)"
  mkdir -p "$bin"
  GOBIN="$bin" "$go" install \
    "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
  touch "$stamp"
}

# --- run -------------------------------------------------------------------------
install_apt_packages
if [ -f scripts/fetch_onnxruntime.sh ]; then
  bash scripts/fetch_onnxruntime.sh
fi
setup_venv
if [ "$PROFILE" = all ]; then
  setup_perf_analyzer
  setup_versitygw
fi
bash scripts/fetch_models.sh
if [ "$PROFILE" = all ]; then
  bash scripts/fetch_testdata.sh
  bash scripts/fetch_deploy_tools.sh  # helm, kubeconform, Kubernetes and CRD schemas
fi
if [ $((SECONDS - START)) -gt 2 ]; then
  log "done in $((SECONDS - START)) s"
fi
