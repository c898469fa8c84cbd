// Cross-check `marionette sample --json` against three.js.
//
//   node crosscheck.mjs MODEL.(glb|gltf) SAMPLE.json
//
// SAMPLE.json must be the output of
//   marionette sample MODEL --json --rest --clip all --times keys+mid --vertices deformed
// (tests/test_crosscheck.sh runs exactly that).  This script loads MODEL with
// three.js's own GLTFLoader in Node, poses it at every sample of the JSON with
// an AnimationMixer, and compares, number by number:
//   - the list of samples (the rest pose, then every clip at keys+mid, which
//     this script derives again from three.js's tracks),
//   - every node's world matrix (Object3D.matrixWorld after updateMatrixWorld),
//   - the morph weights of every node whose mesh has targets
//     (Mesh.morphTargetInfluences),
//   - the world-space positions of every skinned or morphed primitive
//     (Mesh/SkinnedMesh.getVertexPosition, then matrixWorld).
// Tolerance: 1e-5 of the model's size (the largest dimension of its rest-pose
// bounding box, three.js's Box3.setFromObject(precise)) for positions and
// matrix translations; 1e-5 for morph weights and for the matrices' 3x3 part,
// relative to the column's length when that is above 1 (these are unitless).
//
// Where three.js departs from the glTF 2.0 specification, marionette follows
// the specification, so the reference is adjusted to the specification here,
// explicitly, and each adjustment is counted in the report:
//   1. three.js never normalises quaternions: a key stored slightly off unit
//      length (common in exported files) stays off, and its matrix is then
//      scaled by |q|^2.  glTF says rotations are unit quaternions and the
//      issue says every sampled rotation is normalised: we normalise every
//      node's quaternion after the mixer has applied the clip.
//   2. A morph target without POSITION gets the BASE position as its
//      "delta" in GLTFLoader (with morphTargetsRelative, weight x p is then
//      added).  glTF says an absent attribute of a target is a zero delta: we
//      give three.js a zero delta array for such targets.
//   3. three.js reads only the first four influences (JOINTS_0/WEIGHTS_0).
//      glTF allows JOINTS_n/WEIGHTS_n sets beyond that: a primitive with
//      JOINTS_1 is NOT compared (three.js cannot give its positions); it is
//      listed as skipped, never silently.
//   4. GLTFLoader scales normalised signed animation outputs by 1/127 (or
//      1/32767) without glTF's max(c/127, -1) clamp, so a stored -128
//      becomes -1.0079.  We rewrite such stored minima to -127 / -32767,
//      which glTF maps to the same -1.
// tests/reference/departures.mjs writes a model that needs all four; test_crosscheck.sh
// checks that each is applied and reported.
// Not departures, checked and left alone: CUBICSPLINE (GLTFCubicSplineInterpolant
// scales the tangents by the key interval and normalises quaternions after,
// as glTF says); LINEAR rotations (slerpFlat, short arc); STEP; clamping
// outside a track's keys (Interpolant.evaluate); `matrix` nodes (decomposed
// into TRS by both); skinned meshes bound with an identity bind matrix and
// AttachedBindMode, so matrixWorld x bindMatrixInverse is the identity and a
// skinned mesh is placed by its joints alone, as glTF says.
//
// Images, textures, samplers and materials are removed before parsing (Node
// has no DOM to decode images, and none of them moves a vertex), and every
// buffer (GLB BIN, data: URI or external file) is merged into the BIN chunk of
// a GLB built in memory, so the loader needs no fetch.

import fs from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { packGlb, readGltf } from './glb.mjs';

const TOLERANCE = 1e-5;

function die(message) {
  console.error(`crosscheck: ${message}`);
  process.exit(2);
}

// ---- the model, made loadable in Node ---------------------------------------

const align = (n, a) => Math.ceil(n / a) * a;

// Departure 4: clamp stored minima of signed normalised animation outputs (see the header).
function clampSignedAnimationOutputs(json, merged, counts) {
  const seen = new Set();
  for (const anim of json.animations || []) {
    for (const sampler of anim.samplers || []) {
      const acc = json.accessors[sampler.output];
      if (!acc.normalized || seen.has(sampler.output) || acc.bufferView === undefined) continue;
      seen.add(sampler.output);
      const size = { 5120: 1, 5122: 2 }[acc.componentType];
      if (!size) continue;
      const view = json.bufferViews[acc.bufferView];
      const comps = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 }[acc.type];
      const stride = view.byteStride || size * comps;
      const dv = new DataView(merged.buffer, merged.byteOffset, merged.byteLength);
      for (let e = 0; e < acc.count; e++) {
        for (let c = 0; c < comps; c++) {
          const at = view.byteOffset + (acc.byteOffset || 0) + e * stride + c * size;
          if (size === 1 && dv.getInt8(at) === -128) { dv.setInt8(at, -127); counts.clampedMinima++; }
          if (size === 2 && dv.getInt16(at, true) === -32768) { dv.setInt16(at, -32767, true); counts.clampedMinima++; }
        }
      }
    }
  }
}

// One GLB (JSON + one BIN chunk) holding what three.js needs to pose the model.
function buildGlb(json, buffers, counts) {
  const unsupported = (json.extensionsRequired || []).filter(
    (e) => e !== 'KHR_mesh_quantization' && !/^(KHR_texture_|KHR_materials_|EXT_texture_)/.test(e));
  if (unsupported.length) die(`cannot cross-check a file that requires ${unsupported.join(', ')}`);
  const keep = (list) => (list || []).filter((e) => e === 'KHR_mesh_quantization');
  json.extensionsUsed = keep(json.extensionsUsed);
  json.extensionsRequired = keep(json.extensionsRequired);
  delete json.images;
  delete json.textures;
  delete json.samplers;
  delete json.materials;
  for (const mesh of json.meshes || []) for (const prim of mesh.primitives) delete prim.material;

  const base = [];
  let total = 0;
  for (const b of buffers) {
    total = align(total, 16);
    base.push(total);
    total += b.length;
  }
  const merged = new Uint8Array(align(total, 4));
  buffers.forEach((b, i) => merged.set(b, base[i]));
  for (const view of json.bufferViews || []) {
    view.byteOffset = (view.byteOffset || 0) + base[view.buffer];
    view.buffer = 0;
  }
  json.buffers = merged.length ? [{ byteLength: merged.length }] : [];
  clampSignedAnimationOutputs(json, merged, counts);

  return packGlb(json, merged);
}

// ---- what marionette must have sampled ----------------------------------------

// keys+mid in float32, as sample-json.md defines it and marionette computes it.
function keysPlusMid(clip) {
  const all = [];
  for (const track of clip.tracks) for (const t of track.times) all.push(t);
  all.sort((a, b) => a - b);
  const keys = all.filter((t, i) => i === 0 || t !== all[i - 1]);
  if (keys.length === 0) return [];
  const f = Math.fround;
  const out = [f(keys[0] - 0.25)];
  keys.forEach((k, i) => {
    out.push(k);
    if (i + 1 < keys.length) out.push(f(f(k + keys[i + 1]) * 0.5));
  });
  out.push(f(keys[keys.length - 1] + 0.25));
  return out;
}

// ---- the comparison -------------------------------------------------------------

class Tally {
  constructor(label, tolerance) {
    this.label = label;
    this.tolerance = tolerance;
    this.max = 0;
    this.count = 0;
    this.worst = null;
    this.failures = [];
  }

  // err is already scaled (relative to size or to 1); where() says what was
  // compared (called at once: the values it names change with the next sample).
  add(err, where) {
    this.count++;
    if (!(err <= this.max)) { // NaN counts as the worst
      this.max = Number.isNaN(err) ? Infinity : err;
      this.worst = where();
    }
    if (!(err <= this.tolerance) && this.failures.length < 10) this.failures.push(where());
  }
}

async function main() {
  const [modelPath, samplePath] = process.argv.slice(2);
  if (!modelPath || !samplePath) die('usage: node crosscheck.mjs MODEL SAMPLE.json');
  const label = modelPath.split(/[\\/]/).slice(-3).join('/'); // Model/variant/file
  const sample = JSON.parse(fs.readFileSync(samplePath, 'utf8'));
  if (sample.format !== 'marionette-sample/1') die(`${samplePath}: format is ${sample.format}`);

  const counts = { offUnit: 0, offUnitMax: 0, zeroedTargets: 0, skippedPrimitives: [], clampedMinima: 0 };
  const { json, buffers } = readGltf(modelPath, die);
  const glb = buildGlb(json, buffers, counts);
  const gltf = await new GLTFLoader().parseAsync(glb, '');
  const parser = gltf.parser;
  const gj = parser.json;
  const nodeDefs = gj.nodes || [];

  // Every glTF node's Object3D (cached by the parser: the same objects the scenes and clips use).
  const nodes = [];
  for (let i = 0; i < nodeDefs.length; i++) nodes.push(await parser.getDependency('node', i));
  const nodeSet = new Set(nodes);

  // One root above every top-level object, scenes and nodes in no scene alike (all identity).
  const root = new THREE.Group();
  for (const obj of nodes) {
    let top = obj;
    while (top.parent) top = top.parent;
    if (top !== root) root.add(top);
  }

  // The three.js mesh object of (node, primitive): its Mesh descendants that belong to no other node.
  function primitiveObjects(n) {
    const found = [];
    const visit = (obj) => {
      if (obj !== nodes[n] && nodeSet.has(obj)) return;
      if (obj.isMesh) found.push(obj);
      obj.children.forEach(visit);
    };
    visit(nodes[n]);
    const byPrimitive = [];
    for (const obj of found) {
      const a = parser.associations.get(obj);
      if (a && a.meshes === nodeDefs[n].mesh && a.primitives !== undefined) byPrimitive[a.primitives] = obj;
    }
    return byPrimitive;
  }

  // Departure 2: targets without POSITION get a zero delta (see the header).
  for (let n = 0; n < nodeDefs.length; n++) {
    if (nodeDefs[n].mesh === undefined) continue;
    const prims = gj.meshes[nodeDefs[n].mesh].primitives;
    primitiveObjects(n).forEach((obj, p) => {
      const morph = obj.geometry.morphAttributes.position;
      (prims[p].targets || []).forEach((target, k) => {
        if (target.POSITION === undefined && morph && morph[k]) {
          morph[k] = new THREE.Float32BufferAttribute(new Float32Array(morph[k].count * 3), 3);
          counts.zeroedTargets++;
        }
      });
    });
  }

  // The rest state of every object, restored before each sample.
  const rest = [];
  root.traverse((o) => rest.push([o, o.position.clone(), o.quaternion.clone(), o.scale.clone(),
    o.morphTargetInfluences ? o.morphTargetInfluences.slice() : null]));
  function restoreRest() {
    for (const [o, p, q, s, w] of rest) {
      o.position.copy(p);
      o.quaternion.copy(q);
      o.scale.copy(s);
      if (w) for (let i = 0; i < w.length; i++) o.morphTargetInfluences[i] = w[i];
    }
  }

  // Departure 1: unit quaternions (see the header).
  function normaliseRotations() {
    for (const obj of nodes) {
      const len = obj.quaternion.length();
      if (Math.abs(len - 1) > 1e-7) {
        counts.offUnit++;
        counts.offUnitMax = Math.max(counts.offUnitMax, Math.abs(len - 1));
      }
      obj.quaternion.normalize();
    }
  }

  // Pose three.js at one sample.  A fresh mixer each time: PropertyMixer only
  // writes a value that differs from the one it wrote last, so a reused mixer
  // would leave our restored rest value in place when two samples agree.  The
  // old mixer is simply dropped (stopping it would restore its saved state).
  function pose(clipIndex, time) {
    restoreRest();
    if (clipIndex >= 0) {
      const mixer = new THREE.AnimationMixer(root);
      const action = mixer.clipAction(gltf.animations[clipIndex]);
      action.play();
      // update(0) evaluates every track at action.time exactly: no loop
      // wrapping, and each track clamps outside its own keys.
      action.time = time;
      mixer.update(0);
    }
    normaliseRotations();
    root.updateMatrixWorld(true);
  }

  // The model's size: the largest dimension of its rest-pose box.
  pose(-1, null);
  const box = new THREE.Box3().setFromObject(root, true);
  const dims = box.isEmpty() ? [0, 0, 0] : box.getSize(new THREE.Vector3()).toArray();
  let size = Math.max(...dims);
  if (!(size > 0)) size = 1;

  // What marionette must have printed: the shape first.
  const problems = [];
  if (sample.nodes.length !== nodeDefs.length) problems.push(`${sample.nodes.length} nodes, the file has ${nodeDefs.length}`);
  sample.nodes.forEach((n, i) => {
    const d = nodeDefs[i] || {};
    const parent = nodeDefs.findIndex((p) => (p.children || []).includes(i));
    if (n.index !== i || n.parent !== parent || n.mesh !== (d.mesh ?? -1) || n.skin !== (d.skin ?? -1))
      problems.push(`nodes[${i}] is ${JSON.stringify(n)}: parent ${parent}, mesh ${d.mesh ?? -1}, skin ${d.skin ?? -1} expected`);
  });
  const animCount = (gj.animations || []).length;
  if (sample.clips.length !== animCount) problems.push(`${sample.clips.length} clips, the file has ${animCount}`);
  const expected = [[-1, null]];
  gltf.animations.forEach((clip, c) => keysPlusMid(clip).forEach((t) => expected.push([c, t])));
  // %.9g round-trips a float: Math.fround gives back the exact float32 marionette sampled at.
  const got = sample.samples.map((s) => [s.clip, s.time === null ? null : Math.fround(s.time)]);
  if (JSON.stringify(got) !== JSON.stringify(expected))
    problems.push(`samples are ${JSON.stringify(got).slice(0, 300)}, expected (rest, then keys+mid per clip) ${JSON.stringify(expected).slice(0, 300)}`);

  // Which primitives must have positions (deformed: skinned or morphed) and which nodes weights.
  const wantPrims = [];
  const wantWeights = [];
  nodeDefs.forEach((d, n) => {
    if (d.mesh === undefined) return;
    const prims = gj.meshes[d.mesh].primitives;
    if (prims.some((p) => (p.targets || []).length > 0)) wantWeights.push(n);
    prims.forEach((p, i) => {
      if (p.attributes.POSITION === undefined) return;
      const skinned = d.skin !== undefined && p.attributes.JOINTS_0 !== undefined && p.attributes.WEIGHTS_0 !== undefined;
      const morphed = (p.targets || []).length > 0;
      if (skinned || morphed) wantPrims.push({ node: n, mesh: d.mesh, primitive: i, skinned, morphed });
    });
  });

  const matLinear = new Tally('world matrices (3x3)', TOLERANCE);
  const matTranslation = new Tally('world matrices (translation)', TOLERANCE);
  const weightTally = new Tally('morph weights', TOLERANCE);
  const posTally = new Tally('positions', TOLERANCE);
  const v = new THREE.Vector3();

  for (const s of sample.samples) {
    if (problems.length) break;
    const at = s.clip < 0 ? 'rest' : `clip ${s.clip} t=${s.time}`;
    pose(s.clip, s.time === null ? null : Math.fround(s.time));

    if (s.world_matrices.length !== nodes.length) { problems.push(`${at}: ${s.world_matrices.length} world matrices`); break; }
    nodes.forEach((obj, n) => {
      const e = obj.matrixWorld.elements;
      const m = s.world_matrices[n];
      for (let c = 0; c < 4; c++) {
        const colLen = Math.max(1, Math.hypot(e[4 * c], e[4 * c + 1], e[4 * c + 2]));
        for (let r = 0; r < 4; r++) {
          const k = 4 * c + r;
          const diff = Math.abs(m[k] - e[k]);
          const where = () => `${at}: node ${n} world matrix [${k}] marionette ${m[k]} three.js ${e[k]}`;
          if (c === 3 && r < 3) matTranslation.add(diff / size, where);
          else matLinear.add(diff / (r < 3 ? colLen : 1), where);
        }
      }
    });

    const gotWeights = s.morph_weights.map((w) => w.node);
    if (JSON.stringify(gotWeights) !== JSON.stringify(wantWeights)) { problems.push(`${at}: morph weights for nodes ${gotWeights}, expected ${wantWeights}`); break; }
    for (const w of s.morph_weights) {
      const obj = primitiveObjects(w.node).find((o) => o && o.morphTargetInfluences);
      if (!obj) { problems.push(`${at}: three.js has no morph targets on node ${w.node}`); continue; }
      const infl = obj.morphTargetInfluences;
      if (w.mesh !== nodeDefs[w.node].mesh || w.weights.length < infl.length) problems.push(`${at}: node ${w.node} has ${w.weights.length} weights, three.js ${infl.length}`);
      infl.forEach((x, i) => weightTally.add(Math.abs(w.weights[i] - x), () => `${at}: node ${w.node} weight ${i} marionette ${w.weights[i]} three.js ${x}`));
    }

    const gotPrims = s.primitives.map((p) => ({ node: p.node, mesh: p.mesh, primitive: p.primitive, skinned: p.skinned, morphed: p.morphed }));
    if (JSON.stringify(gotPrims) !== JSON.stringify(wantPrims)) { problems.push(`${at}: primitives ${JSON.stringify(gotPrims)}, expected ${JSON.stringify(wantPrims)}`); break; }
    for (const p of s.primitives) {
      const def = gj.meshes[p.mesh].primitives[p.primitive];
      // Departure 3: three.js cannot skin more than four influences (see the header).
      if (p.skinned && def.attributes.JOINTS_1 !== undefined) {
        const note = `node ${p.node} mesh ${p.mesh} primitive ${p.primitive} (JOINTS_1: three.js reads four influences)`;
        if (!counts.skippedPrimitives.includes(note)) counts.skippedPrimitives.push(note);
        continue;
      }
      const obj = primitiveObjects(p.node)[p.primitive];
      const count = obj.geometry.attributes.position.count;
      if (p.vertex_count !== count || p.positions.length !== 3 * count) { problems.push(`${at}: node ${p.node} primitive ${p.primitive}: ${p.vertex_count} vertices, three.js has ${count}`); continue; }
      if (p.skinned !== Boolean(obj.isSkinnedMesh)) { problems.push(`${at}: node ${p.node} primitive ${p.primitive}: skinned ${p.skinned}, three.js ${Boolean(obj.isSkinnedMesh)}`); continue; }
      for (let i = 0; i < count; i++) {
        obj.getVertexPosition(i, v).applyMatrix4(obj.matrixWorld);
        const ref = [v.x, v.y, v.z];
        for (let c = 0; c < 3; c++) {
          const mine = p.positions[3 * i + c];
          posTally.add(Math.abs(mine - ref[c]) / size,
            () => `${at}: node ${p.node} primitive ${p.primitive} vertex ${i}[${c}] marionette ${mine} three.js ${ref[c]}`);
        }
      }
    }
  }

  // ---- the report ----
  const fmt = (t) => (t.count ? t.max.toExponential(2) : '-');
  const notes = [];
  if (counts.offUnit) notes.push(`normalised ${counts.offUnit} sampled node rotations three.js left off unit length (largest | |q|-1 | ${counts.offUnitMax.toExponential(2)})`);
  if (counts.zeroedTargets) notes.push(`gave ${counts.zeroedTargets} morph targets without POSITION a zero delta`);
  if (counts.clampedMinima) notes.push(`clamped ${counts.clampedMinima} signed normalised animation minima`);
  if (counts.skippedPrimitives.length) notes.push(`SKIPPED positions of ${counts.skippedPrimitives.join('; ')}`);
  const vertices = wantPrims.reduce((sum, p) => sum + gj.accessors[gj.meshes[p.mesh].primitives[p.primitive].attributes.POSITION].count, 0);
  console.log(`crosscheck: ${label}: ${sample.samples.length} samples, ${nodes.length} nodes, ` +
    `${wantPrims.length} deformed primitives (${vertices} vertices), size ${size.toPrecision(4)}; max error: ` +
    `matrices ${fmt(matLinear)} (3x3) ${fmt(matTranslation)} x size (translation), ` +
    `weights ${fmt(weightTally)}, positions ${fmt(posTally)} x size` +
    (notes.length ? `; three.js adjusted to glTF: ${notes.join('; ')}` : ''));

  let failed = false;
  for (const p of problems) { console.log(`crosscheck: ${label}: MISMATCH: ${p}`); failed = true; }
  for (const t of [matLinear, matTranslation, weightTally, posTally]) {
    if (t.max > t.tolerance) {
      failed = true;
      console.log(`crosscheck: ${label}: MISMATCH: ${t.label} differ by up to ${t.max.toExponential(3)}` +
        `${t === matLinear || t === weightTally ? '' : ' x size'} (tolerance ${t.tolerance}); worst: ${t.worst}`);
      for (const f of t.failures) console.log(`    ${f}`);
    }
  }
  process.exit(failed ? 1 : 0);
}

main().catch((e) => die(e && e.stack ? e.stack : String(e)));
