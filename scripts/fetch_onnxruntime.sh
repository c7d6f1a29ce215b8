#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fills .deps/onnxruntime (or $ONNXRUNTIME_ROOT) with ONNX Runtime laid out as
#   include/onnxruntime_c_api.h ...   lib/libonnxruntime.so.1   lib/libonnxruntime.so -> .so.1
# The library is Microsoft's official build, taken from the npm package
# onnxruntime-node (it needs only glibc >= 2.28). Debian 12 has no ONNX Runtime,
# so the headers come from Debian trixie's libonnxruntime-dev, downloaded (not
# installed) through a private apt state folder; the C API is versioned, so
# the older headers work with the newer library. Idempotent: does nothing when
# the files are already there.
#
# Environment:
#   ONNXRUNTIME_ROOT   use this install; if it has lib/ and include/, do nothing
#   ORT_NPM_TARBALL    an already downloaded onnxruntime-node-$ORT_VERSION.tgz
#                      (skips `npm pack`)
set -euo pipefail

ORT_VERSION=1.30.0
ORT_DEB_SUITE=trixie
ORT_DEB_PACKAGE=libonnxruntime-dev

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ -n "${ONNXRUNTIME_ROOT:-}" && -d "${ONNXRUNTIME_ROOT}/lib" &&
      -d "${ONNXRUNTIME_ROOT}/include" ]]; then
  echo "fetch_onnxruntime: using ONNXRUNTIME_ROOT=${ONNXRUNTIME_ROOT}"
  exit 0
fi
dest="${ONNXRUNTIME_ROOT:-${repo_root}/.deps/onnxruntime}"
lib_dir="${dest}/lib"
inc_dir="${dest}/include"

have_lib() { [[ -f "${lib_dir}/libonnxruntime.so.1" && -L "${lib_dir}/libonnxruntime.so" ]]; }
have_headers() {
  [[ -f "${inc_dir}/onnxruntime_c_api.h" && -f "${inc_dir}/onnxruntime_cxx_api.h" ]]
}

if have_lib && have_headers; then
  echo "fetch_onnxruntime: already present in ${dest}"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT
mkdir -p "${lib_dir}" "${inc_dir}"

fetch_library() {
  local tarball="${ORT_NPM_TARBALL:-}"
  if [[ -z "${tarball}" ]]; then
    echo "fetch_onnxruntime: npm pack onnxruntime-node@${ORT_VERSION}"
    (cd "${tmp}" && npm pack --silent "onnxruntime-node@${ORT_VERSION}" >/dev/null)
    tarball="${tmp}/onnxruntime-node-${ORT_VERSION}.tgz"
  fi
  local member="package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
  tar -xzf "${tarball}" -C "${tmp}" "${member}"
  install -m 0755 "${tmp}/${member}" "${lib_dir}/libonnxruntime.so.1"
  ln -sfn libonnxruntime.so.1 "${lib_dir}/libonnxruntime.so"
}

# apt-get with a private sources list and state folder, so neither root nor the
# system's apt lists are touched. Kept under .deps/ so reruns skip `update`.
fetch_headers() {
  local apt_dir="${repo_root}/.deps/apt-${ORT_DEB_SUITE}"
  mkdir -p "${apt_dir}/sources" "${apt_dir}/lists/partial" "${apt_dir}/cache/archives/partial"
  cat >"${apt_dir}/sources/${ORT_DEB_SUITE}.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: ${ORT_DEB_SUITE}
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  local apt_opts=(
    -o "Dir::Etc::SourceList=/dev/null"
    -o "Dir::Etc::SourceParts=${apt_dir}/sources"
    -o "Dir::State::Lists=${apt_dir}/lists"
    -o "Dir::Cache=${apt_dir}/cache"
    -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=root"
  )
  if ! compgen -G "${apt_dir}/lists/*${ORT_DEB_SUITE}*Packages*" >/dev/null; then
    echo "fetch_onnxruntime: apt-get update (${ORT_DEB_SUITE}, private lists)"
    apt-get "${apt_opts[@]}" -qq update
  fi
  echo "fetch_onnxruntime: apt-get download ${ORT_DEB_PACKAGE}"
  (cd "${tmp}" && apt-get "${apt_opts[@]}" -qq download "${ORT_DEB_PACKAGE}")
  dpkg -x "${tmp}"/${ORT_DEB_PACKAGE}_*.deb "${tmp}/deb"
  cp -a "${tmp}/deb/usr/include/onnxruntime/." "${inc_dir}/"
}

have_lib || fetch_library
have_headers || fetch_headers
echo "fetch_onnxruntime: ONNX Runtime ${ORT_VERSION} ready in ${dest}"
