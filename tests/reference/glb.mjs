// What the three.js checks share to hand a model to GLTFLoader in Node, which
// has no fetch for external files: reading a GLB or .gltf with all its
// buffers, and packing JSON and one binary chunk into a GLB in memory.

import fs from 'node:fs';
import path from 'node:path';

const align4 = (n) => Math.ceil(n / 4) * 4;

// The JSON of a GLB or .gltf and every buffer's bytes (GLB BIN chunk, base64
// data: URI or a file beside it).  die(message) is called on what cannot be read.
export function readGltf(file, die) {
  const bytes = fs.readFileSync(file);
  let json;
  let bin = null;
  if (bytes.length >= 12 && bytes.readUInt32LE(0) === 0x46546c67) { // "glTF"
    let at = 12;
    while (at + 8 <= bytes.length) {
      const length = bytes.readUInt32LE(at);
      const type = bytes.readUInt32LE(at + 4);
      const chunk = bytes.subarray(at + 8, at + 8 + length);
      if (type === 0x4e4f534a) json = JSON.parse(chunk.toString('utf8')); // "JSON"
      else if (type === 0x004e4942 && bin === null) bin = chunk; // "BIN\0"
      at += 8 + length;
    }
    if (!json) die(`${file}: GLB without a JSON chunk`);
  } else {
    json = JSON.parse(bytes.toString('utf8'));
  }
  const buffers = (json.buffers || []).map((b, i) => {
    if (b.uri === undefined) {
      if (i !== 0 || bin === null) die(`${file}: buffers[${i}] has no uri and no GLB BIN chunk`);
      return bin.subarray(0, b.byteLength);
    }
    if (b.uri.startsWith('data:')) {
      const comma = b.uri.indexOf(',');
      if (!b.uri.slice(0, comma).endsWith(';base64')) die(`${file}: buffers[${i}] data: URI is not base64`);
      return Buffer.from(b.uri.slice(comma + 1), 'base64');
    }
    return fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(b.uri)));
  });
  return { json, buffers };
}

// A GLB of `json` and, when `bin` holds bytes, one BIN chunk (zero-padded to
// 4), as the ArrayBuffer GLTFLoader.parseAsync takes.
export function packGlb(json, bin) {
  let text = Buffer.from(JSON.stringify(json), 'utf8');
  text = Buffer.concat([text, Buffer.alloc(align4(text.length) - text.length, 0x20)]);
  const binLength = bin && bin.length ? align4(bin.length) : 0;
  const size = 12 + 8 + text.length + (binLength ? 8 + binLength : 0);
  const glb = Buffer.alloc(size);
  glb.writeUInt32LE(0x46546c67, 0); // "glTF"
  glb.writeUInt32LE(2, 4);
  glb.writeUInt32LE(size, 8);
  glb.writeUInt32LE(text.length, 12);
  glb.writeUInt32LE(0x4e4f534a, 16); // "JSON"
  text.copy(glb, 20);
  if (binLength) {
    glb.writeUInt32LE(binLength, 20 + text.length);
    glb.writeUInt32LE(0x004e4942, 24 + text.length); // "BIN\0"
    glb.set(bin, 28 + text.length);
  }
  return glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength);
}
