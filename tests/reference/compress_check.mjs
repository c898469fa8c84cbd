// A glTF that `marionette compress IN OUT.glb` wrote, played in three.js
// (GLTFLoader with its meshopt decoder) against the library's sampling of
// the SOURCE file.
//
//   node compress_check.mjs OUT.glb SAMPLE.json BOUND [SHELL]
//
// SAMPLE.json: `marionette sample IN --json --clip all --times keys+mid
// --vertices none` of the source IN.  At every sample (clip, time) OUT's clip
// of the same index is played by an AnimationMixer (a fresh one each time,
// update(0) at the time, as crosscheck.mjs does), every node's matrixWorld
// taken, and the three virtual vertices of the error metric (SHELL, default
// 0.03, along each node's local x, y and z) compared with the same vertices
// of the library's world matrix of that node in SAMPLE.json.  Passes when the
// largest distance is at most BOUND plus a float tolerance (1e-6 of the
// model's size, at least 1e-6); prints the largest and where it is.
// Images, textures and materials are dropped before parsing (Node has no DOM
// to decode images; none of them moves a node).
import fs from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/examples/jsm/libs/meshopt_decoder.module.js';
import { packGlb } from './glb.mjs';

function die(message) {
  console.log(`compress_check: FAILED: ${message}`);
  process.exit(1);
}

// OUT's JSON without images, and its BIN chunk (buffer 0; buffer 1 is the meshopt fallback).
function readGlb(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.readUInt32LE(0) !== 0x46546c67) die(`${file} is not a GLB`);
  let json = null;
  let bin = null;
  for (let at = 12; at + 8 <= bytes.length;) {
    const length = bytes.readUInt32LE(at);
    const type = bytes.readUInt32LE(at + 4);
    const chunk = bytes.subarray(at + 8, at + 8 + length);
    if (type === 0x4e4f534a) json = JSON.parse(chunk.toString('utf8'));
    else if (type === 0x004e4942 && bin === null) bin = chunk;
    at += 8 + length;
  }
  if (!json) die(`${file}: no JSON chunk`);
  delete json.images;
  delete json.textures;
  delete json.samplers;
  delete json.materials;
  for (const mesh of json.meshes || []) for (const p of mesh.primitives) delete p.material;
  return packGlb(json, bin);
}

async function main() {
  const [outPath, samplePath, boundArg, shellArg] = process.argv.slice(2);
  if (!outPath || !samplePath || !boundArg) die('usage: node compress_check.mjs OUT.glb SAMPLE.json BOUND [SHELL]');
  const bound = Number(boundArg);
  const shell = shellArg ? Number(shellArg) : 0.03;
  const sample = JSON.parse(fs.readFileSync(samplePath, 'utf8'));
  if (sample.format !== 'marionette-sample/1') die(`${samplePath}: format is ${sample.format}`);

  await MeshoptDecoder.ready;
  const loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder);
  const gltf = await loader.parseAsync(readGlb(outPath), '');
  const parser = gltf.parser;
  const nodeDefs = parser.json.nodes || [];
  if (nodeDefs.length !== sample.nodes.length) die(`${nodeDefs.length} nodes, the source has ${sample.nodes.length}`);
  if (gltf.animations.length !== sample.clips.length)
    die(`${gltf.animations.length} animations, the source has ${sample.clips.length}`);
  const nodes = [];
  for (let i = 0; i < nodeDefs.length; i++) nodes.push(await parser.getDependency('node', i));
  const root = new THREE.Group();
  for (const obj of nodes) {
    let top = obj;
    while (top.parent) top = top.parent;
    if (top !== root) root.add(top);
  }
  const rest = [];
  root.traverse((o) => rest.push([o, o.position.clone(), o.quaternion.clone(), o.scale.clone()]));

  function pose(clip, time) {
    for (const [o, p, q, s] of rest) {
      o.position.copy(p);
      o.quaternion.copy(q);
      o.scale.copy(s);
    }
    const mixer = new THREE.AnimationMixer(root);
    const action = mixer.clipAction(gltf.animations[clip]);
    action.play();
    action.time = time;
    mixer.update(0);
    for (const obj of nodes) obj.quaternion.normalize();
    root.updateMatrixWorld(true);
  }

  // The three vertices of a world matrix (column-major 16 floats).
  const vertices = (m) => [0, 1, 2].map((axis) => [0, 1, 2].map((r) => m[12 + r] + shell * m[4 * axis + r]));
  let size = 0;
  let worst = 0;
  let where = 'nothing compared';
  let compared = 0;
  for (const s of sample.samples) {
    if (s.clip < 0) continue;
    pose(s.clip, Math.fround(s.time));
    nodes.forEach((obj, n) => {
      const ours = vertices(s.world_matrices[n]);
      const theirs = vertices(obj.matrixWorld.elements);
      for (let k = 0; k < 3; k++) {
        size = Math.max(size, Math.hypot(...ours[k]));
        const d = Math.hypot(ours[k][0] - theirs[k][0], ours[k][1] - theirs[k][1], ours[k][2] - theirs[k][2]);
        compared++;
        if (!(d <= worst)) {
          worst = Number.isNaN(d) ? Infinity : d;
          where = `clip ${s.clip} t=${s.time} node ${n} axis ${k}`;
        }
      }
    });
  }
  const tolerance = bound + 1e-6 * Math.max(1, size);
  const verdict = worst <= tolerance ? 'ok' : 'FAILED';
  console.log(`compress_check: ${verdict} ${outPath}: ${compared} vertices, max ${worst.toExponential(3)} m ` +
    `at ${where} (bound ${bound} + ${(tolerance - bound).toExponential(1)})`);
  process.exit(verdict === 'ok' ? 0 : 1);
}

main().catch((e) => die(e && e.stack ? e.stack : String(e)));
