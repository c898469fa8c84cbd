#!/usr/bin/env bash
# `marionette compress IN OUT.glb --json`: CesiumMan, RiggedFigure, BoxAnimated,
# InterpolationTest (each skipped by name when the assets lack it) written with
# their animations reduced, quantised and meshopt-compressed.  For each:
#   - the JSON has the .mnanim path's seven fields; the error, measured by the
#     command on the file read back, is within the default bound (1e-4 m at a
#     3 cm shell) and the ratio (raw float32 keys / stored animation bytes) > 1;
#   - the file lists EXT_meshopt_compression as used and required, and has a
#     "fallback" buffer, when a view uses it (every model but BoxAnimated, whose
#     few keys the codec cannot shrink, so they stay in plain quantised views);
#   - the Khronos validator finds no error and no warning the source lacks
#     (tests/reference/validate.mjs, source.txt beside the output);
#   - three.js (GLTFLoader + its meshopt decoder) plays it within the bound of
#     the library's sampling of the SOURCE at its keys and midpoints
#     (tests/reference/compress_check.mjs);
#   - .gltf output (+ .bin) reads back the same numbers.
# Needs node and the npm packages three and gltf-validator.
# usage: test_compress_glb.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
. "$2/tests/support/cli_test.sh" test_compress_glb "$1" "$2" three gltf-validator
need_assets "$build" test_compress_glb

check_json() { # FILE.json OUT.glb meshopt|any
  node -e '
    const fs = require("fs");
    const j = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const keys = ["clips", "raw_bytes", "compressed_bytes", "ratio", "max_error_m", "p99_error_m", "shell_m"];
    for (const k of keys) if (typeof j[k] !== "number") throw new Error("no number " + k);
    if (Object.keys(j).length !== keys.length) throw new Error("extra fields");
    if (!(j.clips >= 1)) throw new Error("clips " + j.clips);
    if (Math.abs(j.ratio - j.raw_bytes / j.compressed_bytes) > 1e-6 * j.ratio) throw new Error("ratio");
    if (!(j.ratio > 1)) throw new Error("ratio " + j.ratio + " is not above 1");
    if (!(j.max_error_m <= 1e-4 && j.p99_error_m <= j.max_error_m)) throw new Error("error " + j.max_error_m);
    if (!(j.compressed_bytes < fs.statSync(process.argv[2]).size)) throw new Error("compressed_bytes");
    const b = fs.readFileSync(process.argv[2]);
    const g = JSON.parse(b.subarray(20, 20 + b.readUInt32LE(12)).toString("utf8"));
    const ext = "EXT_meshopt_compression";
    const packed = g.bufferViews.filter((v) => v.extensions && v.extensions[ext]).length;
    if (process.argv[3] === "meshopt" && packed === 0) throw new Error("no meshopt view");
    if (packed && !((g.extensionsUsed || []).includes(ext) && (g.extensionsRequired || []).includes(ext)))
      throw new Error("extensions");
    if (packed && !g.buffers.some((x) => x.extensions && x.extensions[ext] && x.extensions[ext].fallback === true))
      throw new Error("no fallback buffer");
  ' "$1" "$2" "$3" || fail "$1: $(cat "$1")"
}

done_any=0
for name in CesiumMan RiggedFigure BoxAnimated InterpolationTest; do
  in=$assets/gltf/$name/glTF-Binary/$name.glb
  if [ ! -f "$in" ]; then
    echo "test_compress_glb: skipped $name (not in the assets)"
    continue
  fi
  dir=$work/$name
  mkdir -p "$dir"
  "$mn" compress "$in" "$dir/$name.glb" --json >"$dir/out.json" || fail "compress $name"
  # BoxAnimated's few keys gain nothing from the codec: the writer keeps them in plain views.
  check_json "$dir/out.json" "$dir/$name.glb" "$([ $name = BoxAnimated ] && echo any || echo meshopt)"
  echo "$(cd "$(dirname "$in")" && pwd)/$(basename "$in")" >"$dir/source.txt"
  node tests/reference/validate.mjs "$dir/$name.glb" >"$dir/validate.log" 2>&1 ||
    fail "validator on $name: $(cat "$dir/validate.log")"
  "$mn" sample "$in" --json --clip all --times keys+mid --vertices none >"$dir/sample.json" ||
    fail "sample $name"
  node tests/reference/compress_check.mjs "$dir/$name.glb" "$dir/sample.json" 1e-4 >"$dir/three.log" 2>&1 ||
    fail "three.js on $name: $(cat "$dir/three.log")"
  echo "test_compress_glb: $name: $(cat "$dir/out.json")"
  echo "  $(tail -1 "$dir/three.log")"
  done_any=1
done
[ $done_any -eq 1 ] || fail "none of the models is in the assets"

man=$assets/gltf/CesiumMan/glTF-Binary/CesiumMan.glb
if [ -f "$man" ]; then
  "$mn" compress "$man" "$work/man.gltf" --json >"$work/gltf.json" || fail "compress to .gltf"
  [ -f "$work/man.bin" ] || fail "no .bin beside the .gltf"
  cmp -s <(sed 's/"compressed_bytes": [0-9]*,//' "$work/gltf.json") \
         <(sed 's/"compressed_bytes": [0-9]*,//' "$work/CesiumMan/out.json") ||
    fail ".gltf and .glb differ: $(cat "$work/gltf.json") vs $(cat "$work/CesiumMan/out.json")"
fi
echo "test_compress_glb: ok"
