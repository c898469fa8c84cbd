#!/usr/bin/env bash
# `marionette compress IN OUT.mnanim [--json]`: CesiumMan's and InterpolationTest's
# animations compressed within the default bound (0.1 mm at a 3 cm shell), the one
# JSON object with every field, the errors measured on the file read back at or
# under the bound, raw and compressed bytes as stated (the file's size); a wrong
# output name (.txt) exits 2 and a missing input 1, leaving no file.
# Needs the sample assets (tests/support/assets.sh) and node (to parse the JSON).
# usage: test_cli_compress.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
. "$2/tests/support/cli_test.sh" test_cli_compress "$1" "$2"
need_assets "$build" test_cli_compress

check_json() { # FILE.json OUT.mnanim CLIPS
  node -e '
    const fs = require("fs");
    const j = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const size = fs.statSync(process.argv[2]).size;
    const keys = ["clips", "raw_bytes", "compressed_bytes", "ratio", "max_error_m", "p99_error_m", "shell_m"];
    for (const k of keys) if (typeof j[k] !== "number") throw new Error("no number " + k);
    if (Object.keys(j).length !== keys.length) throw new Error("extra fields");
    if (j.clips !== +process.argv[3]) throw new Error("clips " + j.clips);
    if (j.compressed_bytes !== size) throw new Error("compressed_bytes is not the file size");
    if (Math.abs(j.ratio - j.raw_bytes / j.compressed_bytes) > 1e-6 * j.ratio) throw new Error("ratio");
    if (!(j.max_error_m <= 1e-4 && j.p99_error_m <= j.max_error_m)) throw new Error("error " + j.max_error_m);
    if (Math.abs(j.shell_m - 0.03) > 1e-6) throw new Error("shell");
  ' "$1" "$2" "$3" || fail "$1: $(cat "$1")"
}

man=$assets/gltf/CesiumMan/glTF-Binary/CesiumMan.glb
"$mn" compress "$man" "$work/man.mnanim" --json >"$work/man.json" || fail "compress CesiumMan"
check_json "$work/man.json" "$work/man.mnanim" 1
# CesiumMan's raw keys: its one animation's times and values, 40,128 bytes of float32.
grep -q '"raw_bytes": 40128' "$work/man.json" || fail "raw_bytes: $(cat "$work/man.json")"

it=$assets/gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb
"$mn" compress "$it" "$work/it.mnanim" --json >"$work/it.json" || fail "compress InterpolationTest"
check_json "$work/it.json" "$work/it.mnanim" 9

set +e
"$mn" compress "$man" "$work/man.txt" >"$work/log" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "a .txt output exits $rc, not 2"
"$mn" compress "$work/none.glb" "$work/none.mnanim" >"$work/log" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "a missing input exits $rc, not 1"
set -e
[ ! -e "$work/man.txt" ] && [ ! -e "$work/none.mnanim" ] || fail "a failed run left a file"
echo "test_cli_compress: ok"
