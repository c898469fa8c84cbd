#!/usr/bin/env bash
# Draco variants of every sample model against its plain glTF variant.  Every model with a
# glTF/ variant is encoded from it in one node process (tests/reference/draco_variants.mjs:
# npm @gltf-transform/core + functions with draco3dgltf, pinned in tests/reference, at the
# bits tests/test_gltf_variants.c states) into a temporary folder; test_gltf_variants
# (MN_VARIANTS_DRACO_DIR) then compares each one's geometry and sampled animation with the
# plain variant, one line per variant.
#
# Skipped by name (exit 77): without the sample assets; without node or the npm packages
# (scripts/deps installs both).  A build without libdraco passes: test_gltf_draco checks that
# it refuses Draco files.
# usage: test_gltf_variants_draco.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cd "$src"
. tests/support/assets.sh
name=test_gltf_variants_draco

if ! grep -q '^MN_WITH_DRACO:INTERNAL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "$name: this build has no Draco decoder; test_gltf_draco checks that it refuses Draco files"
  exit 0
fi
need_assets "$build" "$name"
if ! command -v node >/dev/null 2>&1; then
  echo "$name: skipped: node is not installed (scripts/deps installs nodejs and npm)"
  exit 77
fi
mods=tests/reference/node_modules
if [ ! -d "$mods/@gltf-transform/functions" ] || [ ! -d "$mods/draco3dgltf" ]; then
  echo "$name: skipped: the npm packages @gltf-transform/functions and draco3dgltf are missing from"
  echo "$name: tests/reference (scripts/deps runs: npm ci --prefix tests/reference)"
  exit 77
fi
binary=$build/tests/test_gltf_variants
[ -x "$binary" ] || binary=$build/test_gltf_variants
if [ ! -x "$binary" ]; then
  echo "$name: FAILED: test_gltf_variants is not built in $build"
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pairs=()
for dir in "$assets"/gltf/*/glTF; do
  model=$(basename "$(dirname "$dir")")
  pairs+=("$model=$dir/$model.gltf")
done
if ! node tests/reference/draco_variants.mjs "$work" "${pairs[@]}" >"$work/encode.log" 2>&1; then
  echo "$name: FAILED: gltf-transform could not encode the plain variants:"
  cat "$work/encode.log"
  exit 1
fi
MN_VARIANTS_DRACO_DIR=$work "$binary"
