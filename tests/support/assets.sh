# Sourced: the sample assets for the shell tests and scripts, by the rule tests/support/assets.h
# gives the C tests (run from the repository root):
#
#   . tests/support/assets.sh
#
# sets
#   assets_default  ../shared/assets, where the assets are unless MN_ASSETS says otherwise
#   assets          the folder: $MN_ASSETS when set and not empty, else $assets_default
#                   (a relative path is taken from the repository root)
# and defines
#   assets_present            true when the folder is there
#   assets_missing            "none at FOLDER; set MN_ASSETS=DIR", the reason a skip gives
#   assets_skip BUILD NAME    a part NAME ("<test>/<part>") of a test needs the assets and they
#                             are missing: record it as a line in BUILD/skipped-assets/<test>
#                             (scripts/check-summary lists them) and return, so the test goes
#                             on without it; with MN_REQUIRE_ASSETS=1 (CI) fail the test instead
#   need_assets BUILD NAME    a whole test NAME needs them: return when they are there, else
#                             assets_skip and exit 77 (the SKIP_RETURN_CODE tests/CMakeLists.txt
#                             gives the shell tests)
assets_default=../shared/assets
assets=${MN_ASSETS:-$assets_default}

assets_present() { [ -d "$assets" ]; }

assets_missing() { echo "none at $assets; set MN_ASSETS=DIR"; }

assets_skip() {
  local build=$1 name=$2
  if [ -n "${MN_REQUIRE_ASSETS:-}" ] && [ "$MN_REQUIRE_ASSETS" != 0 ]; then
    echo "${name%%/*}: FAILED: $name needs the sample assets ($(assets_missing));" \
         "MN_REQUIRE_ASSETS=1 makes that a failure, not a skip"
    exit 1
  fi
  mkdir -p "$build/skipped-assets"
  echo "$name" >>"$build/skipped-assets/${name%%/*}"
  echo "$name needs the sample assets ($(assets_missing)): skipped"
}

need_assets() {
  assets_present && return 0
  assets_skip "$1" "$2"
  exit 77
}
