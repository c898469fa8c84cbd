// Write departures.gltf into the folder given: a small model built to hit every
// place where three.js departs from glTF 2.0 and crosscheck.mjs adjusts it
// (see the header of crosscheck.mjs), so that each adjustment is exercised and
// shown to be counted, not only described:
//   - node "morph": a mesh with two targets, the second with NORMAL only (no
//     POSITION), mesh weights 0.5 0.25 and a weights channel;
//   - node "skinned": a triangle with eight influences a vertex (JOINTS_0/WEIGHTS_0
//     and JOINTS_1/WEIGHTS_1) on a two-joint skin;
//   - joint "root" rotated by a channel whose keys are signed-byte normalised
//     and include a -128, and are off unit length once decoded.
//
//   node departures.mjs OUTDIR

import fs from 'node:fs';
import path from 'node:path';

const parts = [];
let length = 0;
const views = [];
const accessors = [];

// Append a typed array as one buffer view + accessor; returns the accessor index.
function add(array, type, componentType, extra = {}) {
  const pad = (4 - (length % 4)) % 4;
  if (pad) { parts.push(Buffer.alloc(pad)); length += pad; }
  const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  views.push({ buffer: 0, byteOffset: length, byteLength: bytes.length });
  parts.push(bytes);
  length += bytes.length;
  const comps = { SCALAR: 1, VEC3: 3, VEC4: 4, MAT4: 16 }[type];
  accessors.push({ bufferView: views.length - 1, componentType, type, count: array.length / comps, ...extra });
  return accessors.length - 1;
}

const F32 = 5126, I8 = 5120, U8 = 5121;
const bounds = (p) => {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i++) { min[i % 3] = Math.min(min[i % 3], p[i]); max[i % 3] = Math.max(max[i % 3], p[i]); }
  return { min, max };
};

// The morphed triangle.
const triangle = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
const triPos = add(triangle, 'VEC3', F32, bounds(triangle));
const triNormal = add(new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1]), 'VEC3', F32);
const delta0 = new Float32Array([0, 0, 0, 0.5, 0, 0, 0, 0.5, 0]);
const triDelta = add(delta0, 'VEC3', F32, bounds(delta0));
const triNormalDelta = add(new Float32Array([0, 0.1, 0, 0, 0.1, 0, 0, 0.1, 0]), 'VEC3', F32);

// The skinned triangle: eight influences a vertex, the second set small but not zero.
const strip = new Float32Array([0, 0, 0, 0, 1, 0, 1, 2, 0]);
const stripPos = add(strip, 'VEC3', F32, bounds(strip));
const joints0 = add(new Uint8Array([0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0]), 'VEC4', U8);
const weights0 = add(new Float32Array([0.6, 0.2, 0, 0, 0.4, 0.4, 0, 0, 0.8, 0, 0, 0]), 'VEC4', F32);
const joints1 = add(new Uint8Array([1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]), 'VEC4', U8);
const weights1 = add(new Float32Array([0.2, 0, 0, 0, 0.2, 0, 0, 0, 0.2, 0, 0, 0]), 'VEC4', F32);
// Joint 0 rests at the origin, joint 1 at (0, 1, 0): the inverse binds undo that.
const ibm = add(new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                  1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1]), 'MAT4', F32);

// Animation: a signed-byte rotation of the root (keys: identity, then z = -128 with w = 90),
// and the triangle's weights.
const times = new Float32Array([0, 1]);
const input = add(times, 'SCALAR', F32, { min: [0], max: [1] });
const rotation = add(new Int8Array([0, 0, 0, 127, 0, 0, -128, 90]), 'VEC4', I8, { normalized: true });
const weightKeys = add(new Float32Array([0, 0, 1, 0.5]), 'SCALAR', F32);

const buffer = Buffer.concat(parts);
const gltf = {
  asset: { version: '2.0', generator: 'marionette tests/reference/departures.mjs' },
  scene: 0,
  scenes: [{ nodes: [0, 1, 2] }],
  nodes: [
    { name: 'morph', mesh: 0 },
    { name: 'skinned', mesh: 1, skin: 0 },
    { name: 'root', children: [3] },
    { name: 'tip', translation: [0, 1, 0] },
  ],
  meshes: [
    {
      name: 'triangle',
      weights: [0.5, 0.25],
      primitives: [{
        attributes: { POSITION: triPos, NORMAL: triNormal },
        targets: [{ POSITION: triDelta }, { NORMAL: triNormalDelta }],
      }],
    },
    {
      name: 'strip',
      primitives: [{
        attributes: { POSITION: stripPos, JOINTS_0: joints0, WEIGHTS_0: weights0, JOINTS_1: joints1, WEIGHTS_1: weights1 },
      }],
    },
  ],
  skins: [{ joints: [2, 3], inverseBindMatrices: ibm }],
  animations: [{
    name: 'departures',
    samplers: [{ input, output: rotation }, { input, output: weightKeys }],
    channels: [
      { sampler: 0, target: { node: 2, path: 'rotation' } },
      { sampler: 1, target: { node: 0, path: 'weights' } },
    ],
  }],
  buffers: [{ byteLength: buffer.length, uri: `data:application/octet-stream;base64,${buffer.toString('base64')}` }],
  bufferViews: views,
  accessors,
};

const out = path.join(process.argv[2] || '.', 'departures.gltf');
fs.writeFileSync(out, JSON.stringify(gltf, null, 1));
console.log(out);
