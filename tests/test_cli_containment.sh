#!/usr/bin/env bash
# The command keeps a model's names inside its folder (marionette/io.h), as
# a user runs it, on hostile folders made here:
#   - convert of a .gltf whose image is a symlink to a secret outside exits 1
#     naming images[0].uri, and writes no output; with --allow-outside DIR
#     (a folder above both) it converts;
#   - info and convert of a .gltf whose buffer is a FIFO, and of an OBJ whose
#     mtllib is one, finish (under `timeout`: a blocked read would hang) with
#     the FIFO named; the model file itself a FIFO likewise;
#   - an OBJ whose mtllib is a symlink to a file outside: a warning naming
#     it, and nothing of the file's content ever printed;
#   - a rig.json part named "../../outside/secret": convert and export exit 1
#     naming the part, no output written; info reports the mesh as an error.
# usage: test_cli_containment.sh BUILD_DIR SOURCE_DIR      (CTest passes both)
set -euo pipefail
build=$(cd "$1" && pwd)
cd "$2"
fail() { echo "test_cli_containment: FAILED: $*"; exit 1; }
mn=$build/marionette
[ -x "$mn" ] || mn=$build/tools/marionette
[ -x "$mn" ] || fail "marionette is not built in $build"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/model" "$work/outside"

# Run the command under a timeout; rc and output into $rc and $work/log.
run() {
  set +e
  timeout 20 "$mn" "$@" >"$work/log" 2>&1
  rc=$?
  set -e
  [ "$rc" != 124 ] || fail "marionette $* blocked (killed after 20 s)"
}
expect_in_log() { grep -qF -- "$1" "$work/log" || { cat "$work/log"; fail "$2: the output does not say '$1'"; }; }

mesh='"bufferViews":[{"buffer":0,"byteLength":36}],"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"scene":0'
head -c 36 /dev/zero >"$work/model/b.bin"

# ---- a symlinked image leading outside ----
printf 'SECRET-CONTENT' >"$work/outside/secret.png"
ln -s ../outside/secret.png "$work/model/secret.png"
echo "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"b.bin\",\"byteLength\":36}],$mesh,\"images\":[{\"uri\":\"secret.png\"}]}" >"$work/model/m.gltf"
run convert "$work/model/m.gltf" "$work/out.glb"
[ "$rc" = 1 ] || { cat "$work/log"; fail "convert of a symlinked image exited $rc, not 1"; }
expect_in_log 'images[0].uri: "secret.png" resolves outside the model' "convert"
[ ! -e "$work/out.glb" ] || fail "convert wrote out.glb from a refused model"
run convert "$work/model/m.gltf" "$work/out.glb" --allow-outside "$work"
[ "$rc" = 0 ] || { cat "$work/log"; fail "convert --allow-outside exited $rc"; }
grep -q SECRET-CONTENT "$work/out.glb" || fail "convert --allow-outside did not embed the image"
rm -f "$work/out.glb"

# ---- FIFOs: refused, never waited on ----
mkdir -p "$work/fifo"
mkfifo "$work/fifo/b.bin" "$work/fifo/a.mtl" "$work/fifo/m.glb"
echo "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"uri\":\"b.bin\",\"byteLength\":36}],$mesh}" >"$work/fifo/m.gltf"
run info "$work/fifo/m.gltf"
[ "$rc" = 1 ] || fail "info of a FIFO buffer exited $rc, not 1"
expect_in_log 'is a FIFO' "info of a FIFO buffer"
run info "$work/fifo/m.glb"
[ "$rc" = 1 ] || fail "info of a FIFO model exited $rc, not 1"
expect_in_log 'is a FIFO' "info of a FIFO model"
printf 'mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n' >"$work/fifo/m.obj"
run convert "$work/fifo/m.obj" "$work/fifo_obj.glb"
[ "$rc" = 0 ] || { cat "$work/log"; fail "convert of an OBJ with a FIFO mtllib exited $rc"; }
expect_in_log 'is a FIFO' "convert of an OBJ with a FIFO mtllib"

# ---- an mtllib symlinked outside: refused, its content never printed ----
printf 'SECRET-CONTENT is not mtl\nnewmtl m\n' >"$work/outside/secret.mtl"
ln -s ../outside/secret.mtl "$work/model/a.mtl"
printf 'mtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl m\nf 1 2 3\n' >"$work/model/m.obj"
run convert "$work/model/m.obj" "$work/obj.glb"
expect_in_log 'mtllib: "a.mtl" resolves outside the model' "convert of an OBJ with an outside mtllib"
! grep -q SECRET "$work/log" || fail "convert printed the content of a file outside the model's folder"

# ---- a rig part named to leave meshes/ ----
mkdir -p "$work/rig/meshes"
cp tests/data/voxel_arm/meshes/*.glb "$work/rig/meshes/"
cp tests/data/voxel_arm/meshes/tip.glb "$work/outside/secret.glb"
sed 's#"tip"#"../../outside/secret"#g' tests/data/voxel_arm/rig.json >"$work/rig/rig.json"
for cmd in convert export; do
  if [ $cmd = convert ]; then run convert "$work/rig/rig.json" "$work/rig.glb"
  else run export --rig "$work/rig/rig.json" --out "$work/rig.glb"; fi
  [ "$rc" = 1 ] || { cat "$work/log"; fail "$cmd of a rig whose part leaves meshes/ exited $rc, not 1"; }
  expect_in_log '(part "../../outside/secret")' "$cmd of a rig whose part leaves meshes/"
  [ ! -e "$work/rig.glb" ] || fail "$cmd wrote rig.glb from a refused rig"
done
run info "$work/rig/rig.json"
expect_in_log 'meshes/../../outside/secret.glb error' "info of a rig whose part leaves meshes/"
run export --rig "$work/rig/rig.json" --out "$work/rig.glb" --allow-outside "$work"
[ "$rc" = 0 ] || { cat "$work/log"; fail "export --allow-outside exited $rc"; }
echo "test_cli_containment: ok"
