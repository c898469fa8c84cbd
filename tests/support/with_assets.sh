# Run a program whose arguments may name the sample assets, for CTest (examples/CMakeLists.txt):
#
#   bash tests/support/with_assets.sh BUILD_DIR NAME PROGRAM [ARG...]   (from the repository root)
#
# An ARG that starts with @ASSETS@ gets the assets folder in its place (tests/support/assets.sh).
# When there is such an ARG and the assets are missing, the test NAME is skipped (exit 77, its
# SKIP_RETURN_CODE) and recorded, or, under MN_REQUIRE_ASSETS=1, fails.
set -euo pipefail
build=$1 name=$2
shift 2
. "$(dirname "${BASH_SOURCE[0]}")/assets.sh"
args=()
for arg in "$@"; do
  if [[ "$arg" == @ASSETS@* ]]; then
    need_assets "$build" "$name"
    arg=$assets${arg#@ASSETS@}
  fi
  args+=("$arg")
done
exec "${args[@]}"
