#!/usr/bin/env bash
# Draco-compressed sample models against their uncompressed source.  Each model below is
# encoded from the shared assets with gltf-transform (npm @gltf-transform/cli with
# draco3dgltf, pinned in tests/reference/package-lock.json) at explicit quantisation bits,
# into a temporary folder; test_gltf_draco (MN_DRACO_DIR) then reads each one and its source
# and requires every decoded vertex to match a source vertex within the quantisation step.
# The bits here are the ones tests/test_gltf_draco.c's BITS_* state.  Two sources are made
# first: CesiumMan quantized (integer accessors of every kind) and Box with generic attributes.
#
# Needs node and the npm packages; `make check` installs them through scripts/deps.  Missing,
# the test FAILS.  A build without libdraco has nothing to compare (test_gltf_draco checks
# that it refuses such files) and passes.  Without the sample assets the test is skipped.
# usage: test_gltf_draco_models.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cd "$src"
. tests/support/assets.sh
name=test_gltf_draco_models

if ! grep -q '^MN_WITH_DRACO:INTERNAL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "$name: this build has no Draco decoder; test_gltf_draco checks that it refuses Draco files"
  exit 0
fi
if ! command -v node >/dev/null 2>&1; then
  echo "$name: FAILED: node is not installed (run scripts/deps, which installs nodejs and npm)"
  exit 1
fi
gt=tests/reference/node_modules/.bin/gltf-transform
if [ ! -x "$gt" ] || [ ! -d tests/reference/node_modules/draco3dgltf ]; then
  echo "$name: FAILED: the npm packages @gltf-transform/cli and draco3dgltf are missing from tests/reference"
  echo "$name: (run scripts/deps, which runs: npm ci --prefix tests/reference)"
  exit 1
fi
binary=$build/tests/test_gltf_draco
[ -x "$binary" ] || binary=$build/test_gltf_draco
if [ ! -x "$binary" ]; then
  echo "$name: FAILED: test_gltf_draco is not built in $build"
  exit 1
fi
need_assets "$build" "$name"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

models="Box/glTF-Binary/Box.glb BoxTextured/glTF-Binary/BoxTextured.glb
        BoxVertexColors/glTF-Binary/BoxVertexColors.glb CesiumMan/glTF-Binary/CesiumMan.glb
        AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb
        MorphPrimitivesTest/glTF-Binary/MorphPrimitivesTest.glb MultiUVTest/glTF-Binary/MultiUVTest.glb
        AnimatedCube/glTF/AnimatedCube.gltf"
for rel in $models; do
  model=${rel%%/*}
  if ! "$gt" draco "$assets/gltf/$rel" "$work/$model.glb" --quantize-position 14 --quantize-normal 10 \
       --quantize-texcoord 12 --quantize-color 8 --quantize-generic 12 >"$work/$model.log" 2>&1; then
    echo "$name: FAILED: gltf-transform could not encode $rel:"
    cat "$work/$model.log"
    exit 1
  fi
done
# Sources made here: CesiumMan quantized (KHR_mesh_quantization: normalized SHORT positions
# and normals, UNSIGNED_SHORT uvs, UNSIGNED_BYTE weights and joints), and Box with two
# application-specific attributes (tests/reference/add_generic.mjs: a float and a u16 VEC2).
mkdir "$work/src"
if ! "$gt" quantize "$assets/gltf/CesiumMan/glTF-Binary/CesiumMan.glb" "$work/src/CesiumManQuantized.glb" \
     >"$work/quantize.log" 2>&1 ||
   ! node tests/reference/add_generic.mjs "$assets/gltf/Box/glTF-Binary/Box.glb" "$work/src/BoxGeneric.glb" \
     >"$work/generic.log" 2>&1; then
  echo "$name: FAILED: could not make the quantized or generic source:"
  cat "$work/quantize.log" "$work/generic.log"
  exit 1
fi
for model in CesiumManQuantized BoxGeneric; do
  if ! "$gt" draco "$work/src/$model.glb" "$work/$model.glb" --quantize-position 14 --quantize-normal 10 \
       --quantize-texcoord 12 --quantize-color 8 --quantize-generic 12 >"$work/$model.log" 2>&1; then
    echo "$name: FAILED: gltf-transform could not encode $model:"
    cat "$work/$model.log"
    exit 1
  fi
done
MN_DRACO_DIR=$work "$binary"
