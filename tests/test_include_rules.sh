#!/usr/bin/env bash
# scripts/check-includes holds the include rules of docs/architecture.md: the tree as it is
# passes, and each kind of wrong include, planted in a copy of the tree, fails with the
# file and line it stands on.
# usage: test_include_rules.sh BUILD_DIR SOURCE_DIR      (CTest passes both)
set -euo pipefail
src=$(cd "$2" && pwd)
check=$src/scripts/check-includes
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "test_include_rules: FAILED: $*"; failures=$((failures + 1)); }

"$check" "$src" >"$work/out" 2>&1 || { cat "$work/out"; fail "the tree itself breaks a rule"; }

# plant FILE LINE EXPECTED: copy the tree, append LINE to FILE, expect a finding naming
# FILE:N (N the new line) whose text contains EXPECTED.
plant() {
  local file=$1 line=$2 expected=$3 tree=$work/tree
  rm -rf "$tree"; mkdir -p "$tree"
  cp -r "$src/src" "$src/include" "$tree/"
  echo "$line" >>"$tree/$file"
  local n; n=$(wc -l <"$tree/$file")
  if "$check" "$tree" >"$work/out" 2>&1; then
    fail "$file: '$line' was accepted"; return
  fi
  grep -qF "$file:$n: " "$work/out" || { cat "$work/out"; fail "$file: no finding at line $n"; return; }
  grep -F "$file:$n: " "$work/out" | grep -qF "$expected" ||
    { cat "$work/out"; fail "$file:$n: the finding does not say '$expected'"; }
  [ "$(wc -l <"$work/out")" -eq 2 ] || { cat "$work/out"; fail "$file: more findings than the planted one"; }
}

plant src/core/math.c         '#include "io/io.h"'                   'core includes io'
plant src/io/uri.c            '#include "model/model.h"'             'io includes model'
plant src/gltf/read.c         '#include <marionette/clip.h>'         'reader gltf includes anim'
plant src/obj/read.c          '#include "anim/blend_internal.h"'     'private header of anim'
plant src/model/query.c       '#include "deform/internal.h"'         'private header of deform'
plant src/obj/read.c          '#include <marionette/gltf.h>'         'reader obj includes gltf'
plant src/anim/mixer.c        '#include <marionette/instance.h>'     'anim includes rig, which comes after it'
plant src/render/camera.c     '#include <marionette/voxel/rig.h>'    'runtime folder render includes product voxel'
plant src/deform/skin.c       '#include "head/expression_internal.h"' 'private header of head'
plant src/voxel/pose.c        '#include <marionette/head/head.h>'    'product voxel includes product head'
plant src/head/runtime.c      '#include "character/soma_internal.h"' 'private header of character'
plant src/head/arkit.c        '#include <marionette/character/soma.h>' 'product head includes product character'
plant src/character/package.c '#include "head/aosrig_internal.h"'    'private header of head'
plant src/rig/crowd.c         '#include <marionette/marionette.h>'   'umbrella'
plant include/marionette/render.h '#include "voxel/controller.h"'    'runtime folder render includes product voxel'
plant include/marionette/gltf.h   '#include "clip.h"'                'reader gltf includes anim'

[ "$failures" -eq 0 ] || exit 1
echo "test_include_rules: the tree passes; 16 planted wrong includes each fail at their line"
