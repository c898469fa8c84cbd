// The WebAssembly build against the native library, in Node: load a model through the JS API
// (build/web/marionette.mjs), play its first clip, and at each time of the native
// `marionette sample --json --skinned` output compare the skinned positions of every skinned
// part with the native ones, within 1e-5 of the model's size (the tolerance the three.js
// cross-check holds the native library to).  Then the API's promises around it: errors carry the
// library's code, status and message; a .gltf loads with the files it names; a freed object
// refuses further use; the FinalizationRegistry is there.
// usage: node check_wasm.mjs WEB_DIR MODEL NATIVE_SAMPLE.json [GLTF_DIR_FOR_FILES]
import { readFileSync, readdirSync } from 'node:fs';
import { join, basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [webDir, modelPath, samplePath, gltfPath] = process.argv.slice(2);
const { init, MarionetteError } = await import(pathToFileURL(resolve(webDir, 'marionette.mjs')).href);
const mn = await init();
const native = JSON.parse(readFileSync(samplePath, 'utf8'));
let failures = 0;
const fail = (what) => { console.log(`check_wasm: FAILED: ${what}`); failures++; };

const model = mn.loadModel(readFileSync(modelPath));
const { min, max } = model.bounds;
const size = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
const tolerance = 1e-5 * size;
const rig = model.rig();
const instance = rig.instance();

// The native sample's skinned primitives, by (node, mesh, primitive); the rig's parts follow the
// same scene walk, so the k-th skinned primitive of a sample is the k-th skinned part.
const samples = native.samples.filter((s) => s.clip === 0);
if (samples.length === 0) fail(`${basename(modelPath)}: the native sample has no times of clip 0`);
instance.play(0);
let clock = 0, worst = 0, compared = 0;
for (const s of samples) {
  instance.update(s.time - clock); // the mixer's time is the sum of the steps, as float32
  clock = s.time;
  const skinned = s.primitives.filter((p) => p.skinned);
  let part = 0;
  for (const p of skinned) {
    while (part < rig.partCount && instance.vertexCount(part) !== p.vertex_count) part++;
    if (part === rig.partCount) { fail(`t=${s.time}: no part has ${p.vertex_count} vertices`); break; }
    const got = instance.positions(part);
    for (let i = 0; i < got.length; i++) {
      const d = Math.abs(got[i] - p.positions[i]);
      if (!(d <= tolerance)) {
        fail(`t=${s.time} part ${part} float ${i}: wasm ${got[i]} native ${p.positions[i]}`);
        break;
      }
      worst = Math.max(worst, d);
    }
    compared += got.length / 3;
    part++;
  }
}
console.log(`check_wasm: ${basename(modelPath)}: ${samples.length} times, ${compared} vertices ` +
            `compared, largest difference ${worst.toExponential(2)} (${(worst / size).toExponential(2)} ` +
            `of the model's size; tolerance 1e-5)`);
if (compared === 0) fail('no skinned vertex was compared');

// Views look into wasm memory: no copy, the same bytes after another update.
const view = instance.positions(0);
instance.update(0.1);
if (view.buffer !== mn.core.HEAPU8.buffer && mn.memoryGeneration === 0)
  fail('a view is not into wasm memory');

// Errors carry the library's code, status, message and path.
try {
  mn.loadModel(new TextEncoder().encode('{"asset": {"version": "2.0"}, "nodes": [{"mesh": 7}]}'));
  fail('a node naming a missing mesh loaded');
} catch (e) {
  if (!(e instanceof MarionetteError) || e.code === 0 || !e.status.startsWith('MN_') || !e.path)
    fail(`a bad model threw ${e} (code ${e.code}, status ${e.status}, path ${e.path})`);
  else console.log(`check_wasm: a bad model is refused: ${e.status}: ${e.message}`);
}
try { instance.play('no such clip'); fail('an unknown clip name played'); }
catch (e) { if (!(e instanceof MarionetteError) || e.status !== 'MN_INVALID_ARGUMENT') fail(`unknown clip: ${e}`); }

// A .gltf with the files it names.
if (gltfPath) {
  const dir = join(gltfPath, '..');
  const files = {};
  for (const name of readdirSync(dir)) if (!name.endsWith('.gltf')) files[name] = readFileSync(join(dir, name));
  const m2 = mn.loadModel(readFileSync(gltfPath, 'utf8'), files);
  if (m2.nodes.length !== model.nodes.length) fail('the .gltf and the .glb differ in nodes');
  m2.free();
  try { mn.loadModel(readFileSync(gltfPath, 'utf8')); fail('a .gltf without its files loaded'); }
  catch (e) { if (!(e instanceof MarionetteError) || e.status !== 'MN_IO') fail(`missing files: ${e}`); }
}

instance.free();
rig.free();
model.free();
try { instance.update(0.1); fail('a freed instance updated'); } catch (e) { if (e instanceof MarionetteError) fail(`${e}`); }
if (typeof FinalizationRegistry === 'function' && !mn._registry) fail('no FinalizationRegistry safety net');
process.exit(failures ? 1 : 0);
