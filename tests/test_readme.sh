#!/usr/bin/env bash
# README.md shows code and output that must stay true:
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

# The fenced block after the first line equal to $1, without its fences.
block_after() {
  awk -v marker="$1" '
    $0 == marker { found = 1; next }
    found == 1 && /^```/ { found = 2; next }
    found == 2 && /^```$/ { exit }
    found == 2 { print }
  ' README.md
}

status=0
while IFS= read -r marker; do
  file=${marker#<!-- example: }; file=${file% -->}
  block_after "$marker" >"$work/block"
  if ! diff -u "$file" "$work/block" >"$work/diff"; then
    echo "test_readme: README's copy of $file differs from the file:"; cat "$work/diff"; status=1
  else
    echo "test_readme: $file matches"
  fi
done < <(grep '^<!-- example: .* -->$' README.md)

while IFS= read -r marker; do
  args=${marker#<!-- output: marionette }; args=${args% -->}
  block_after "$marker" >"$work/block"
  # shellcheck disable=SC2086
  { echo "\$ build/release/marionette $args"; "$build/marionette" $args; } >"$work/now" 2>&1 || true
  if ! diff -u "$work/block" "$work/now" >"$work/diff"; then
    echo "test_readme: README's output of 'marionette $args' is out of date:"; cat "$work/diff"; status=1
  else
    echo "test_readme: output of 'marionette $args' matches"
  fi
done < <(grep '^<!-- output: marionette .* -->$' README.md)
exit $status
