# Sourced by the web tests (tests/test_web.sh, tests/test_web_browser.sh):
#
#   . tests/support/web_build.sh
#   web_build NAME BUILD_DIR SOURCE_DIR
#
# builds (or finds built) the checkout's one WebAssembly build, SOURCE_DIR/build/web, with
# scripts/web-build, its log in BUILD_DIR/NAME_build.log, and sets `web` to that folder.  When
# emscripten is missing or the build fails, it says so as test NAME and exits 1: a web test
# that quietly does not run proves nothing (scripts/deps installs emscripten).
web_build() {
  local name=$1 build=$2 src=$3
  if ! command -v emcc >/dev/null 2>&1; then
    echo "$name: FAILED: emcc is not installed (run scripts/deps, which installs emscripten)"
    exit 1
  fi
  web=$src/build/web
  if ! "$src/scripts/web-build" "$web" >"$build/${name}_build.log" 2>&1; then
    echo "$name: FAILED: scripts/web-build failed:"
    tail -n 30 "$build/${name}_build.log"
    exit 1
  fi
}
