#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real speech for the Silero VAD example's tests and benchmark (examples/silero_vad,
# tests/integration/test_vad_stream.py, bench/streaming.sh): 16 kHz mono 16-bit WAVs
# from Debian's pocketsphinx-testdata package (BSD-2, Carnegie Mellon University; the
# LibriVox clips are a public-domain reading of "Sense and Sensibility").
#
# The package is downloaded (`apt-get download`, kept in .deps/downloads) and unpacked
# with `dpkg -x` into a temporary folder; it is never installed. The files the tests
# use are copied into .deps/testdata/pocketsphinx-testdata and checked by SHA-256.
# Idempotent: when every file is there with the right hash it does nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

log() { printf '[fetch_testdata] %s\n' "$*"; }

DOWNLOADS="$ROOT/.deps/downloads"
DEST="$ROOT/.deps/testdata/pocketsphinx-testdata"
PACKAGE=pocketsphinx-testdata
VERSION=0.8+5prealpha+1-15
DEB="$DOWNLOADS/${PACKAGE}_${VERSION}_all.deb"
DEB_SHA256=eaeb7a01d54f20b799d1a81ef110ec544b2cb47ea006614078220737a33019f0
DATA=usr/share/pocketsphinx/test/data
# path in the package | sha256 | name in $DEST
FILES=(
  "$DATA/librivox/sense_and_sensibility_01_austen_64kb-0870.wav b0557cf95c974d930577e58e46b7f068c432a6e3afcc286563d88922b2a5315c sense_and_sensibility_01_austen_64kb-0870.wav"
  "$DATA/librivox/sense_and_sensibility_01_austen_64kb-0880.wav fbec491ef00ee734a67f0ee318e98c51c157b479e1629ff4f4426861ecac0414 sense_and_sensibility_01_austen_64kb-0880.wav"
  "$DATA/cards/001.wav 899951e768666f27c8f8b1d4090b96fe7909cae9cec01bec0a5d5d1b8a8d566e cards-001.wav"
  "$DATA/librivox/transcription 4cc29e04a6dcd29242893b3ee20470e50b6ace45f4387bb619e5218145c66f99 librivox.transcription"
  "$DATA/cards/cards.transcription 5f11ecf64b8c45e4596d128293c66e695844854ad03cc79ffabde72dea1eba05 cards.transcription"
)

sha_ok() {  # sha_ok FILE SHA256
  [ -f "$1" ] && echo "$2  $1" | sha256sum -c --status
}

all_present() {
  local entry member sha name
  for entry in "${FILES[@]}"; do
    read -r member sha name <<<"$entry"
    sha_ok "$DEST/$name" "$sha" || return 1
  done
  [ -f "$DEST/copyright" ]
}

fetch_deb() {
  if sha_ok "$DEB" "$DEB_SHA256"; then
    return 0
  fi
  log "downloading $PACKAGE $VERSION (apt-get download; not installed)"
  local tmp
  tmp=$(mktemp -d)
  # apt-get download needs the package lists; a fresh machine may have none yet.
  if ! (cd "$tmp" && apt-get download -q "$PACKAGE=$VERSION" >/dev/null 2>&1); then
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
    (cd "$tmp" && apt-get download -q "$PACKAGE=$VERSION")
  fi
  mkdir -p "$DOWNLOADS"
  mv "$tmp"/"${PACKAGE}"_*_all.deb "$DEB"
  rm -rf "$tmp"
  if ! sha_ok "$DEB" "$DEB_SHA256"; then
    echo "error: $DEB does not match sha256 $DEB_SHA256" >&2
    rm -f "$DEB"
    return 1
  fi
}

if all_present; then
  exit 0
fi
fetch_deb
log "unpacking the speech clips into ${DEST#"$ROOT"/}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
dpkg -x "$DEB" "$TMP"
mkdir -p "$DEST"
for entry in "${FILES[@]}"; do
  read -r member sha name <<<"$entry"
  if ! sha_ok "$TMP/$member" "$sha"; then
    echo "error: $member in $DEB does not match sha256 $sha" >&2
    exit 1
  fi
  cp "$TMP/$member" "$DEST/$name.tmp"
  mv "$DEST/$name.tmp" "$DEST/$name"
done
cp "$TMP/usr/share/doc/$PACKAGE/copyright" "$DEST/copyright"
