// The viewer page (index.html): open or drop a GLB, play its clips with crossfade, scrub, speed
// and pause, with skeleton and wireframe overlays, and a blend pad: a 2D blend tree of the first
// three clips (a model with fewer: its clips at three phases) driven by a point on a square.  marionette (wasm) animates and skins on the
// CPU; WebGL2 only draws the buffers it writes.  window.viewer exposes the state the browser test
// (tests/web/browser_check.mjs) reads.
import { init } from './marionette.mjs';

const $ = (id) => document.getElementById(id);
const canvas = $('canvas');
const gl = canvas.getContext('webgl2', { preserveDrawingBuffer: true, antialias: true });

const state = { model: null, rig: null, instance: null, parts: [], clip: -1, paused: false,
                tree: null, padTime: 0, padOffsets: [0, 0, 0], pad: [0.5, 0.4],
                lastFrame: 0, updateMs: 0, yaw: 0.6, pitch: 0.25, distance: 2.5, center: [0, 0, 0] };

// ---- GL --------------------------------------------------------------------------------------
function shader(type, source) {
  const s = gl.createShader(type);
  gl.shaderSource(s, source);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
  return s;
}

function program(vs, fs) {
  const p = gl.createProgram();
  gl.attachShader(p, shader(gl.VERTEX_SHADER, vs));
  gl.attachShader(p, shader(gl.FRAGMENT_SHADER, fs));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
  return p;
}

const meshProgram = program(`#version 300 es
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
uniform mat4 viewProjection, model;
out vec3 vNormal;
void main() {
  vNormal = mat3(model) * normal;
  gl_Position = viewProjection * model * vec4(position, 1.0);
}`, `#version 300 es
precision mediump float;
in vec3 vNormal; uniform vec4 color; uniform float flat_;
out vec4 outColor;
void main() {
  vec3 n = normalize(vNormal);
  float light = 0.35 + 0.65 * max(dot(n, normalize(vec3(0.4, 0.8, 0.6))), 0.0);
  outColor = vec4(mix(color.rgb * light, color.rgb, flat_), 1.0);
}`);

const lineProgram = program(`#version 300 es
layout(location = 0) in vec3 position;
uniform mat4 viewProjection, model;
void main() { gl_Position = viewProjection * model * vec4(position, 1.0); }`, `#version 300 es
precision mediump float; uniform vec4 color; out vec4 outColor;
void main() { outColor = color; }`);

function perspective(fovy, aspect, near, far) {
  const f = 1 / Math.tan(fovy / 2), nf = 1 / (near - far);
  return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * nf, -1, 0, 0, 2 * far * near * nf, 0];
}

function lookAt(eye, at) {
  const z = normalize(sub(eye, at)), x = normalize(cross([0, 1, 0], z)), y = cross(z, x);
  return [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0,
          -dot(x, eye), -dot(y, eye), -dot(z, eye), 1];
}
const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const normalize = (a) => { const l = Math.hypot(...a) || 1; return [a[0] / l, a[1] / l, a[2] / l]; };
function multiply(a, b) {
  const o = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++)
    for (let k = 0; k < 4; k++) o[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return o;
}

// ---- loading ---------------------------------------------------------------------------------
let mn = null;

function freeModel() {
  for (const p of state.parts) { gl.deleteBuffer(p.positions); gl.deleteBuffer(p.normals);
                                 gl.deleteBuffer(p.indices); gl.deleteBuffer(p.edges); gl.deleteVertexArray(p.vao); }
  state.parts = [];
  if (state.tree) state.tree.free();
  state.tree = null;
  if (state.instance) state.instance.free();
  if (state.rig) state.rig.free();
  if (state.model) state.model.free();
  state.instance = state.rig = state.model = null;
  state.clip = -1;
}

function edgesOf(indices) {
  const edges = new Uint32Array(indices.length * 2);
  for (let t = 0; t < indices.length; t += 3)
    for (let e = 0; e < 3; e++) {
      edges[(t + e) * 2] = indices[t + e];
      edges[(t + e) * 2 + 1] = indices[t + (e + 1) % 3];
    }
  return edges;
}

function showError(message) { $('error').textContent = message; }

// Load a GLB's bytes.  A file the library refuses leaves the page as it was, with its message.
function load(bytes, name) {
  let model;
  try {
    model = mn.loadModel(bytes);
  } catch (e) {
    showError(`${name}: ${e.status || 'error'}: ${e.message}`);
    return false;
  }
  freeModel();
  showError('');
  state.model = model;
  state.rig = model.rig();
  state.instance = state.rig.instance();
  // An instance is placed fitted into a unit box about the origin (marionette/instance.h,
  // THE UNIT-FIT): its draw matrices take the model there, so the camera frames that box.
  state.center = [0, 0, 0];
  state.distance = 1.6;
  for (let i = 0; i < state.rig.partCount; i++) {
    const indices = state.rig.indices(i);
    if (indices.length === 0) continue;
    const part = { index: i, count: indices.length, color: state.rig.color(i),
                   vao: gl.createVertexArray(), positions: gl.createBuffer(), normals: gl.createBuffer(),
                   indices: gl.createBuffer(), edges: gl.createBuffer(), edgeCount: indices.length * 2 };
    gl.bindVertexArray(part.vao);
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, part.indices);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, indices, gl.STATIC_DRAW);
    gl.bindVertexArray(null);
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, part.edges);
    gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, edgesOf(indices), gl.STATIC_DRAW);
    state.parts.push(part);
  }
  listClips();
  makePadTree();
  if (state.rig.clips.length) play(0, 0);
  state.instance.update(0);
  return true;
}

function listClips() {
  const box = $('clips');
  box.textContent = '';
  state.rig.clips.forEach((clip, i) => {
    const b = document.createElement('button');
    b.textContent = `${clip.name || `clip ${i}`} (${clip.duration.toFixed(2)} s)`;
    b.dataset.clip = i;
    b.onclick = () => play(i, Number($('fade').value));
    box.appendChild(b);
  });
}

// ---- the blend pad ----------------------------------------------------------------------------
// Three leaves at the corners of a triangle on the pad, each on its own clock: clips 0, 1, 2, or
// with fewer clips, the clips again a third of a duration apart.
const PAD_POINTS = [[0, 0], [1, 0], [0.5, 1]];

function makePadTree() {
  const clips = state.rig.clips;
  if (clips.length === 0) return;
  const nodes = PAD_POINTS.map((_, k) => ({ kind: 'clip', clip: k % clips.length, clock: `t${k}` }));
  state.padOffsets = PAD_POINTS.map((_, k) => clips.length >= 3 ? 0 : (k / 3) * clips[k % clips.length].duration);
  nodes.push({ kind: '2d', parameter: 'x', parameterY: 'y', children: [0, 1, 2], positions: PAD_POINTS });
  state.tree = state.rig.blendTree({ nodes, root: 3 });
  state.padTime = 0;
}

function drivePad(dt) {
  const tree = state.tree;
  if (!state.paused) state.padTime += dt * Number($('speed').value);
  for (let k = 0; k < 3; k++) tree.set(`t${k}`, state.padTime + state.padOffsets[k]);
  tree.set('x', state.pad[0]);
  tree.set('y', state.pad[1]);
  state.instance.drive(tree);
}

function drawPad() {
  const c = $('pad'), g = c.getContext('2d'), w = c.width, h = c.height;
  const at = ([x, y]) => [8 + x * (w - 16), h - 8 - y * (h - 16)];
  g.clearRect(0, 0, w, h);
  g.strokeStyle = '#9aa0a6';
  g.beginPath();
  PAD_POINTS.forEach((p, k) => { const [x, y] = at(p); if (k) g.lineTo(x, y); else g.moveTo(x, y); });
  g.closePath();
  g.stroke();
  const [x, y] = at(state.pad);
  g.fillStyle = $('pad-on').checked ? '#1a73e8' : '#5f6368';
  g.beginPath();
  g.arc(x, y, 5, 0, 2 * Math.PI);
  g.fill();
  $('pad-value').textContent = $('pad-on').checked ? `(${state.pad[0].toFixed(2)}, ${state.pad[1].toFixed(2)})` : '';
}

function play(index, fade) {
  state.instance.play(index, { fade, speed: Number($('speed').value) });
  state.clip = index;
  $('scrub').max = String(state.rig.clips[index].duration || 1);
  for (const b of $('clips').children) b.classList.toggle('playing', Number(b.dataset.clip) === index);
}

// ---- frames ----------------------------------------------------------------------------------
function uploadPart(part) {
  const positions = state.instance.positions(part.index);
  gl.bindVertexArray(part.vao);
  gl.bindBuffer(gl.ARRAY_BUFFER, part.positions);
  gl.bufferData(gl.ARRAY_BUFFER, positions, gl.DYNAMIC_DRAW);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
  const normals = state.instance.normals(part.index) || new Float32Array(positions.length).fill(0.577);
  gl.bindBuffer(gl.ARRAY_BUFFER, part.normals);
  gl.bufferData(gl.ARRAY_BUFFER, normals, gl.DYNAMIC_DRAW);
  gl.enableVertexAttribArray(1);
  gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 0, 0);
  return positions.length / 3;
}

function skeletonLines() {
  const worlds = state.instance.worlds(), nodes = state.model.nodes, lines = [];
  for (const skin of state.model.skins) {
    const inSkin = new Set(skin.joints);
    for (const j of skin.joints) {
      const p = nodes[j].parent;
      if (p < 0 || !inSkin.has(p)) continue;
      lines.push(worlds[j * 16 + 12], worlds[j * 16 + 13], worlds[j * 16 + 14],
                 worlds[p * 16 + 12], worlds[p * 16 + 13], worlds[p * 16 + 14]);
    }
  }
  return new Float32Array(lines);
}

const lineBuffer = gl.createBuffer(), lineVao = gl.createVertexArray();
const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

function draw() {
  const width = canvas.clientWidth * devicePixelRatio, height = canvas.clientHeight * devicePixelRatio;
  if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clearColor(0.13, 0.13, 0.14, 1);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  if (!state.instance) return 0;
  gl.enable(gl.DEPTH_TEST);
  const eye = [state.center[0] + state.distance * Math.cos(state.pitch) * Math.sin(state.yaw),
               state.center[1] + state.distance * Math.sin(state.pitch),
               state.center[2] + state.distance * Math.cos(state.pitch) * Math.cos(state.yaw)];
  const viewProjection = multiply(perspective(0.8, canvas.width / canvas.height, state.distance / 100,
                                              state.distance * 10), lookAt(eye, state.center));
  const wireframe = $('wireframe').checked;
  let vertices = 0;
  for (const part of state.parts) {
    vertices += uploadPart(part);
    const matrix = state.instance.matrix(part.index);
    const prog = wireframe ? lineProgram : meshProgram;
    gl.useProgram(prog);
    gl.uniformMatrix4fv(gl.getUniformLocation(prog, 'viewProjection'), false, viewProjection);
    gl.uniformMatrix4fv(gl.getUniformLocation(prog, 'model'), false, matrix);
    gl.uniform4fv(gl.getUniformLocation(prog, 'color'), wireframe ? [0.6, 0.8, 1, 1] : part.color);
    gl.bindVertexArray(part.vao);
    if (wireframe) {
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, part.edges);
      gl.drawElements(gl.LINES, part.edgeCount, gl.UNSIGNED_INT, 0);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, part.indices);
    } else {
      gl.uniform1f(gl.getUniformLocation(prog, 'flat_'), 0);
      gl.drawElements(gl.TRIANGLES, part.count, gl.UNSIGNED_INT, 0);
    }
  }
  if ($('skeleton').checked) {
    const lines = skeletonLines();
    gl.disable(gl.DEPTH_TEST);
    gl.useProgram(lineProgram);
    gl.uniformMatrix4fv(gl.getUniformLocation(lineProgram, 'viewProjection'), false, viewProjection);
    gl.uniformMatrix4fv(gl.getUniformLocation(lineProgram, 'model'), false, identity);
    gl.uniform4fv(gl.getUniformLocation(lineProgram, 'color'), [1, 0.8, 0.2, 1]);
    gl.bindVertexArray(lineVao);
    gl.bindBuffer(gl.ARRAY_BUFFER, lineBuffer);
    gl.bufferData(gl.ARRAY_BUFFER, lines, gl.DYNAMIC_DRAW);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
    gl.drawArrays(gl.LINES, 0, lines.length / 3);
  }
  gl.bindVertexArray(null);
  return vertices;
}

function frame(now) {
  const dt = state.lastFrame ? Math.min((now - state.lastFrame) / 1000, 0.1) : 0;
  state.lastFrame = now;
  if (state.instance) {
    const start = performance.now();
    if (state.tree && $('pad-on').checked) drivePad(dt);
    else state.instance.update(dt);
    state.updateMs = 0.9 * state.updateMs + 0.1 * (performance.now() - start);
    $('scrub').value = String(state.instance.time);
    $('time-value').textContent = state.instance.time.toFixed(3);
  }
  drawPad();
  const vertices = draw();
  $('readout').textContent = `update ${state.updateMs.toFixed(3)} ms\n${vertices} vertices skinned`;
  requestAnimationFrame(frame);
}

// ---- controls --------------------------------------------------------------------------------
async function readFile(file) { load(new Uint8Array(await file.arrayBuffer()), file.name); }

$('file').onchange = (e) => { if (e.target.files[0]) readFile(e.target.files[0]); };
$('demo').onclick = async () => {
  const response = await fetch('./demo.glb');
  load(new Uint8Array(await response.arrayBuffer()), 'demo.glb');
};
$('fade').oninput = () => { $('fade-value').textContent = $('fade').value; };
$('speed').oninput = () => {
  $('speed-value').textContent = $('speed').value;
  if (state.instance) state.instance.speed = Number($('speed').value);
};
$('scrub').oninput = () => {
  if (!state.instance) return;
  state.instance.seek(Number($('scrub').value));
  state.instance.update(0);
};
$('pause').onclick = () => {
  if (!state.instance) return;
  state.paused = !state.paused;
  if (state.paused) state.instance.pause(); else state.instance.resume();
  $('pause').textContent = state.paused ? 'Resume' : 'Pause';
};
// The pad: a point in [0, 1]² (y up) while pressed; turning it off crossfades back to the clip.
const padPoint = (e) => {
  const r = $('pad').getBoundingClientRect();
  const clamp = (v) => Math.max(0, Math.min(1, v));
  state.pad = [clamp((e.clientX - r.left - 8) / (r.width - 16)), clamp((r.bottom - 8 - e.clientY) / (r.height - 16))];
};
$('pad').onpointerdown = (e) => {
  $('pad').setPointerCapture(e.pointerId);
  padPoint(e);
  if (state.tree && !$('pad-on').checked) { $('pad-on').checked = true; state.padTime = state.instance.time; }
};
$('pad').onpointermove = (e) => { if (e.buttons) padPoint(e); };
$('pad-on').onchange = () => {
  if (!state.instance || !state.tree) { $('pad-on').checked = false; return; }
  if ($('pad-on').checked) state.padTime = state.instance.time;
  else play(Math.max(state.clip, 0), Number($('fade').value)); // from the pad's pose
};
const view = $('view');
view.ondragover = (e) => { e.preventDefault(); $('drop').style.display = 'flex'; };
view.ondragleave = () => { $('drop').style.display = 'none'; };
view.ondrop = (e) => {
  e.preventDefault();
  $('drop').style.display = 'none';
  if (e.dataTransfer.files[0]) readFile(e.dataTransfer.files[0]);
};
let dragging = null;
canvas.onpointerdown = (e) => { dragging = [e.clientX, e.clientY]; };
window.onpointerup = () => { dragging = null; };
canvas.onpointermove = (e) => {
  if (!dragging) return;
  state.yaw -= (e.clientX - dragging[0]) * 0.01;
  state.pitch = Math.max(-1.5, Math.min(1.5, state.pitch + (e.clientY - dragging[1]) * 0.01));
  dragging = [e.clientX, e.clientY];
};
canvas.onwheel = (e) => { e.preventDefault(); state.distance *= Math.exp(e.deltaY * 0.001); };

// ---- start -----------------------------------------------------------------------------------
mn = await init();
window.viewer = {
  state,
  load,
  // Skinned positions of part `part` now, copied (for the test).
  positions: (part) => Array.from(state.instance.positions(part)),
  error: () => $('error').textContent,
};
requestAnimationFrame(frame);
document.body.dataset.ready = 'true';
