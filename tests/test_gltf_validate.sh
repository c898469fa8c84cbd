#!/usr/bin/env bash
# The glTF writer against the Khronos glTF validator (npm gltf-validator, run
# under Node by tests/reference/validate.mjs).  test_gltf_write writes every
# shared asset four ways (GLB and .gltf + .bin, plain and quantized) into a
# temporary folder (MN_WRITE_OUT), test_gltf_extensions a model with lights,
# hidden nodes, instancing and variants the same four ways, and every file
# must validate with no error and no warning of the writer's own: a warning is
# allowed only where the source asset has the same one at the same place (validate.mjs explains; the shared
# assets have one kind, NODE_SKINNED_MESH_NON_ROOT).  Infos are allowed.
# Then the check must be able to fail: a written file with one accessor bound
# moved must be refused.
#
# Needs node and the pinned npm package gltf-validator in tests/reference/node_modules;
# `make check` installs both through scripts/deps.  Missing, the test FAILS.
# Without the sample assets (tests/support/assets.sh) the test is skipped, or
# fails under MN_REQUIRE_ASSETS=1.
# usage: test_gltf_validate.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cd "$src"
. tests/support/assets.sh

if ! command -v node >/dev/null 2>&1; then
  echo "test_gltf_validate: FAILED: node is not installed (run scripts/deps, which installs nodejs and npm)"
  exit 1
fi
package=tests/reference/node_modules/gltf-validator/package.json
if [ ! -f "$package" ]; then
  echo "test_gltf_validate: FAILED: the npm package gltf-validator is missing from tests/reference/node_modules"
  echo "test_gltf_validate: (run scripts/deps, which runs: npm ci --prefix tests/reference)"
  exit 1
fi
want=$(node -e 'console.log(require(process.argv[1]).packages["node_modules/gltf-validator"].version)' \
       "$src/tests/reference/package-lock.json")
have=$(node -e 'console.log(require(process.argv[1]).version)' "$src/$package")
if [ "$want" != "$have" ]; then
  echo "test_gltf_validate: FAILED: tests/reference has gltf-validator $have installed, package-lock.json pins $want"
  echo "test_gltf_validate: (run: npm ci --prefix tests/reference)"
  exit 1
fi
writer=$build/tests/test_gltf_write
[ -x "$writer" ] || writer=$build/test_gltf_write
if [ ! -x "$writer" ]; then
  echo "test_gltf_validate: FAILED: test_gltf_write is not built in $build"
  exit 1
fi

need_assets "$build" test_gltf_validate

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/out"
if ! MN_WRITE_OUT="$work/out" "$writer" >"$work/log" 2>&1; then
  echo "test_gltf_validate: FAILED: test_gltf_write failed while writing the files:"
  cat "$work/log"
  exit 1
fi
# And a model with the four scene extensions (lights, visibility, instancing, variants), written
# the same four ways by test_gltf_extensions.
extensions=$build/tests/test_gltf_extensions
[ -x "$extensions" ] || extensions=$build/test_gltf_extensions
if ! MN_BUILD_DIR="$build" MN_WRITE_OUT="$work/out" "$extensions" >"$work/log" 2>&1; then
  echo "test_gltf_validate: FAILED: test_gltf_extensions failed while writing its files:"
  cat "$work/log"
  exit 1
fi
[ -f "$work/out/extensions-glb/model.glb" ] || { echo "test_gltf_validate: FAILED: test_gltf_extensions wrote no file"; exit 1; }
files=$(find "$work/out" -name '*.glb' -o -name '*.gltf' | wc -l)
if [ "$files" -lt 200 ]; then
  echo "test_gltf_validate: FAILED: test_gltf_write wrote only $files files (expected 4 per shared asset)"
  exit 1
fi

echo "test_gltf_validate: gltf-validator $have, node $(node --version), $files files"
failed=0
if ! node tests/reference/validate.mjs "$work/out" >"$work/report" 2>&1; then
  grep -v '^validate: ok' "$work/report" | grep -v 'inherited' || true
  failed=1
fi
grep '^    warning (inherited' "$work/report" | sed 's/ at .*//' | sort | uniq -c | sed 's/^/test_gltf_validate: /' || true
tail -n 1 "$work/report"

# The check must be able to fail: Box written as .gltf, its POSITION max moved by 1.
box=$(find "$work/out" -path '*Box_glTF-Binary_Box_glb-gltf/model.gltf')
mkdir "$work/broken"
cp "$(dirname "$box")/model.bin" "$work/broken/"
node -e 'const fs = require("fs"); const g = JSON.parse(fs.readFileSync(process.argv[1]));
         const a = g.accessors[g.meshes[0].primitives[0].attributes.POSITION]; a.max[0] += 1;
         fs.writeFileSync(process.argv[2], JSON.stringify(g));' "$box" "$work/broken/model.gltf"
if node tests/reference/validate.mjs "$work/broken" >"$work/broken.txt" 2>&1; then
  echo "test_gltf_validate: FAILED: a file with a wrong accessor max passed the validator:"
  cat "$work/broken.txt"
  failed=1
elif ! grep -q 'ACCESSOR_MAX_MISMATCH' "$work/broken.txt"; then
  echo "test_gltf_validate: FAILED: the broken file was refused, but not for its max:"
  cat "$work/broken.txt"
  failed=1
else
  echo "test_gltf_validate: a wrong accessor max is caught: $(grep -m1 ACCESSOR_MAX_MISMATCH "$work/broken.txt" | cut -c1-120)"
fi

if [ "$failed" -ne 0 ]; then
  echo "test_gltf_validate: FAILED"
  exit 1
fi
echo "test_gltf_validate: all $files written files pass the Khronos validator"
