#!/usr/bin/env bash
# The viewer page (web/index.html, make web-serve) in a real browser: Debian's Chromium, headless,
# driven by npm playwright-core (tests/reference/browser_check.mjs).  The page loads CesiumMan
# from the sample assets (the demo GLB without them) through its file input; the test scrubs it
# through the UI and compares the skinned positions with `marionette sample --json` within 1e-5
# of the model's size, checks a screenshot is not blank, toggles the overlays, crossfades
# through the UI, presses the blend pad's corner (its pose is that corner's clip) and turns it
# off (a crossfade back), and drops a broken GLB (the library's message is shown; the demo then loads).
#
# Needs chromium and playwright-core, which scripts/deps installs: missing, the test FAILS.
# usage: test_web_browser.sh BUILD_DIR SOURCE_DIR      (CTest passes both; runs in SOURCE_DIR)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cd "$src"
. tests/support/assets.sh
. tests/support/web_build.sh

chromium=${CHROMIUM:-$(command -v chromium || true)}
if [ -z "$chromium" ]; then
  echo "test_web_browser: FAILED: chromium is not installed (run scripts/deps)"
  exit 1
fi
if [ ! -f tests/reference/node_modules/playwright-core/package.json ]; then
  echo "test_web_browser: FAILED: the npm package playwright-core is missing (run scripts/deps)"
  exit 1
fi
web_build test_web_browser "$build" "$src"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if assets_present; then
  model=$assets/gltf/CesiumMan/glTF-Binary/CesiumMan.glb
else
  assets_skip "$build" test_web_browser/CesiumMan
  model=$web/demo.glb
fi
"$build/marionette" sample "$model" --json --clip 0 --times 0.5,1,1.5 --skinned >"$work/native.json"
CHROMIUM=$chromium node tests/reference/browser_check.mjs "$web" "$model" "$work/native.json" \
  "$build/web_viewer.png"
echo "test_web_browser: passed (screenshot: $build/web_viewer.png)"
