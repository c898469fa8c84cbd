#!/usr/bin/env bash
# `marionette export` end to end, against the two outside references:
#   - every file it writes here (rigged GLB, rigged .gltf at another scale and
#     rate, the skinned kind, a static mesh, a run record's resolved rig) passes
#     the Khronos glTF validator (tests/reference/validate.mjs) with no error
#     and NO warning;
#   - each exported model plays in three.js (tests/reference/export_check.mjs):
#     its clips load into an AnimationMixer, and at the rest pose and 13 times
#     of every clip (between baked keys as well as on them) every part node's
#     world, and for the skinned kind every skinned vertex, match
#     `marionette sample rig.json --json` (mn_voxel_pose) within 1e-4 of the
#     model's size;
#   - the checks can fail: samples taken 50 ms off must be refused;
#   - errors: a missing part mesh, a bad rig, a bad command line give exit
#     1 / 1 / 2, name the file, and leave no file behind.
#
# Needs node with the pinned npm packages three and gltf-validator in
# tests/reference/node_modules (`make check` installs them through scripts/deps).
# Missing, the test FAILS.
# usage: test_export.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
. "$2/tests/support/cli_test.sh" test_export "$1" "$2" three gltf-validator
out=$work/out
mkdir "$out"
arm=tests/data/voxel_arm

run() { "$mn" "$@" >"$work/log" 2>&1 || { cat "$work/log"; fail "marionette $*"; }; }
run export --rig $arm/rig.json --meshes $arm/meshes/ --out "$out/arm.glb"
run export --rig $arm/rig.json --meshes $arm/meshes --out "$out/arm_big.gltf" --scale 2 --rate 30
run export --rig $arm/skinned/rig.json --out "$out/skinned.glb"
run export --meshes $arm/meshes/upper.glb --out "$out/static.glb"
printf '{"run": 1, "rig": %s}\n' "$(cat $arm/rig.json)" >"$work/record.json"
run export --rig "$work/record.json" --meshes $arm/meshes --out "$out/record.gltf"
for f in arm.interface.json arm_big.interface.json skinned.interface.json record.interface.json arm_big.bin; do
  [ -f "$out/$f" ] || fail "export did not write $f"
done
[ ! -e "$out/static.interface.json" ] || fail "a static export wrote an interface.json"

# The Khronos validator: no errors, no warnings (no source.txt: nothing is inherited).
failed=0
if ! node tests/reference/validate.mjs "$out" >"$work/report" 2>&1; then
  cat "$work/report"
  failed=1
fi
tail -n 1 "$work/report"
grep -q ' 0 warnings of which' "$work/report" || { echo "test_export: the validator reported warnings"; failed=1; }

# Samples of the rig: the rest pose, then 13 times of each animation (12 spread
# by the golden ratio, which never land on a baked key, and the end).
samples() {   # RIG OUTFILE [SHIFT_MS]
  local rig=$1 file=$2 shift_ms=${3:-0}
  : >"$file"
  "$mn" sample "$rig" --json >>"$file"
  echo >>"$file"
  node -e 'const fs = require("fs"); let d = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
           if (!d.parts && d.rig) d = d.rig;
           for (const a of d.animations || []) {
             let dur = a.duration_ms;
             if (dur === undefined) dur = Math.max(...a.tracks.flatMap((t) => t.keys.map((k) => k.t)));
             for (let i = 1; i <= 12; i++) console.log(a.name, (dur * ((i * 0.6180339887) % 1)).toFixed(3));
             console.log(a.name, dur);
           }' "$rig" |
  while read -r name ms; do
    "$mn" sample "$rig" --anim "$name" --time-ms "$ms" --json >"$work/one.json"
    if [ "$shift_ms" != 0 ]; then
      node -e 'const fs = require("fs"); const s = JSON.parse(fs.readFileSync(process.argv[1]));
               s.time_ms += Number(process.argv[2]); console.log(JSON.stringify(s));' "$work/one.json" "$shift_ms"
    else
      cat "$work/one.json"; echo
    fi
  done >>"$file"
}

check() {   # MODEL RIG [MESH]
  local model=$1 rig=$2 mesh=${3:-}
  samples "$rig" "$work/samples.jsonl"
  if ! node tests/reference/export_check.mjs "$model" "$rig" "$work/samples.jsonl" $mesh; then
    failed=1
  fi
}
check "$out/arm.glb" $arm/rig.json
check "$out/arm_big.gltf" $arm/rig.json
check "$out/skinned.glb" $arm/skinned/rig.json $arm/skinned/mesh.glb
check "$out/record.gltf" "$work/record.json"

# The three.js check can fail: poses 50 ms off must not match.
samples $arm/rig.json "$work/shifted.jsonl" 50
if node tests/reference/export_check.mjs "$out/arm.glb" $arm/rig.json "$work/shifted.jsonl" >"$work/shifted.txt" 2>&1; then
  echo "test_export: FAILED: samples 50 ms off passed the three.js check"; failed=1
else
  echo "test_export: samples 50 ms off are caught: $(grep -m1 MISMATCH "$work/shifted.txt" | cut -c1-110)"
fi

# Errors: exit status, the file named, nothing left behind.
mkdir -p "$work/broken/meshes" "$work/empty"
cp $arm/rig.json "$work/broken/"
cp $arm/meshes/base.glb $arm/meshes/upper.glb $arm/meshes/fore.glb "$work/broken/meshes/"
set +e
"$mn" export --rig "$work/broken/rig.json" --out "$work/empty/x.glb" 2>"$work/err"; rc=$?
set -e
[ $rc -eq 1 ] || { echo "test_export: FAILED: missing part mesh gave exit $rc"; failed=1; }
grep -q 'tip.glb (part "tip")' "$work/err" || { echo "test_export: FAILED: message: $(cat "$work/err")"; failed=1; }
cp $arm/meshes/tip.glb "$work/broken/meshes/"
sed 's/"rest": 0.5/"rest": 7/' $arm/rig.json >"$work/broken/rig.json"
set +e
"$mn" export --rig "$work/broken/rig.json" --out "$work/empty/x.glb" 2>"$work/err"; rc=$?
set -e
[ $rc -eq 1 ] || { echo "test_export: FAILED: an invalid rig gave exit $rc"; failed=1; }
grep -q 'rig.json.*joints\[2\]' "$work/err" || { echo "test_export: FAILED: message: $(cat "$work/err")"; failed=1; }
set +e
"$mn" export --rig $arm/rig.json --out "$work/empty/x.obj" 2>/dev/null; rc=$?
"$mn" export --rig $arm/rig.json --scale -1 --out "$work/empty/x.glb" 2>/dev/null; rc2=$?
set -e
[ $rc -eq 2 ] && [ $rc2 -eq 2 ] || { echo "test_export: FAILED: bad command lines gave exit $rc and $rc2"; failed=1; }
[ -z "$(ls -A "$work/empty")" ] || { echo "test_export: FAILED: files left behind: $(ls "$work/empty")"; failed=1; }

if [ "$failed" -ne 0 ]; then
  echo "test_export: FAILED"
  exit 1
fi
echo "test_export: every exported file passes the validator with no warning and plays in three.js like the rig"
