#!/usr/bin/env bash
# marionette against three.js: every shared asset with skins, node animation or
# morph targets is sampled by `marionette sample --json` (rest pose, then every
# clip at keys+mid: each key time, the midpoints between them, and 0.25 s
# outside both ends) and by three.js's GLTFLoader + AnimationMixer in Node
# (tests/reference/crosscheck.mjs, which explains the comparison and the places
# where three.js departs from glTF).  Node world matrices, morph weights and
# skinned, morphed vertex positions must agree within 1e-5 of the model's size.
#
# Needs node and the pinned npm package `three` in tests/reference/node_modules;
# `make check` installs both through scripts/deps.  Missing, the test FAILS:
# a cross-check that quietly does not run proves nothing.  Without the sample
# assets (tests/support/assets.sh) the test is skipped, or fails under
# MN_REQUIRE_ASSETS=1.
# usage: test_crosscheck.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cd "$src"
. tests/support/assets.sh

if ! command -v node >/dev/null 2>&1; then
  echo "test_crosscheck: FAILED: node is not installed (run scripts/deps, which installs nodejs and npm)"
  exit 1
fi
if [ ! -f tests/reference/node_modules/three/package.json ]; then
  echo "test_crosscheck: FAILED: the npm package three is missing from tests/reference/node_modules"
  echo "test_crosscheck: (run scripts/deps, which runs: npm ci --prefix tests/reference)"
  exit 1
fi
want=$(node -e 'console.log(require(process.argv[1]).packages["node_modules/three"].version)' \
       "$src/tests/reference/package-lock.json")
have=$(node -e 'console.log(require(process.argv[1]).version)' \
       "$src/tests/reference/node_modules/three/package.json")
if [ "$want" != "$have" ]; then
  echo "test_crosscheck: FAILED: tests/reference has three $have installed, package-lock.json pins $want"
  echo "test_crosscheck: (run: npm ci --prefix tests/reference)"
  exit 1
fi

need_assets "$build" test_crosscheck

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gltf=$assets/gltf
models=(
  SimpleSkin/glTF/SimpleSkin.gltf
  RiggedSimple/glTF-Binary/RiggedSimple.glb
  RiggedFigure/glTF/RiggedFigure.gltf
  CesiumMan/glTF-Binary/CesiumMan.glb
  AnimatedTriangle/glTF-Embedded/AnimatedTriangle.gltf
  AnimatedCube/glTF/AnimatedCube.gltf
  BoxAnimated/glTF-Binary/BoxAnimated.glb
  InterpolationTest/glTF-Binary/InterpolationTest.glb
  SimpleMorph/glTF/SimpleMorph.gltf
  AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb
  AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf
  MorphPrimitivesTest/glTF/MorphPrimitivesTest.gltf
)

echo "test_crosscheck: three.js $have, node $(node --version)"
failed=0
for m in "${models[@]}"; do
  file=$gltf/$m
  if [ ! -f "$file" ]; then
    echo "test_crosscheck: FAILED: $file is missing from the sample assets"
    failed=$((failed + 1))
    continue
  fi
  if ! "$build/marionette" sample "$file" --json --rest --clip all --times keys+mid \
       --vertices deformed >"$work/sample.json" 2>"$work/stderr"; then
    echo "test_crosscheck: FAILED: marionette sample $file exited non-zero:"
    cat "$work/stderr"
    failed=$((failed + 1))
    continue
  fi
  if ! node tests/reference/crosscheck.mjs "$file" "$work/sample.json"; then
    echo "test_crosscheck: FAILED: $m does not agree with three.js (see above)"
    failed=$((failed + 1))
  fi
done

# Every adjustment of three.js to glTF (see crosscheck.mjs) on a model made to need each one:
# the cross-check must pass and report all four.
departures=$(node tests/reference/departures.mjs "$work")
if ! "$build/marionette" sample "$departures" --json --rest --clip all --times keys+mid \
     --vertices deformed >"$work/departures.json" 2>"$work/stderr"; then
  echo "test_crosscheck: FAILED: marionette sample on the departures model:"; cat "$work/stderr"
  failed=$((failed + 1))
elif ! node tests/reference/crosscheck.mjs "$departures" "$work/departures.json" >"$work/out" 2>&1; then
  echo "test_crosscheck: FAILED: the departures model does not agree with three.js:"; cat "$work/out"
  failed=$((failed + 1))
else
  cat "$work/out"
  for note in "sampled node rotations three.js left off unit length" \
              "gave 1 morph targets without POSITION a zero delta" \
              "clamped 1 signed normalised animation minima" \
              "SKIPPED positions of node 1 mesh 1 primitive 0 (JOINTS_1"; do
    if ! grep -qF "$note" "$work/out"; then
      echo "test_crosscheck: FAILED: the departures model's report lacks: $note"
      failed=$((failed + 1))
    fi
  done
fi

# The checker must be able to fail: a sample moved by 1e-3 of the model's size
# (100 times the tolerance) in one vertex, one matrix element and one weight
# must each be caught, and named.
check_catches() {   # FILE WHAT JS-EXPRESSION-THAT-BREAKS-s
  "$build/marionette" sample "$1" --json --rest --clip all --times keys+mid \
      --vertices deformed >"$work/good.json"
  node -e 'const fs = require("fs"); const s = JSON.parse(fs.readFileSync(process.argv[1]));
           '"$3"'; fs.writeFileSync(process.argv[2], JSON.stringify(s));' \
       "$work/good.json" "$work/bad.json"
  if node tests/reference/crosscheck.mjs "$1" "$work/bad.json" >"$work/out" 2>&1; then
    echo "test_crosscheck: FAILED: a broken $2 passed the cross-check:"; cat "$work/out"
    failed=$((failed + 1))
  elif ! grep -q "MISMATCH: $2" "$work/out"; then
    echo "test_crosscheck: FAILED: a broken $2 was not named:"; cat "$work/out"
    failed=$((failed + 1))
  else
    echo "test_crosscheck: a broken $2 is caught: $(grep -m1 "MISMATCH: $2" "$work/out" | cut -c1-160)"
  fi
}
check_catches "$gltf/SimpleSkin/glTF/SimpleSkin.gltf" positions \
  's.samples[3].primitives[0].positions[7] += 2e-3'
check_catches "$gltf/SimpleSkin/glTF/SimpleSkin.gltf" "world matrices (translation)" \
  's.samples[2].world_matrices[2][13] += 2e-3'
check_catches "$gltf/AnimatedMorphCube/glTF-Binary/AnimatedMorphCube.glb" "morph weights" \
  's.samples[5].morph_weights[0].weights[1] += 1e-3'

if [ "$failed" -ne 0 ]; then
  echo "test_crosscheck: $failed of ${#models[@]} models FAILED"
  exit 1
fi
echo "test_crosscheck: all ${#models[@]} models agree with three.js"
