// make web-bench: the same per-frame work through marionette's wasm build and three.js r187 in
// one headless Chromium page (web/bench.mjs), beside the native build's time for it
// (build/release/bench_web).  Prints one JSON line a case, like the native benches:
//   {"bench": "web", "case": "anim" | "anim_crowd" | "skin_crowd", "model", "instances",
//    "wasm_ms", "three_ms", "native_ms", "three_to_wasm", "wasm_to_native", "target_three_to_wasm",
//    "target_wasm_to_native"}
// three_to_wasm is how many times faster the wasm build is than three.js (targets: 3 for the
// animation update, 5 for CPU skinning); wasm_to_native the wasm time over the native (target
// at most 2.5).  Models: CesiumMan and RiggedFigure from the sample assets (MN_ASSETS or
// ../shared/assets), or the paths given.
// usage: node scripts/web-bench.mjs BUILD_DIR [MODEL.glb ...]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, copyFileSync, symlinkSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { serve } from './web-serve.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const build = resolve(process.argv[2] || join(root, 'build'));
const assets = resolve(root, process.env.MN_ASSETS || '../shared/assets');
const models = process.argv.length > 3 ? process.argv.slice(3).map((m) => resolve(m))
  : ['CesiumMan', 'RiggedFigure'].map((m) => join(assets, 'gltf', m, 'glTF-Binary', `${m}.glb`));
for (const m of models) if (!existsSync(m)) { console.error(`web-bench: ${m} is missing (set MN_ASSETS)`); process.exit(1); }

// Native figures for the same work.
const native = {};
const lines = execFileSync(join(build, 'release', 'bench_web'), models, { encoding: 'utf8' });
for (const line of lines.split('\n').filter(Boolean)) {
  const r = JSON.parse(line);
  native[`${r.case}/${r.model}`] = r.native_us / 1e3;
}

// The page, three.js and the models, served from build/web.
const web = join(build, 'web');
const reference = join(root, 'tests', 'reference');
rmSync(join(web, 'three'), { force: true });
symlinkSync(join(reference, 'node_modules', 'three'), join(web, 'three'));
mkdirSync(join(web, 'bench-models'), { recursive: true });
for (const m of models) copyFileSync(m, join(web, 'bench-models', basename(m)));

const { chromium } = createRequire(join(reference, 'package.json'))('playwright-core');
const server = await serve(web, 0);
const url = server.url;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
                                        args: ['--no-sandbox'] });
let status = 0;
try {
  const page = await browser.newPage();
  const list = models.map((m) => `./bench-models/${basename(m)}`).join(',');
  await page.goto(`${url}bench.html?models=${encodeURIComponent(list)}`);
  await page.waitForFunction(() => window.benchResults || window.benchError, null, { timeout: 600000 });
  const error = await page.evaluate(() => window.benchError);
  if (error) throw new Error(error);
  const version = await page.evaluate(async () => (await import('three')).REVISION);
  for (const r of await page.evaluate(() => window.benchResults)) {
    const nativeMs = native[`${r.case}/${r.model}`];
    console.log(JSON.stringify({
      bench: 'web', case: r.case, model: r.model, instances: r.instances,
      ...(r.vertices ? { vertices: r.vertices } : {}),
      wasm_ms: +r.marionette_ms.toFixed(4), three_ms: +r.three_ms.toFixed(4), native_ms: +nativeMs.toFixed(4),
      three_to_wasm: +(r.three_ms / r.marionette_ms).toFixed(2),
      wasm_to_native: +(r.marionette_ms / nativeMs).toFixed(2),
      target_three_to_wasm: r.case === 'skin_crowd' ? 5 : 3, target_wasm_to_native: 2.5,
      three_revision: version, browser: browser.version(),
    }));
  }
} catch (e) {
  console.error(`web-bench: ${e.message}`);
  status = 1;
} finally {
  await browser.close();
  await server.close();
}
process.exit(status);
