#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds inferd's OCI image with buildah, without a container daemon (`make image`):
#
#   deploy/image/build.sh              inferd:<version>           ONNX Runtime + Python backends
#   deploy/image/build.sh --libtorch   inferd:<version>-libtorch  the same plus the LibTorch backend
#
# Needs a release build (build/bin/inferd and its backends; `make build-serving`, and for
# --libtorch the full `make build`, which builds the LibTorch backend where libtorch-dev is
# installed). Steps:
#   1. the base: Debian 12 slim. docker.io/library/debian:12-slim when INFERD_IMAGE_BASE names
#      it (or another image); by default a root file system made once with mmdebstrap from
#      Debian's apt mirror, the way debian:12-slim is made (minbase, no man pages, docs or
#      locales), kept in .deps/image/ and imported as localhost/inferd-base:debian-12-slim;
#   2. the server, its backends and the Python worker package from the release build,
#      stripped, under build/image/context-<variant>/root/opt/inferd, with libonnxruntime.so.1
#      in /opt/inferd/lib (found through ld.so.conf.d), and nothing a server does not run
#      (headers, CMake package, the embedding library);
#   3. the Debian packages that hold every library those binaries load (ldd, then dpkg -S),
#      plus python3 with numpy (the Python backend's workers) and Pillow (the example OCR
#      pipeline's Python models);
#   4. `buildah bud` of deploy/image/Containerfile in Docker format (OCI's image format has
#      no HEALTHCHECK), with --layers so that an unchanged package list reuses its layer.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

VARIANT=base
case "${1:-}" in
  "") ;;
  --libtorch) VARIANT=libtorch ;;
  *) echo "usage: deploy/image/build.sh [--libtorch]" >&2; exit 2 ;;
esac

log() { printf '[image] %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

for tool in buildah mmdebstrap; do
  command -v "$tool" >/dev/null || die "$tool is missing: run scripts/setup.sh (full profile)"
done

VERSION=$(sed -n 's/^project(inferd VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$VERSION" ] || die "no project(inferd VERSION ...) in CMakeLists.txt"
TAG="inferd:$VERSION"
[ "$VARIANT" = libtorch ] && TAG="$TAG-libtorch"

BUILD=${INFERD_BUILD_DIR:-build}
[ -x "$BUILD/bin/inferd" ] || die "$BUILD/bin/inferd is missing: make build-serving first"
for backend in onnxruntime python; do
  [ -d "$BUILD/lib/backends/$backend" ] || die "$BUILD/lib/backends/$backend is missing"
done
if [ "$VARIANT" = libtorch ] && [ ! -f "$BUILD/lib/backends/pytorch/libinferd_pytorch.so" ]; then
  die "the LibTorch backend was not built: scripts/setup.sh (full) installs libtorch-dev, then make build"
fi
ORT_LIB="$ROOT/.deps/onnxruntime/lib/libonnxruntime.so.1"
[ -f "$ORT_LIB" ] || die "$ORT_LIB is missing: scripts/setup.sh fetches ONNX Runtime"

# --- 1. the base ----------------------------------------------------------------
BASE=${INFERD_IMAGE_BASE:-localhost/inferd-base:debian-12-slim}
if [ -z "${INFERD_IMAGE_BASE:-}" ] && ! buildah inspect --type image "$BASE" >/dev/null 2>&1; then
  ROOTFS="$ROOT/.deps/image/debian-12-slim.tar"
  if [ ! -f "$ROOTFS" ]; then
    log "making the Debian 12 slim root file system with mmdebstrap (about 1.5 min)"
    mkdir -p "$(dirname "$ROOTFS")"
    # merged-usr hook: /bin -> usr/bin without the usrmerge package (which pulls in perl).
    mmdebstrap --quiet --variant=minbase --format=tar \
      --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
      --aptopt='APT::Install-Recommends "false"' \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --dpkgopt='path-exclude=/usr/share/locale/*' \
      --dpkgopt='path-include=/usr/share/locale/locale.alias' \
      bookworm "$ROOTFS.tmp" \
      "deb http://deb.debian.org/debian bookworm main" \
      "deb http://deb.debian.org/debian bookworm-updates main" \
      "deb http://deb.debian.org/debian-security bookworm-security main"
    mv "$ROOTFS.tmp" "$ROOTFS"
  fi
  log "importing $ROOTFS as $BASE"
  ctr=$(buildah from scratch)
  buildah add --quiet "$ctr" "$ROOTFS" / >/dev/null
  buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --cmd /bin/bash "$ctr"
  buildah commit --quiet --rm "$ctr" "$BASE" >/dev/null
fi

# --- 2. the staged install --------------------------------------------------------
CONTEXT="$ROOT/$BUILD/image/context-$VARIANT"
STAGE="$CONTEXT/root"
PREFIX=/opt/inferd
rm -rf "$CONTEXT"
mkdir -p "$STAGE"
# The build tree has the install layout for these (bin/, lib/backends/<name>/); copying
# them, rather than `cmake --install`, needs only the `serving` target built.
mkdir -p "$STAGE$PREFIX/bin" "$STAGE$PREFIX/lib/backends"
install -m 0755 "$BUILD/bin/inferd" "$STAGE$PREFIX/bin/inferd"
ln -s inferd "$STAGE$PREFIX/bin/tritonserver"
backends="onnxruntime python"
[ "$VARIANT" = libtorch ] && backends="$backends pytorch"
for backend in $backends; do
  cp -r "$BUILD/lib/backends/$backend" "$STAGE$PREFIX/lib/backends/"
done
rm -f "$STAGE$PREFIX/lib/backends/python/.package-stamp"
find "$STAGE$PREFIX" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec strip --strip-unneeded {} +
find "$STAGE$PREFIX" -name __pycache__ -prune -exec rm -rf {} +
install -m 0644 "$ORT_LIB" "$STAGE$PREFIX/lib/libonnxruntime.so.1"
strip --strip-unneeded "$STAGE$PREFIX/lib/libonnxruntime.so.1"
mkdir -p "$STAGE/etc/ld.so.conf.d"
echo "$PREFIX/lib" >"$STAGE/etc/ld.so.conf.d/inferd.conf"
cp deploy/image/Containerfile "$CONTEXT/Containerfile"

# python3-pil depends on "mime-support | python3-pil.imagetk"; mime-support's mailcap
# pulls in perl (46 MB) for what only a desktop's image viewer uses. This empty package
# provides mime-support instead (the way equivs does), so Pillow comes without perl.
stub="$CONTEXT/mime-support-stub"
mkdir -p "$stub/DEBIAN"
cat >"$stub/DEBIAN/control" <<'CONTROL'
Package: inferd-mime-support-stub
Version: 1.0
Architecture: all
Maintainer: inferd
Depends: media-types
Provides: mime-support
Description: stands in for mime-support in inferd's image (no mailcap, no perl)
CONTROL
SOURCE_DATE_EPOCH=0 dpkg-deb --root-owner-group --build "$stub" "$CONTEXT/mime-support-stub.deb" >/dev/null
touch -d @0 "$CONTEXT/mime-support-stub.deb"
rm -rf "$stub"

# --- 3. the runtime packages --------------------------------------------------------
# Every system library the staged binaries load, mapped to the Debian package that holds
# it here (the image's base is the same Debian release as this build machine).
runtime_packages() {
  local lib pkg
  find "$STAGE$PREFIX" -type f \( -name '*.so*' -o -perm -u+x \) -print0 \
    | xargs -0 file --no-pad | awk -F: '/ELF/ {print $1}' \
    | LD_LIBRARY_PATH="$STAGE$PREFIX/lib" xargs -r ldd 2>/dev/null \
    | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u \
    | while read -r lib; do
        case "$lib" in "$STAGE"*) continue ;; esac
        # dpkg knows each file by the path its package ships (/lib/... or /usr/lib/...);
        # libblas.so.3 and liblapack.so.3 are alternatives' links to the real file.
        pkg=$( (dpkg -S "$lib" || dpkg -S "/usr$lib" || dpkg -S "${lib#/usr}" \
          || dpkg -S "$(readlink -f "$lib")") 2>/dev/null \
          | awk -F: 'NR == 1 {print $1}')
        [ -n "$pkg" ] || die "no Debian package holds $lib"
        echo "$pkg"
      done
}
LIBRARY_PACKAGES=$(runtime_packages)  # its own assignment: set -e sees a failed lookup
PACKAGES=$(printf '%s\n' $LIBRARY_PACKAGES python3 python3-numpy python3-pil | sort -u | tr '\n' ' ')
log "runtime packages: $PACKAGES"
echo "$PACKAGES" >"$CONTEXT/packages.txt"

# --- 4. the image -----------------------------------------------------------------
log "building $TAG on $BASE"
previous=$(buildah images --quiet --no-trunc "$TAG" 2>/dev/null || true)
buildah bud --quiet --layers --format docker --isolation chroot \
  --build-arg "BASE=$BASE" --build-arg "PACKAGES=$PACKAGES" \
  --label "org.opencontainers.image.version=$VERSION" \
  --label "org.opencontainers.image.title=inferd" \
  -t "$TAG" -f "$CONTEXT/Containerfile" "$CONTEXT" >/dev/null
# The image this tag named before is left untagged: remove it (the cached layers below it
# stay, they belong to the intermediate images --layers keeps).
if [ -n "$previous" ] && [ "$previous" != "$(buildah images --quiet --no-trunc "$TAG")" ]; then
  buildah rmi "$previous" >/dev/null 2>&1 || true
fi
size=$(buildah images --format '{{.Size}}' "$TAG" | head -1)
log "built $TAG ($size uncompressed)"
