#!/usr/bin/env bash
# No AVX/SSE transition penalty (core/simd.h, 3. Targets): no function of libmarionette.so
# may hand dirty upper ymm halves to the SSE code around it.  For every function in the
# disassembly, along every path of its control flow (direct jumps and fall-through inside
# the function), once an instruction has touched a ymm register:
#   - each ret, and each jump out of the function (a tail call), needs a vzeroupper first;
#   - each call needs one first too (the callee may be baseline SSE code).
# A function is entered clean and a call returns clean (the rule, checked for the callees
# that are ours).  A non-inlined helper that takes or returns __m256 fails the check: it
# returns with dirty upper halves.  An indirect jump (a jump table) reached dirty fails as
# well, since its targets are not followed.  The check first runs on a small object compiled
# here with such a helper, and must catch it, so that a change of objdump's format cannot
# make it pass by seeing nothing.
# x86-64 only (exit 77 elsewhere, or without objdump); a scalar build (MN_NO_SIMD) has no
# ymm code and passes.
# usage: test_vzeroupper.sh BUILD_DIR SOURCE_DIR      (CTest passes both)
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ "$(uname -m)" = x86_64 ] || { echo "test_vzeroupper: not x86-64, skipped"; exit 77; }
command -v objdump >/dev/null || { echo "test_vzeroupper: objdump is missing, skipped"; exit 77; }
so=$build/libmarionette.so
[ -f "$so" ] || { echo "test_vzeroupper: $so is missing"; exit 1; }

# Reads `objdump -d --no-show-raw-insn`; a function's .cold part (gcc moves unlikely paths there)
# is read as part of it.  Prints "ymm FUNCTION" for each function that touches
# ymm, and "dirty FUNCTION ADDRESS WHAT" for each violation.
cat >"$work/check.awk" <<'EOF'
function analyse(   i, changed, out, s) {
  if (fn == "" || !touches) return
  print "ymm", fn
  for (i = 0; i < n; i++) din[i] = 0
  changed = 1
  while (changed) {              # the dirty state along the control flow, to a fixpoint
    changed = 0
    for (i = 0; i < n; i++) {
      out = din[i]
      if (kind[i] == "vzu") out = 0
      else if (ymm[i]) out = 1
      if (out && kind[i] ~ /^(ret|exit|call|indirect)$/ && !(i in told)) {
        told[i] = 1; print "dirty", fn, addr[i], kind[i]
      }
      if (kind[i] == "call") out = 0
      if (kind[i] !~ /^(ret|exit|jmp|indirect|ud2)$/ && !(i in nofall) && i + 1 < n && out && !din[i + 1]) {
        din[i + 1] = 1; changed = 1
      }
      if (kind[i] ~ /^(jmp|jcc)$/ && (target[i] in at)) {
        s = at[target[i]]
        if (out && !din[s]) { din[s] = 1; changed = 1 }
      }
    }
  }
}
function begin(name) {
  fn = name; n = 0; touches = 0
  split("", kind); split("", ymm); split("", addr); split("", target); split("", at)
  split("", told); split("", nofall)
}
# One instruction of the function fn (its hot part, or the .cold part gcc splits off).
function instruction(text,   a, line, w, m, k, label) {
  a = text; sub(/^ +/, "", a); sub(/:.*/, "", a)
  line = text; sub(/^ +[0-9a-f]+:\t/, "", line)
  sub(/^(bnd|notrack|rep|repz|data16|cs|ds) +/, "", line)
  split(line, w, /[ \t]+/); m = w[1]
  addr[n] = a; at[a] = n; ymm[n] = (line ~ /%ymm/); if (ymm[n]) touches = 1
  k = "other"
  if (m ~ /^vzero(upper|all)$/) k = "vzu"
  else if (m ~ /^ret/) k = "ret"
  else if (m ~ /^ud2/) k = "ud2"
  else if (m ~ /^call/) k = "call"
  else if (m ~ /^j/) {
    if (line ~ /\*/) k = "indirect"
    else {
      label = line; sub(/^[^<]*</, "", label); sub(/(\+0x[0-9a-f]+)?>.*$/, "", label)
      if (label != fn && label != fn ".cold") k = "exit"
      else { k = (m ~ /^jmp/) ? "jmp" : "jcc"; target[n] = w[2] }
    }
  }
  kind[n] = k; n++
}
/^[0-9a-f]+ <.*>:$/ { name = $2; gsub(/^<|>:$/, "", name); names[++count] = name; first[name] = L + 1; last[name] = L; next }
/^ +[0-9a-f]+:\t/ { text[++L] = $0; last[name] = L }
END {
  for (c = 1; c <= count; c++) {
    if (names[c] ~ /\.cold$/) continue
    begin(names[c])
    for (j = first[fn]; j <= last[fn]; j++) instruction(text[j])
    if ((fn ".cold") in first) {
      if (n > 0) nofall[n - 1] = 1     # the hot part does not fall into the cold one
      for (j = first[fn ".cold"]; j <= last[fn ".cold"]; j++) instruction(text[j])
    }
    analyse()
  }
}
EOF

check() { objdump -d --no-show-raw-insn "$1" | awk -f "$work/check.awk"; }

# The self-check: a non-inlined helper returning __m256 leaves the upper halves dirty.
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cat >"$work/fixture.c" <<'EOF'
#include <immintrin.h>
__attribute__((noinline, target("avx2"))) __m256 mn_fixture_twice(__m256 a)
{
    return _mm256_add_ps(a, a);
}
EOF
"${cc:-cc}" -O2 -c "$work/fixture.c" -o "$work/fixture.o"
check "$work/fixture.o" >"$work/fixture.out"
grep -q '^dirty mn_fixture_twice ' "$work/fixture.out" ||
  { echo "test_vzeroupper: the check missed a helper returning __m256:"; cat "$work/fixture.out"; exit 1; }

check "$so" >"$work/lib.out"
simd=yes
grep -q '^MN_NO_SIMD:BOOL=ON' "$build/CMakeCache.txt" && simd=no
functions=$(grep -c '^ymm ' "$work/lib.out" || true)
if [ "$simd" = yes ] && [ "$functions" -eq 0 ]; then
  echo "test_vzeroupper: no function of $so touches ymm: the AVX2 kernels are missing, or the check is blind"
  exit 1
fi
if grep -q '^dirty ' "$work/lib.out"; then
  echo "test_vzeroupper: these leave upper ymm halves dirty (function, address, at what):"
  grep '^dirty ' "$work/lib.out" | cut -d' ' -f2-
  echo "force-inline helpers taking or returning __m256 (MN_LANE), or end the entry point with _mm256_zeroupper()"
  exit 1
fi
echo "test_vzeroupper: $functions functions touch ymm; each clears the upper halves before it returns or calls"
