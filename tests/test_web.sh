#!/usr/bin/env bash
# The WebAssembly build (scripts/web-build, `make web`) against the native library, in Node:
# tests/web/check_wasm.mjs loads a model through the JavaScript API, plays its first clip and
# compares the skinned positions at three times with `marionette sample --json`'s, within 1e-5
# of the model's size, then checks the API's errors, .gltf files and freeing.  It runs on the
# demo GLB the build writes (always) and on CesiumMan from the sample assets (skipped, and
# named, without them).  tests/web/check_graph.mjs then checks blend trees and state machines
# (rig.blendTree, rig.stateMachine, instance.drive) on the same models against plain playback.
# First, tests/web/skin_check.c (compiled with emcc over the web build's library, run in Node)
# holds the WebAssembly skinning kernel to the scalar reference on random data in every layout.
#
# Needs Debian's emscripten and node-acorn, which scripts/deps installs: missing, the test
# FAILS.  The web build lives in build/web of the checkout (one for the release, ASan and scalar
# runs of make check: the first run builds it, the others find it built).
# usage: test_web.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cd "$src"
. tests/support/assets.sh
. tests/support/web_build.sh

web_build test_web "$build" "$src"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
check() { # NAME MODEL [GLTF]
  local name=$1 model=$2 gltf=${3:-}
  if ! "$build/marionette" sample "$model" --json --clip 0 --times 0.5,1,1.5 --skinned \
       >"$work/$name.json" 2>"$work/stderr"; then
    echo "test_web: FAILED: marionette sample $model:"; cat "$work/stderr"
    failed=$((failed + 1)); return
  fi
  node tests/web/check_wasm.mjs "$web" "$model" "$work/$name.json" $gltf || failed=$((failed + 1))
  node tests/web/check_graph.mjs "$web" "$model" || failed=$((failed + 1))
}

# The web build's skinning kernel against the scalar reference, in WebAssembly (skin_check.c).
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH} # emcc's optimiser needs Debian's acorn
if emcc -O2 -std=c11 -Wall -Wextra -Werror -msimd128 -sSINGLE_FILE=1 -Iinclude -Itests \
     tests/web/skin_check.c "$web/lib/libmarionette.a" "$web/deps/lib/libjansson.a" \
     "$web/deps/lib/libmd.a" "$web/deps/lib/libmeshoptimizer.a" -o "$work/skin_check.js" \
     >"$work/emcc.log" 2>&1; then
  node "$work/skin_check.js" || failed=$((failed + 1))
else
  echo "test_web: FAILED: emcc tests/web/skin_check.c:"; cat "$work/emcc.log"; failed=$((failed + 1))
fi

"$build/make_demo_glb" "$work/demo.glb" >/dev/null
check demo "$work/demo.glb"
if assets_present; then
  check cesium "$assets/gltf/CesiumMan/glTF-Binary/CesiumMan.glb" \
        "$assets/gltf/CesiumMan/glTF/CesiumMan.gltf"
else
  assets_skip "$build" test_web/CesiumMan
fi
[ "$failed" -eq 0 ] || { echo "test_web: $failed check(s) FAILED"; exit 1; }
echo "test_web: passed"
