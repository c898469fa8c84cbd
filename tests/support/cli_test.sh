# Sourced by the shell tests that run the `marionette` command against the
# reference checks in tests/reference (test_convert.sh, test_export.sh):
#
#   . "$2/tests/support/cli_test.sh" NAME BUILD_DIR SOURCE_DIR [NPM_PACKAGE...]
#
# It moves to SOURCE_DIR (assets are read by relative path), sources
# tests/support/assets.sh (the sample assets: $assets, assets_present,
# assets_skip, need_assets), defines
# fail MESSAGE (prints "NAME: FAILED: MESSAGE", exits 1), checks that node
# and each named npm package in tests/reference/node_modules are there (a
# missing one FAILS the test, never skips it), and sets
#   build  the build folder (absolute)
#   src    the source folder (absolute)
#   mn     the built marionette executable
#   work   a fresh temporary folder, removed when the test exits
test_name=$1
build=$(cd "$2" && pwd)
src=$(cd "$3" && pwd)
shift 3
cd "$src"
. tests/support/assets.sh

fail() { echo "$test_name: FAILED: $*"; exit 1; }
command -v node >/dev/null 2>&1 || fail "node is not installed (run scripts/deps)"
for pkg in "$@"; do
  [ -f "tests/reference/node_modules/$pkg/package.json" ] ||
    fail "the npm package $pkg is missing from tests/reference/node_modules (run: npm ci --prefix tests/reference)"
done
mn=$build/marionette
[ -x "$mn" ] || mn=$build/tools/marionette
[ -x "$mn" ] || fail "marionette is not built in $build"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
