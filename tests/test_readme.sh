#!/usr/bin/env bash
# README.md and docs/*.md show code and output that must stay true:
#   <!-- example: FILE -->     the next fenced block is FILE, byte for byte;
#   <!-- output: marionette ARGS -->  the next fenced block is "$ build/release/marionette ARGS"
#                                     followed by what the built tool prints for ARGS now.
# usage: test_readme.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cd "$src"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The fenced block after the first line equal to $2 in document $1, without its fences.
block_after() {
  awk -v marker="$2" '
    $0 == marker { found = 1; next }
    found == 1 && /^```/ { found = 2; next }
    found == 2 && /^```$/ { exit }
    found == 2 { print }
  ' "$1"
}

status=0
for doc in README.md docs/*.md; do
  [ -f "$doc" ] || continue
  while IFS= read -r marker; do
    file=${marker#<!-- example: }; file=${file% -->}
    block_after "$doc" "$marker" >"$work/block"
    if ! diff -u "$file" "$work/block" >"$work/diff"; then
      echo "test_readme: $doc's copy of $file differs from the file:"; cat "$work/diff"; status=1
    else
      echo "test_readme: $doc: $file matches"
    fi
  done < <(grep '^<!-- example: .* -->$' "$doc" || true)

  while IFS= read -r marker; do
    args=${marker#<!-- output: marionette }; args=${args% -->}
    block_after "$doc" "$marker" >"$work/block"
    # shellcheck disable=SC2086
    { echo "\$ build/release/marionette $args"; "$build/marionette" $args; } >"$work/now" 2>&1 || true
    if ! diff -u "$work/block" "$work/now" >"$work/diff"; then
      echo "test_readme: $doc's output of 'marionette $args' is out of date:"; cat "$work/diff"; status=1
    else
      echo "test_readme: $doc: output of 'marionette $args' matches"
    fi
  done < <(grep '^<!-- output: marionette .* -->$' "$doc" || true)
done
exit $status
