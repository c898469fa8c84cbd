#!/usr/bin/env bash
# The libraries export exactly the public API.  The public API is every function the
# headers under include/marionette/ declare with MN_API.  Then:
#   - libmarionette.so exports each of them, and nothing else;
#   - libmarionette.a defines each of them, and every other global symbol it defines
#     carries the internal prefix mni_ (functions shared between the library's files,
#     hidden from the shared library).
# Symbols a compiler or sanitizer makes (a leading underscore, or the DW.ref. references C++
# exception handling makes in the Draco decoder's file) are not ours and not counted.
# usage: test_symbols.sh BUILD_DIR SOURCE_DIR      (CTest passes both)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v nm >/dev/null || { echo "test_symbols: nm is missing (binutils)"; exit 1; }

# Every MN_API declaration (comments dropped), joined onto one line, then the name before its (.
find "$src/include/marionette" -name '*.h' -exec cat {} + | grep -v '#define MN_API' | perl -0pe 's{/\*.*?\*/}{}gs' | tr '\n' ' ' |
  grep -oE 'MN_API[^;{]*\(' | grep -oE '[A-Za-z_][A-Za-z_0-9]* *\($' | tr -d ' (' |
  sort -u >"$work/api"
[ "$(wc -l <"$work/api")" -gt 100 ] || { echo "test_symbols: found too few MN_API declarations"; exit 1; }

status=0
so=$build/libmarionette.so
a=$build/libmarionette.a
[ -f "$so" ] && [ -f "$a" ] || { echo "test_symbols: $so or $a is missing"; exit 1; }

nm -D --defined-only "$so" | awk '{print $NF}' | grep -v '^_' | sort -u >"$work/so"
nm -g --defined-only "$a" | awk 'NF == 3 {print $3}' | grep -v -e '^_' -e '^DW\.ref\.' | sort -u >"$work/a"

extra=$(comm -23 "$work/so" "$work/api")
[ -z "$extra" ] || { echo "test_symbols: libmarionette.so exports what no public header declares:"; echo "$extra"; status=1; }
missing=$(comm -13 "$work/so" "$work/api")
[ -z "$missing" ] || { echo "test_symbols: declared MN_API but not exported by libmarionette.so:"; echo "$missing"; status=1; }
missing=$(comm -13 "$work/a" "$work/api")
[ -z "$missing" ] || { echo "test_symbols: declared MN_API but not defined in libmarionette.a:"; echo "$missing"; status=1; }
leaked=$(comm -23 "$work/a" "$work/api" | grep -v '^mni_' || true)
[ -z "$leaked" ] || { echo "test_symbols: libmarionette.a defines globals that are neither API nor mni_:"; echo "$leaked"; status=1; }

[ "$status" -eq 0 ] || exit 1
echo "test_symbols: $(wc -l <"$work/api") API functions; the .so exports exactly them," \
     "the .a adds $(grep -c '^mni_' "$work/a") mni_ internals and nothing else"
