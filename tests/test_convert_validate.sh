#!/usr/bin/env bash
# `marionette convert` against the Khronos glTF validator: whatever the reader accepts, convert
# writes (as .glb and as .gltf + .bin) a file the validator finds no error in, and no warning the
# source does not have itself (tests/reference/validate.mjs, through a source.txt beside each
# output).  The inputs:
#   - every .glb and .gltf of the sample assets ($assets/gltf): each must be accepted;
#   - every broken file of $assets/invalid: those the reader refuses are listed as refused, those
#     it accepts (with warnings) must convert to valid files;
#   - every seed of fuzz/corpus/gltf (no assets needed): the same rule as the broken files.
# Then what convert must keep and say: the seeds with EXT_mesh_gpu_instancing and the other scene
# extensions convert without a warning, keeping their instances; the seed whose KHR_draco_mesh_compression data is not Draco is refused naming it
# (a build without libdraco warns instead, and reads its uncompressed accessor), and the seeds
# with key times glTF forbids are refused, naming the key.  The Draco seeds convert decoded.
#
# Needs node and the pinned npm package gltf-validator in tests/reference/node_modules
# (scripts/deps); missing, the test FAILS.  Without the sample assets their parts are skipped
# and named (tests/support/assets.sh); the seeds still run.
# usage: test_convert_validate.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cd "$src"
. tests/support/assets.sh

name=test_convert_validate
if ! command -v node >/dev/null 2>&1 || [ ! -f tests/reference/node_modules/gltf-validator/package.json ]; then
  echo "$name: FAILED: node or the npm package gltf-validator is missing (run scripts/deps)"
  exit 1
fi
tool=$build/marionette
[ -x "$tool" ] || { echo "$name: FAILED: $tool is not built"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
converted=0
refused=()

# convert_both SOURCE MUST_ACCEPT: SOURCE written as GLB and as .gltf under $work/out.
convert_both() {
  local source=$1 must=$2 key ext dir
  key=$(echo "${source#"$src"/}" | tr '/.' '__')
  if ! "$tool" info "$source" >/dev/null 2>"$work/info.err"; then
    if [ "$must" = 1 ]; then
      echo "$name: FAILED: the reader refuses $source: $(cat "$work/info.err")"
      failed=1
    else
      refused+=("$source")
    fi
    return 0
  fi
  for ext in glb gltf; do
    dir=$work/out/$key-$ext
    mkdir -p "$dir"
    echo "$source" >"$dir/source.txt"
    if ! "$tool" convert "$source" "$dir/model.$ext" >"$dir/convert.out" 2>"$dir/convert.err"; then
      echo "$name: FAILED: convert $source to .$ext: $(cat "$dir/convert.err")"
      failed=1
    fi
    converted=$((converted + 1))
  done
}

if assets_present; then
  while IFS= read -r f; do convert_both "$f" 1; done < <(find "$assets/gltf" -name '*.glb' -o -name '*.gltf' | sort)
  samples=$converted
  while IFS= read -r f; do convert_both "$f" 0; done < <(find "$assets/invalid" -name '*.glb' -o -name '*.gltf' | sort)
  echo "$name: $((samples / 2)) sample assets converted; broken files accepted: $(((converted - samples) / 2))," \
       "refused by the reader: ${#refused[@]}"
else
  assets_skip "$build" "$name/sample-assets"
  assets_skip "$build" "$name/invalid"
fi
before=$converted
for f in fuzz/corpus/gltf/*.glb fuzz/corpus/gltf/*.gltf; do convert_both "$src/$f" 0; done
echo "$name: $(((converted - before) / 2)) fuzz seeds converted"
for r in "${refused[@]}"; do echo "$name: refused by the reader (not converted): ${r#"$src"/}"; done

if ! node tests/reference/validate.mjs "$work/out" >"$work/report" 2>&1; then
  grep -v '^validate: ok' "$work/report" | grep -v 'inherited' || true
  echo "$name: FAILED: the validator finds errors (or new warnings) in what convert wrote"
  failed=1
fi
tail -n 1 "$work/report"

# What convert keeps (the scene extensions: no warning, the instances still there), and the
# key times it refuses.
for seed in gpu_instancing.gltf scene_extensions.gltf; do
  dir=$work/out/$(echo "$src/fuzz/corpus/gltf/$seed" | sed "s|^$src/||" | tr '/.' '__')-glb
  if [ -s "$dir/convert.err" ]; then
    echo "$name: FAILED: convert $seed warns: $(cat "$dir/convert.err")"
    failed=1
  fi
  if ! "$tool" info "$dir/model.glb" | grep -q 'instances\]'; then
    echo "$name: FAILED: convert $seed dropped the EXT_mesh_gpu_instancing instances"
    failed=1
  fi
done
if grep -q '^MN_WITH_DRACO:INTERNAL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  if "$tool" convert fuzz/corpus/gltf/draco_used.gltf "$work/refused.glb" 2>"$work/refused.err"; then
    echo "$name: FAILED: convert accepted draco_used.gltf, whose Draco data does not decode"
    failed=1
  elif ! grep -q 'KHR_draco_mesh_compression.bufferView: .*does not decode\|KHR_draco_mesh_compression.bufferView: .*not Draco' "$work/refused.err"; then
    echo "$name: FAILED: convert refused draco_used.gltf without naming the Draco data: $(cat "$work/refused.err")"
    failed=1
  fi
elif "$tool" convert fuzz/corpus/gltf/draco_used.gltf "$work/refused.glb" 2>"$work/refused.err"; then
  echo "$name: FAILED: a build without Draco converted draco_used.gltf, whose POSITION is only compressed"
  failed=1
elif ! grep -q 'KHR_draco_mesh_compression: .*no Draco decoder' "$work/refused.err"; then
  echo "$name: FAILED: convert refused draco_used.gltf without saying the build has no Draco decoder: $(cat "$work/refused.err")"
  failed=1
fi
for seed in keys_negative.gltf keys_not_increasing.gltf; do
  if "$tool" convert "fuzz/corpus/gltf/$seed" "$work/refused.glb" 2>"$work/refused.err"; then
    echo "$name: FAILED: convert accepted $seed, whose key times glTF forbids"
    failed=1
  elif ! grep -q 'animations\[0\].samplers\[0\].input: key [0-9]' "$work/refused.err"; then
    echo "$name: FAILED: convert refused $seed without naming the key: $(cat "$work/refused.err")"
    failed=1
  fi
done

if [ "$failed" -ne 0 ]; then
  echo "$name: FAILED"
  exit 1
fi
echo "$name: all $converted converted files pass the Khronos validator"
