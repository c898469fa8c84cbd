// The voxel exporter against three.js: an exported model plays in three.js
// like the rig poses in marionette.
//
//   node export_check.mjs MODEL.(glb|gltf) RIG.json SAMPLES.jsonl [MESH.glb]
//
// SAMPLES.jsonl holds one `marionette sample RIG.json --json [--anim NAME
// --time-ms T]` object a line (tests/test_export.sh makes them): the rig's
// part worlds W (mn_voxel_pose) at the rest pose or at time T of animation
// NAME.  This script loads MODEL with three.js's own GLTFLoader in Node,
// plays the clip of that name at T / 1000 s in an AnimationMixer (or leaves
// the rest pose), and compares every part's node (found by name) with what
// voxel-rig-format.md says it must be:
//     node world = S · W · T(pivot) · S⁻¹      (S the scale interface.json records)
// For a *-skinned rig, MESH.glb (the rig's sculpted skinned mesh) is loaded
// too and every vertex of three.js's SkinnedMesh (getVertexPosition, then
// matrixWorld) must be S · Σ weight · W(bone's part) · v, the runtime's
// skinning of the sculpt.  Tolerance: 1e-4 of the model's size (the largest
// dimension of its rest-pose Box3) for positions and translations, 1e-4 for
// the rotation part.  The clips must also carry loop/autoPlay extras and
// durations matching interface.json.  Exits 1 on any mismatch.
//
// Images and materials are left out as in crosscheck.mjs (Node has no DOM);
// the exporter writes neither images nor textures, and one plain material.

import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { packGlb, readGltf } from './glb.mjs';

const TOLERANCE = 1e-4;

function die(message) {
  console.error(`export_check: ${message}`);
  process.exit(2);
}

// A GLB or .gltf (+ external .bin) as one in-memory GLB the loader parses without fetch.
function loadableGlb(file) {
  const { json, buffers } = readGltf(file, die);
  delete json.images;
  delete json.textures;
  delete json.samplers;
  for (const b of json.buffers || []) delete b.uri;
  return { json, buffer: packGlb(json, buffers[0] || null) };
}

async function load(file) {
  const { json, buffer } = loadableGlb(file);
  const gltf = await new GLTFLoader().parseAsync(buffer, '');
  return { json, gltf };
}

// The rig's part table: name -> {pivot, parent}.  A resolved run record holds the rig as "rig".
function readRig(file) {
  let doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!doc.parts && doc.rig) doc = doc.rig;
  const parts = new Map();
  for (const p of doc.parts) parts.set(p.name, { pivot: p.pivot });
  return { kind: doc.kind || 'cube', parts, animations: doc.animations || [] };
}

// S · W · T(pivot) · S⁻¹ as a THREE.Matrix4.
function expectedWorld(world, pivot, scale) {
  const m = new THREE.Matrix4().fromArray(world);
  m.multiply(new THREE.Matrix4().makeTranslation(pivot[0], pivot[1], pivot[2]));
  const e = m.elements;
  e[12] *= scale; e[13] *= scale; e[14] *= scale;
  return m;
}

async function main() {
  const [modelPath, rigPath, samplesPath, meshPath] = process.argv.slice(2);
  if (!modelPath || !rigPath || !samplesPath) die('usage: node export_check.mjs MODEL RIG.json SAMPLES.jsonl [MESH.glb]');
  const label = path.basename(modelPath);
  const rig = readRig(rigPath);
  const ifacePath = modelPath.replace(/\.(glb|gltf)$/i, '.interface.json');
  const iface = JSON.parse(fs.readFileSync(ifacePath, 'utf8'));
  const scale = iface.scale;
  const samples = fs.readFileSync(samplesPath, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

  const { json, gltf } = await load(modelPath);
  const parser = gltf.parser;
  const nodes = [];
  for (let i = 0; i < (json.nodes || []).length; i++) nodes.push(await parser.getDependency('node', i));
  const root = new THREE.Group();
  for (const obj of nodes) {
    let top = obj;
    while (top.parent) top = top.parent;
    if (top !== root) root.add(top);
  }
  const byName = new Map();
  json.nodes.forEach((n, i) => byName.set(n.name, nodes[i]));
  const rest = nodes.map((o) => [o.position.clone(), o.quaternion.clone(), o.scale.clone()]);

  const problems = [];
  // The clips: names, extras and durations as interface.json says.
  for (const a of iface.animations) {
    const k = json.animations.findIndex((x) => x.name === a.name);
    if (k < 0) { problems.push(`no clip ${a.name}`); continue; }
    const extras = json.animations[k].extras || {};
    if (extras.loop !== a.loop || extras.autoPlay !== a.autoPlay) problems.push(`clip ${a.name}: extras ${JSON.stringify(extras)}`);
    const clip = gltf.animations.find((c) => c.name === a.name);
    if (!clip || Math.abs(clip.duration - a.duration) > 1e-6) problems.push(`clip ${a.name}: duration ${clip && clip.duration}, interface ${a.duration}`);
  }

  function pose(sample) {
    nodes.forEach((o, i) => { o.position.copy(rest[i][0]); o.quaternion.copy(rest[i][1]); o.scale.copy(rest[i][2]); });
    if (sample.anim !== null) {
      const clip = gltf.animations.find((c) => c.name === sample.anim);
      if (!clip) return false;
      const mixer = new THREE.AnimationMixer(root);
      const action = mixer.clipAction(clip);
      action.play();
      action.time = sample.time_ms / 1000;   // update(0) evaluates at this time exactly
      mixer.update(0);
    }
    root.updateMatrixWorld(true);
    return true;
  }

  pose({ anim: null });
  const box = new THREE.Box3().setFromObject(root, true);
  const size = Math.max(...box.getSize(new THREE.Vector3()).toArray()) || 1;

  // The sculpted skinned mesh (for *-skinned rigs): its vertices, bones and influences.
  let sculpt = null;
  if (meshPath) {
    const m = await load(meshPath);
    let skinned = null;
    m.gltf.scene.traverse((o) => { if (o.isSkinnedMesh && !skinned) skinned = o; });
    if (!skinned) die(`${meshPath}: no skinned mesh`);
    const g = skinned.geometry.attributes;
    sculpt = { pos: g.position, idx: g.skinIndex, wgt: g.skinWeight, bones: skinned.skeleton.bones.map((b) => b.name) };
  }
  let exportedSkin = null;
  root.traverse((o) => { if (o.isSkinnedMesh && !exportedSkin) exportedSkin = o; });
  if (sculpt && !exportedSkin) problems.push('the export has no skinned mesh');

  let worstNode = 0, worstVertex = 0, compared = 0;
  const v = new THREE.Vector3();
  for (const s of samples) {
    const at = s.anim === null ? 'rest' : `${s.anim} t=${s.time_ms} ms`;
    if (!pose(s)) { problems.push(`${at}: no clip of that name`); continue; }
    const worlds = new Map();
    for (const p of s.parts) {
      const obj = byName.get(p.name);
      if (!obj) { problems.push(`no node named ${p.name}`); continue; }
      worlds.set(p.name, p.world);
      const want = expectedWorld(p.world, rig.parts.get(p.name).pivot, scale).elements;
      const got = obj.matrixWorld.elements;
      for (let k = 0; k < 16; k++) {
        const d = Math.abs(want[k] - got[k]) / (k >= 12 && k < 15 ? size : 1);
        if (d > worstNode) worstNode = d;
        if (d > TOLERANCE && problems.length < 20) problems.push(`${at}: node ${p.name} [${k}] three.js ${got[k]} expected ${want[k]}`);
      }
      compared++;
    }
    if (sculpt && exportedSkin) {
      const n = sculpt.pos.count;
      if (exportedSkin.geometry.attributes.position.count !== n) { problems.push('vertex counts differ'); continue; }
      for (let i = 0; i < n; i++) {
        exportedSkin.getVertexPosition(i, v).applyMatrix4(exportedSkin.matrixWorld);
        const want = [0, 0, 0];
        for (let c = 0; c < 4; c++) {
          const w = sculpt.wgt.getComponent(i, c);
          if (w === 0) continue;
          const bone = sculpt.bones[sculpt.idx.getComponent(i, c)];
          const W = worlds.get(bone);
          const p = new THREE.Vector3().fromBufferAttribute(sculpt.pos, i);
          if (W) p.applyMatrix4(new THREE.Matrix4().fromArray(W));
          want[0] += w * p.x * scale; want[1] += w * p.y * scale; want[2] += w * p.z * scale;
        }
        const got = [v.x, v.y, v.z];
        for (let c = 0; c < 3; c++) {
          const d = Math.abs(got[c] - want[c]) / size;
          if (d > worstVertex) worstVertex = d;
          if (d > TOLERANCE && problems.length < 20) problems.push(`${at}: vertex ${i}[${c}] three.js ${got[c]} expected ${want[c]}`);
        }
      }
    }
  }
  console.log(`export_check: ${label}: ${samples.length} samples, ${compared} node worlds, size ${size.toPrecision(4)}; ` +
    `max error: nodes ${worstNode.toExponential(2)}` + (sculpt ? `, skinned vertices ${worstVertex.toExponential(2)} x size` : ''));
  for (const p of problems) console.log(`export_check: ${label}: MISMATCH: ${p}`);
  process.exit(problems.length ? 1 : 0);
}

main().catch((e) => die(e && e.stack ? e.stack : String(e)));
