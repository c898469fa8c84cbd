#!/usr/bin/env bash
# README.md and docs/*.md show code and output that must stay true:
#   <!-- example: FILE -->     the next fenced block is FILE, byte for byte;
#   <!-- output: marionette ARGS -->  the next fenced block is "$ build/release/marionette ARGS"
#                                     followed by what the built tool prints for ARGS now.
# And the README stays a manual: at most 25,600 bytes, no path into ../shared (it is not part
# of the repository); it, docs/*.md and bench/README.md name no issue numbers and no commit
# hashes (words of 7 to 40 hex digits with both a digit and a letter).
# Commands name the sample assets where they usually are, ../shared/assets
# (tests/support/assets.sh): without the assets such a block is skipped (or, under
# MN_REQUIRE_ASSETS=1, fails); where MN_ASSETS puts them elsewhere the command runs
# from a folder whose ../shared/assets is that place, so it prints what the docs show.
# usage: test_readme.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cd "$src"
. tests/support/assets.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Where a documented command runs: here, or beside a link to the assets when they are elsewhere.
run_dir=$src
if [ "$assets" != "$assets_default" ] && assets_present; then
  run_dir=$work/root
  mkdir "$run_dir"
  for entry in "$src"/*; do ln -s "$entry" "$run_dir/"; done
  mkdir -p "$(dirname "$run_dir/$assets_default")"
  ln -s "$(cd "$assets" && pwd)" "$run_dir/$assets_default"
fi

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

  while IFS= read -r numbered; do
    line=${numbered%%:*}; marker=${numbered#*:}
    args=${marker#<!-- output: marionette }; args=${args% -->}
    if [[ "$args" == *"$assets_default/"* ]] && ! assets_present; then
      assets_skip "$build" "test_readme/$doc:$line"
      continue
    fi
    block_after "$doc" "$marker" >"$work/block"
    # shellcheck disable=SC2086
    { echo "\$ build/release/marionette $args"; (cd "$run_dir" && "$build/marionette" $args); } \
      >"$work/now" 2>&1 || true
    if ! diff -u "$work/block" "$work/now" >"$work/diff"; then
      echo "test_readme: $doc's output of 'marionette $args' is out of date:"; cat "$work/diff"; status=1
    else
      echo "test_readme: $doc: output of 'marionette $args' matches"
    fi
  done < <(grep -n '^<!-- output: marionette .* -->$' "$doc" || true)
done

size=$(wc -c <README.md)
if [ "$size" -gt 25600 ]; then
  echo "test_readme: README.md is $size bytes, over 25,600: move detail into docs/"; status=1
else
  echo "test_readme: README.md is $size bytes (at most 25,600)"
fi
if grep -n '\.\./shared' README.md; then
  echo "test_readme: README.md names ../shared, which is not in the repository"; status=1
fi
for doc in README.md docs/*.md bench/README.md; do
  [ -f "$doc" ] || continue
  if grep -niE 'issue #?[0-9]' "$doc"; then
    echo "test_readme: $doc names an issue number"; status=1
  fi
  # A word, not the digits of a float literal such as 0.3826834f.
  hashes=$(grep -oiE '(^|[^.0-9a-z_])[0-9a-f]{7,40}([^0-9a-z_]|$)' "$doc" |
           grep -oiE '[0-9a-f]{7,40}' | grep '[0-9]' | grep -i '[a-f]' || true)
  if [ -n "$hashes" ]; then
    echo "test_readme: $doc holds words that look like commit hashes: $hashes"; status=1
  fi
done
exit $status
