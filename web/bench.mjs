// make web-bench's page (scripts/web-bench.mjs opens it in headless Chromium): the same
// per-frame work through marionette's wasm build and through three.js, in this one page.
//   anim        one character: sample, blend, world matrices, skin palette (no vertices).
//               marionette: a hidden instance's update + its palette; three.js:
//               AnimationMixer.update + updateMatrixWorld + Skeleton.update (boneMatrices).
//   anim_crowd  the same for 100 instances (three.js: 100 SkeletonUtils clones, 100 mixers).
//   skin_crowd  100 instances animated and CPU-skinned: marionette's visible instances;
//               three.js: the anim_crowd work, then SkinnedMesh.applyBoneTransform on every
//               vertex into a Float32Array, as three.js users skin on the CPU.
// The models arrive as ?models=url1,url2.  window.benchResults holds one object per case:
// { case, model, instances, vertices, marionette_ms, three_ms } (ms per frame, the best of
// 15 runs of at least 10 ms each, after 1.5 s of warming).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { init } from './marionette.mjs';

const DT = 1 / 60, RUNS = 15, CROWD = 100, MIN_RUN_MS = 10, WARM_MS = 1500;

// ms per frame of step(): first WARM_MS of frames untimed, so that what is timed is the engine's
// optimised code (WebAssembly and JavaScript start in a baseline compiler and are optimised once
// they run hot, which takes a moment and longer on a busy machine; the native side needs no
// warming); then frames per run doubled from 1 until a run takes MIN_RUN_MS (the browser's
// clock is coarse: 5 to 100 µs, 1 % of 10 ms at worst), then the best of RUNS runs: many short
// runs, so that on a busy machine some run is not interrupted (a run of 25 ms rarely was, and
// best-of-5 figures moved by a factor of two between runs of the bench).
function time(step) {
  for (const t0 = performance.now(); performance.now() - t0 < WARM_MS;) step();
  let frames = 1;
  for (;;) {
    const t0 = performance.now();
    for (let f = 0; f < frames; f++) step();
    if (performance.now() - t0 >= MIN_RUN_MS || frames >= 1 << 20) break;
    frames *= 2;
  }
  let best = Infinity;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    for (let f = 0; f < frames; f++) step();
    best = Math.min(best, (performance.now() - t0) / frames);
  }
  return best;
}

function threeCharacters(gltf, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const scene = i === 0 ? gltf.scene : SkeletonUtils.clone(gltf.scene);
    const mixer = new THREE.AnimationMixer(scene);
    mixer.clipAction(gltf.animations[0]).play();
    mixer.update(i * 0.013);
    const meshes = [];
    scene.traverse((o) => { if (o.isSkinnedMesh) meshes.push(o); });
    out.push({ scene, mixer, meshes });
  }
  return out;
}

function threeAnimate(characters) {
  for (const c of characters) {
    c.mixer.update(DT);
    c.scene.updateMatrixWorld(true);
    for (const m of c.meshes) m.skeleton.update();
  }
}

function threeSkinBuffers(characters) {
  return characters.map((c) => c.meshes.map((m) => new Float32Array(m.geometry.attributes.position.count * 3)));
}

function threeSkin(characters, buffers) {
  const v = new THREE.Vector3();
  characters.forEach((c, i) => c.meshes.forEach((m, k) => {
    const out = buffers[i][k], n = m.geometry.attributes.position.count;
    for (let j = 0; j < n; j++) {
      m.getVertexPosition(j, v); // the morphed position, then the bone transform
      m.applyBoneTransform(j, v);
      out[j * 3] = v.x; out[j * 3 + 1] = v.y; out[j * 3 + 2] = v.z;
    }
  }));
}

async function benchModel(mn, url) {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const name = url.split('/').pop();
  const gltf = await new GLTFLoader().parseAsync(bytes.buffer.slice(0), '');
  const model = mn.loadModel(bytes), rig = model.rig();
  const results = [];
  const make = (count, hidden) => Array.from({ length: count }, (_, i) => {
    const inst = rig.instance({ hidden });
    inst.play(0, { at: i * 0.013 });
    return inst;
  });

  // anim: one character.
  {
    const [one] = make(1, true);
    const crowd = mn.crowd([one]);
    const m = time(() => crowd.update(DT, { palettes: true }));
    const chars = threeCharacters(gltf, 1);
    const t = time(() => threeAnimate(chars));
    results.push({ case: 'anim', model: name, instances: 1, marionette_ms: m, three_ms: t });
    crowd.free(); one.free();
  }
  // anim_crowd and skin_crowd: 100 characters.
  {
    const hidden = make(CROWD, true), crowd = mn.crowd(hidden);
    const m = time(() => crowd.update(DT, { palettes: true }));
    const chars = threeCharacters(await new GLTFLoader().parseAsync(bytes.buffer.slice(0), ''), CROWD);
    const t = time(() => threeAnimate(chars));
    results.push({ case: 'anim_crowd', model: name, instances: CROWD, marionette_ms: m, three_ms: t });
    for (const h of hidden) h.visible = true;
    let skinned = 0;
    for (let p = 0; p < rig.partCount; p++) if (rig.partSkin(p) >= 0) skinned += hidden[0].vertexCount(p);
    const ms = time(() => crowd.update(DT));
    const buffers = threeSkinBuffers(chars);
    const ts = time(() => { threeAnimate(chars); threeSkin(chars, buffers); });
    results.push({ case: 'skin_crowd', model: name, instances: CROWD, vertices: skinned,
                   marionette_ms: ms, three_ms: ts });
    crowd.free();
    for (const h of hidden) h.free();
  }
  rig.free(); model.free();
  return results;
}

const mn = await init();
const urls = (new URLSearchParams(location.search).get('models') || '').split(',').filter(Boolean);
const all = [];
try {
  for (const url of urls) all.push(...(await benchModel(mn, url)));
  window.benchResults = all;
} catch (e) {
  window.benchError = String(e && e.stack || e);
}
document.getElementById('out').textContent = JSON.stringify(window.benchResults || window.benchError, null, 1);
