#!/usr/bin/env bash
# `marionette convert IN OUT` over every input kind, against the Khronos glTF
# validator (tests/reference/validate.mjs): no error and no warning of the
# converter's own in any file it writes.
#   - OBJ + MTL made here (two materials, one with a map_Kd texture whose name
#     has a space, a translucent one, a group before any usemtl, a quad,
#     negative indices), to GLB and to .gltf + .bin, the texture beside it;
#   - the shared pirate.obj (its MTL is missing: default materials, a warning);
#   - shared glTF/GLB assets (external buffers, embedded data, textures,
#     strips and fans, sparse, meshopt, quantized input, skins, morph targets),
#     each to the other container, some with --quantize.  A warning the
#     source asset itself has at the same place is inherited, not made here
#     (source.txt beside the output names it, as validate.mjs explains);
#   - a voxel rig.json with its meshes (through the exporter);
#   - errors: a missing input and a malformed OBJ exit 1 naming the file (and
#     line), a wrong output name exits 2, and no file is left behind.
# Without the sample assets (tests/support/assets.sh) the pirate and the glTF
# assets are skipped (or, under MN_REQUIRE_ASSETS=1, the test fails) and the rest runs.
# Needs node and the pinned npm package gltf-validator in tests/reference/node_modules.
# usage: test_convert.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
. "$2/tests/support/cli_test.sh" test_convert "$1" "$2" gltf-validator
out=$work/out
mkdir -p "$out" "$work/obj"

run() { "$mn" convert "$@" >"$work/log" 2>&1 || { cat "$work/log"; fail "marionette convert $*"; }; }

# ---- an OBJ with its MTL and texture ----
cat >"$work/obj/crate.obj" <<'EOF'
# made by test_convert.sh
mtllib crate.mtl
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
vt 0 0
vt 1 0
vt 1 1
vt 0 1
vn 0 0 1
f 1 2 5
usemtl wood
f 1/1/1 2/2/1 3/3/1 4/4/1
usemtl glass
f -5/-4 -4/-3 -3/-2
EOF
cat >"$work/obj/crate.mtl" <<'EOF'
newmtl wood
Kd 0.6 0.4 0.2
map_Kd old wood.png
newmtl glass
Kd 0.8 0.9 1
d 0.4
Ns 50
EOF
# A 2x2 PNG (zlib from node).
node -e 'const zlib = require("zlib"), fs = require("fs");
  const crc = (b) => { let c = ~0; for (const x of b) { c ^= x; for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xEDB88320 & -(c & 1)); } return ~c >>> 0; };
  const chunk = (t, d) => { const l = Buffer.alloc(4); l.writeUInt32BE(d.length); const td = Buffer.concat([Buffer.from(t), d]);
                            const c = Buffer.alloc(4); c.writeUInt32BE(crc(td)); return Buffer.concat([l, td, c]); };
  const ihdr = Buffer.alloc(13); ihdr.writeUInt32BE(2, 0); ihdr.writeUInt32BE(2, 4); ihdr[8] = 8; ihdr[9] = 2;
  const raw = Buffer.from([0, 200, 150, 90, 120, 80, 40, 0, 120, 80, 40, 200, 150, 90]);
  fs.writeFileSync(process.argv[1], Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr), chunk("IDAT", zlib.deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]));' "$work/obj/old wood.png"

mkdir "$out/obj"
cp "$work/obj/old wood.png" "$out/obj/"
run "$work/obj/crate.obj" "$out/obj/crate.glb"
run "$work/obj/crate.obj" "$out/obj/crate.gltf"
run "$work/obj/crate.obj" "$out/obj/crate_q.glb" --quantize
[ -f "$out/obj/crate.bin" ] || fail "the .gltf came without its .bin"
node -e 'const g = JSON.parse(require("fs").readFileSync(process.argv[1]));
  const p = g.meshes[0].primitives, m = g.materials;
  const ok = p.length === 3 && p[0].material === undefined && m[p[1].material].name === "wood" &&
    m[p[2].material].name === "glass" && m[p[2].material].alphaMode === "BLEND" &&
    g.images[g.textures[m[p[1].material].pbrMetallicRoughness.baseColorTexture.index].source].uri === "old%20wood.png";
  if (!ok) { console.log(JSON.stringify(g, null, 1).slice(0, 2000)); process.exit(1); }' "$out/obj/crate.gltf" ||
  fail "crate.gltf does not hold the groups, materials and texture of crate.obj"

# The outputs that must have no warning at all (checked after the validator has run).
clean=(obj/crate.glb obj/crate.gltf obj/crate_q.glb rig/arm.glb)

if assets_present; then
  mkdir "$out/pirate"
  "$mn" convert "$assets/obj/pirate/pirate.obj" "$out/pirate/pirate.glb" >"$work/log" 2>&1 || { cat "$work/log"; fail "pirate"; }
  grep -q 'warning: mtllib "pirate.mtl"' "$work/log" || fail "the missing MTL was not reported: $(cat "$work/log")"
  clean+=(pirate/pirate.glb)
else
  assets_skip "$build" test_convert/pirate
fi

# ---- glTF and GLB assets, each to the other container ----
gltf=$assets/gltf
conversions=(
  "Box/glTF-Binary/Box.glb gltf"
  "Box/glTF/Box.gltf glb"
  "BoxTextured/glTF/BoxTextured.gltf glb"
  "BoxTextured/glTF-Embedded/BoxTextured.gltf gltf"
  "BoxVertexColors/glTF-Binary/BoxVertexColors.glb gltf"
  "MeshPrimitiveModes/glTF/MeshPrimitiveModes.gltf glb"
  "SimpleSparseAccessor/glTF/SimpleSparseAccessor.gltf glb"
  "BoxMeshopt/BoxMeshopt.glb gltf"
  "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf glb"
  "InterpolationTest/glTF-Binary/InterpolationTest.glb gltf"
  "Cameras/glTF/Cameras.gltf glb"
  "RiggedSimple/glTF-Binary/RiggedSimple.glb gltf"
  "CesiumMan/glTF-Binary/CesiumMan.glb glb --quantize"
  "SimpleSkin/glTF/SimpleSkin.gltf glb --quantize"
)
n=0
assets_present || { assets_skip "$build" test_convert/gltf_assets; conversions=(); }
for c in "${conversions[@]}"; do
  read -r file ext opt <<<"$c"
  n=$((n + 1))
  dir="$out/asset$n"
  mkdir "$dir"
  echo "$(cd "$(dirname "$gltf/$file")" && pwd)/$(basename "$file")" >"$dir/source.txt"
  run "$gltf/$file" "$dir/$(basename "${file%.*}").$ext" ${opt:-}
done

# ---- a voxel rig with its meshes ----
mkdir "$out/rig"
run tests/data/voxel_arm/rig.json "$out/rig/arm.glb"
[ -f "$out/rig/arm.interface.json" ] || fail "converting rig.json wrote no interface.json"

files=$(find "$out" -name '*.glb' -o -name '*.gltf' | wc -l)
echo "test_convert: $files files written"
failed=0
if ! node tests/reference/validate.mjs "$out" >"$work/report" 2>&1; then
  grep -v '^validate: ok' "$work/report" | grep -v inherited || true
  failed=1
fi
grep '^    warning (inherited' "$work/report" | sed 's/ at .*//' | sort | uniq -c | sed 's/^/test_convert: /' || true
tail -n 1 "$work/report"
# No warning outside the copied assets' own: the OBJ, pirate and rig outputs have none at all.
for f in "${clean[@]}"; do
  grep -q "ok $out/$f: 0 errors, 0 warnings" "$work/report" || { echo "test_convert: FAILED: $f has warnings"; failed=1; }
done

# ---- errors ----
mkdir "$work/empty"
printf 'v 0 0 0\nv 1 0 0\nf 1 2 9\n' >"$work/bad.obj"
set +e
"$mn" convert "$work/missing.glb" "$work/empty/x.glb" 2>"$work/err1"; r1=$?
"$mn" convert "$work/bad.obj" "$work/empty/x.glb" 2>"$work/err2"; r2=$?
"$mn" convert "$work/obj/crate.obj" "$work/empty/x.obj" 2>/dev/null; r3=$?
"$mn" convert "$work/obj/crate.obj" 2>/dev/null; r4=$?
set -e
[ $r1 -eq 1 ] && grep -q 'missing.glb' "$work/err1" || { echo "test_convert: FAILED: missing input: exit $r1, $(cat "$work/err1")"; failed=1; }
[ $r2 -eq 1 ] && grep -q 'line 3' "$work/err2" || { echo "test_convert: FAILED: bad OBJ: exit $r2, $(cat "$work/err2")"; failed=1; }
[ $r3 -eq 2 ] && [ $r4 -eq 2 ] || { echo "test_convert: FAILED: bad command lines gave exit $r3 and $r4"; failed=1; }
[ -z "$(ls -A "$work/empty")" ] || { echo "test_convert: FAILED: files left behind: $(ls "$work/empty")"; failed=1; }

if [ "$failed" -ne 0 ]; then
  echo "test_convert: FAILED"
  exit 1
fi
echo "test_convert: all $files converted files pass the Khronos validator"
