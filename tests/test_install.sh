#!/usr/bin/env bash
# `cmake --install` works for a downstream project, both ways it may consume us:
#   1. CMake: find_package(marionette) with CMAKE_PREFIX_PATH, static and shared targets;
#   2. pkg-config: `cc $(pkg-config --cflags --libs marionette)` against the shared
#      library, and `--static` against the archive (in a copy of the prefix without
#      the .so, because a linker given both picks the shared one).
# Each consumer (tests/consumer/main.c) reads a glTF from memory and must print "consumer: ok".
#
# usage: test_install.sh BUILD_DIR SOURCE_DIR      (CTest passes both)
set -euo pipefail

build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { echo "test_install: $*"; }
fail() { echo "test_install: FAILED: $*" >&2; exit 1; }

# Build consumers the way the library was built: same compiler, and the
# sanitizer runtime when the library is instrumented (make asan).
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
cc=$(cache_value CMAKE_C_COMPILER)
[ -n "$cc" ] || cc=cc
san_flags=""
if [ "$(cache_value MN_SANITIZE)" = "ON" ]; then
  san_flags="-fsanitize=address,undefined -fno-omit-frame-pointer"
fi

prefix="$work/prefix"
step "installing into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }

libdir=""
for d in "$prefix"/lib*/ "$prefix"/lib/*/; do
  [ -f "$d/libmarionette.a" ] && libdir=${d%/} && break
done
[ -n "$libdir" ] || fail "no libmarionette.a under $prefix"
for f in "$prefix/include/marionette/marionette.h" "$prefix/include/marionette/gltf.h" \
         "$libdir/cmake/marionette/marionetteConfig.cmake" \
         "$libdir/cmake/marionette/marionetteConfigVersion.cmake" \
         "$libdir/pkgconfig/marionette.pc" "$prefix/bin/marionette"; do
  [ -f "$f" ] || fail "not installed: ${f#$prefix/}"
done
ls "$libdir"/libmarionette.so* >/dev/null 2>&1 || fail "no shared library in ${libdir#$prefix/}"
"$prefix/bin/marionette" --version >/dev/null || fail "the installed marionette does not run"

run_consumer() {   # run_consumer NAME EXECUTABLE [env...]
  local name=$1 exe=$2; shift 2
  local out
  out=$(env "$@" "$exe") || fail "$name exited non-zero: $out"
  [[ "$out" == "consumer: ok"* ]] || fail "$name printed: $out"
  step "$name: $out"
}

# ---- 1. CMake: find_package(marionette) ------------------------------------------
step "building the consumer with CMake (find_package)"
cmake -S "$src/tests/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_FLAGS="$san_flags" -DCMAKE_EXE_LINKER_FLAGS="$san_flags" \
      >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "configuring the CMake consumer"; }
cmake --build "$work/cmake-build" >>"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "building the CMake consumer"; }
run_consumer "cmake static" "$work/cmake-build/consumer_static"
run_consumer "cmake shared" "$work/cmake-build/consumer_shared"
if command -v readelf >/dev/null; then
  needed=$(readelf -d "$work/cmake-build/consumer_static")
  [[ "$needed" != *libmarionette.so* ]] || fail "consumer_static depends on libmarionette.so"
  needed=$(readelf -d "$work/cmake-build/consumer_shared")
  [[ "$needed" == *libmarionette.so* ]] || fail "consumer_shared does not use libmarionette.so"
fi

# ---- 2. pkg-config ----------------------------------------------------------------
step "building the consumer with pkg-config (shared)"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 $san_flags -o "$work/pc_shared" "$src/tests/consumer/main.c" \
      $(pkg-config --cflags --libs marionette) || fail "building with pkg-config --libs"
run_consumer "pkg-config shared" "$work/pc_shared" LD_LIBRARY_PATH="$libdir"

step "building the consumer with pkg-config --static"
# The .pc locates its prefix from its own folder (${pcfiledir}), so a copied prefix works.
cp -a "$prefix" "$work/static-prefix"
static_libdir="$work/static-prefix/${libdir#$prefix/}"
rm -f "$static_libdir"/libmarionette.so*
export PKG_CONFIG_PATH="$static_libdir/pkgconfig"
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 $san_flags -o "$work/pc_static" "$src/tests/consumer/main.c" \
      $(pkg-config --cflags --libs --static marionette) || fail "building with pkg-config --static"
run_consumer "pkg-config static" "$work/pc_static"
if command -v readelf >/dev/null; then
  needed=$(readelf -d "$work/pc_static")
  [[ "$needed" != *libmarionette.so* ]] || fail "pc_static depends on libmarionette.so"
fi

step "ok"
