// marionette for JavaScript: the C library compiled to WebAssembly (marionette_core.wasm) behind
// a small API.  Load a model from bytes, make instances of it, play and crossfade its clips,
// update, and read poses, world matrices, skin palettes and skinned vertices as typed-array
// views straight into wasm memory (no copy per frame).
//
//   import { init } from './marionette.mjs';
//   const mn = await init();                       // Node: reads marionette_core.wasm beside this file
//   const model = mn.loadModel(glbArrayBuffer);    // or (gltfText, { 'buffer.bin': bytes, ... })
//   const rig = model.rig();
//   const guard = rig.instance();
//   guard.play('Walk', { fade: 0.2 });
//   guard.update(1 / 60);
//   const positions = guard.positions(0);         // Float32Array view, 3 floats a vertex
//
// Views: every Float32Array the API returns looks into wasm memory.  Its bytes change when the
// instance updates; its buffer is detached when wasm memory grows (a later load or create may
// grow it).  So take views again after any load or create, or each frame: taking one is cheap
// (no copy).  `mn.memoryGeneration` counts the growths, for callers who cache views.
//
// Errors: a failing call throws a MarionetteError carrying the library's `code` (number),
// `status` (its name, e.g. "MN_PARSE"), `message` and `path` (the JSON path of the item).
//
// Lifetime: each object holds C memory.  Call free() when done (an instance before its rig, a rig
// before its model, as in C); a FinalizationRegistry frees what is forgotten, at some later
// time, as a safety net only.
import createMarionetteCore from './marionette_core.mjs';

const NONE = 0xffffffff;

export class MarionetteError extends Error {
  constructor(code, status, message, path) {
    super(message); // the library's message names the item already
    this.name = 'MarionetteError';
    this.code = code;
    this.status = status;
    this.path = path;
  }
}

async function wasmBytes(options) {
  if (options.wasmBinary) return options.wasmBinary;
  const url = new URL('./marionette_core.wasm', import.meta.url);
  if (typeof process !== 'undefined' && process.versions && process.versions.node) {
    const { readFile } = await import('node:fs/promises');
    return readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`marionette: cannot fetch ${url}: ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// Start the module.  options.wasmBinary: the .wasm bytes, when the caller has them.
export async function init(options = {}) {
  const core = await createMarionetteCore({ wasmBinary: await wasmBytes(options) });
  core._mnw_init();
  return new Marionette(core);
}

class Marionette {
  constructor(core) {
    this.core = core;
    this._buffer = core.HEAPU8.buffer;
    this.memoryGeneration = 0;
    this._registry = typeof FinalizationRegistry === 'function'
      ? new FinalizationRegistry(({ free, ptr }) => free(ptr)) : null;
  }

  get version() { return this.core.UTF8ToString(this.core._mnw_version()); }

  // A Float32Array over `count` floats at `ptr` in wasm memory.
  _f32(ptr, count) {
    if (this.core.HEAPU8.buffer !== this._buffer) {
      this._buffer = this.core.HEAPU8.buffer;
      this.memoryGeneration++;
    }
    return new Float32Array(this.core.HEAPU8.buffer, ptr, count);
  }

  _u32(ptr, count) { return new Uint32Array(this.core.HEAPU8.buffer, ptr, count); }

  _string(ptr) { return ptr ? this.core.UTF8ToString(ptr) : null; }

  // A crowd: update every instance by dt in one call into wasm, and with palettes: true also
  // compute each one's skin palettes.  The array of handles is kept between calls.
  crowd(instances) {
    const c = this.core;
    const handles = c._malloc(4 * Math.max(instances.length, 1));
    this._u32(handles, instances.length).set(instances.map((i) => i._live()));
    return {
      update: (dt, { palettes = false } = {}) => c._mnw_update_many(handles, instances.length, dt, palettes ? 1 : 0),
      free: () => c._free(handles),
    };
  }

  _throw() {
    const c = this.core;
    throw new MarionetteError(c._mnw_error_code(), c.UTF8ToString(c._mnw_error_status()),
                              c.UTF8ToString(c._mnw_error_message()), c.UTF8ToString(c._mnw_error_path()));
  }

  _check(status) { if (status !== 0) this._throw(); }

  // An error of the API's own (1: MN_INVALID_ARGUMENT, 2: MN_OUT_OF_MEMORY), in the library's terms.
  _error(code, message) {
    return new MarionetteError(code, this.core.UTF8ToString(this.core._mnw_status_name(code)), message, '');
  }

  // Copy bytes into wasm memory; returns the pointer (free it with core._free).
  _copyIn(bytes) {
    const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    const ptr = this.core._malloc(Math.max(view.length, 1));
    if (!ptr) throw this._error(2, 'out of wasm memory');
    this.core.HEAPU8.set(view, ptr);
    return ptr;
  }

  _cstring(text) {
    const size = this.core.lengthBytesUTF8(text) + 1;
    const ptr = this.core._malloc(size);
    this.core.stringToUTF8(text, ptr, size);
    return ptr;
  }

  _track(object, free, ptr) {
    if (this._registry) this._registry.register(object, { free, ptr }, object);
  }

  _untrack(object) { if (this._registry) this._registry.unregister(object); }

  // A GLB or .gltf (ArrayBuffer, typed array, or a .gltf's JSON text), with the files a .gltf
  // names in `files` ({ uri: ArrayBuffer | Uint8Array | string }).  Throws MarionetteError.
  loadModel(data, files = {}) {
    const c = this.core;
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const set = c._mnw_files_create();
    const dataPtr = this._copyIn(bytes);
    try {
      for (const [name, content] of Object.entries(files)) {
        const fileBytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
        const namePtr = this._cstring(name);
        const filePtr = this._copyIn(fileBytes);
        const status = c._mnw_files_add(set, namePtr, filePtr, fileBytes.byteLength);
        c._free(namePtr);
        c._free(filePtr);
        this._check(status);
      }
      const model = c._mnw_model_load(dataPtr, bytes.byteLength, set);
      if (!model) this._throw();
      return new Model(this, model);
    } finally {
      c._free(dataPtr);
      c._mnw_files_free(set);
    }
  }
}

class Model {
  constructor(mn, ptr) {
    this.mn = mn;
    this.ptr = ptr;
    mn._track(this, mn.core._mnw_model_free, ptr);
  }

  _live() { if (!this.ptr) throw new Error('marionette: this model was freed'); return this.ptr; }

  get nodes() {
    const c = this.mn.core, m = this._live();
    const out = [];
    for (let i = 0, n = c._mnw_model_node_count(m); i < n; i++) {
      const parent = c._mnw_model_node_parent(m, i) >>> 0;
      out.push({ name: this.mn._string(c._mnw_model_node_name(m, i)), parent: parent === NONE ? -1 : parent });
    }
    return out;
  }

  get skins() {
    const c = this.mn.core, m = this._live();
    const out = [];
    for (let s = 0, n = c._mnw_model_skin_count(m); s < n; s++) {
      const count = c._mnw_model_skin_joint_count(m, s);
      out.push({ name: this.mn._string(c._mnw_model_skin_name(m, s)),
                 joints: Array.from(this.mn._u32(c._mnw_model_skin_joints(m, s), count)) });
    }
    return out;
  }

  get warnings() {
    const c = this.mn.core, m = this._live();
    const out = [];
    for (let i = 0, n = c._mnw_model_warning_count(m); i < n; i++)
      out.push(this.mn._string(c._mnw_model_warning(m, i)));
    return out;
  }

  // { min: [x, y, z], max: [x, y, z] } of the default scene at rest.
  get bounds() {
    const c = this.mn.core;
    const ptr = c._malloc(24);
    c._mnw_model_bounds(this._live(), ptr);
    const b = Array.from(this.mn._f32(ptr, 6));
    c._free(ptr);
    return { min: b.slice(0, 3), max: b.slice(3) };
  }

  // The prepared model its instances share (clips, deformable meshes).
  rig() {
    const ptr = this.mn.core._mnw_rig_create(this._live());
    if (!ptr) this.mn._throw();
    return new Rig(this, ptr);
  }

  free() {
    if (!this.ptr) return;
    this.mn._untrack(this);
    this.mn.core._mnw_model_free(this.ptr);
    this.ptr = 0;
  }
}

class Rig {
  constructor(model, ptr) {
    this.model = model;
    this.mn = model.mn;
    this.ptr = ptr;
    this.mn._track(this, this.mn.core._mnw_rig_free, ptr);
  }

  _live() { if (!this.ptr) throw new Error('marionette: this rig was freed'); return this.ptr; }

  // [{ name, duration }] in the model's animation order.
  get clips() {
    const c = this.mn.core, r = this._live();
    const out = [];
    for (let i = 0, n = c._mnw_rig_clip_count(r); i < n; i++)
      out.push({ name: this.mn._string(c._mnw_rig_clip_name(r, i)), duration: c._mnw_rig_clip_duration(r, i) });
    return out;
  }

  get partCount() { return this.mn.core._mnw_rig_part_count(this._live()); }

  // Part `part`'s triangles as a new Uint32Array (3 indices a triangle; empty for points and
  // lines): a copy, made once, for an index buffer.
  indices(part) {
    const c = this.mn.core, r = this._live();
    const count = c._mnw_rig_part_indices(r, part, 0, 0);
    const ptr = c._malloc(Math.max(count, 1) * 4);
    c._mnw_rig_part_indices(r, part, ptr, count);
    const out = this.mn._u32(ptr, count).slice();
    c._free(ptr);
    return out;
  }

  // Part `part`'s base colour factor, [r, g, b, a] (white without a material).
  color(part) {
    const c = this.mn.core;
    const ptr = c._malloc(16);
    c._mnw_rig_part_color(this._live(), part, ptr);
    const out = Array.from(this.mn._f32(ptr, 4));
    c._free(ptr);
    return out;
  }

  // The skin a part is drawn with, -1 for an unskinned part.
  partSkin(part) {
    const s = this.mn.core._mnw_rig_part_skin(this._live(), part) >>> 0;
    return s === NONE ? -1 : s;
  }
  get triangleCount() { return this.mn.core._mnw_rig_triangle_count(this._live()); }

  // A blend tree over this rig's clips: desc mirrors mn_blend_tree_desc (marionette/blend_tree.h)
  // as a plain object, { nodes: [...], root }, each node one of
  //   { kind: 'clip', clip: name | index, clock?: name, loop?: true }
  //   { kind: 'lerp', a, b, parameter }
  //   { kind: '1d', parameter, children: [...], positions: [...], sync?: false }
  //   { kind: '2d', parameter, parameterY, children, positions: [[x, y], ...], triangles?, sync? }
  // Leaves start from the model's rest pose.  Throws MarionetteError (err.path names the field).
  blendTree(desc) { return new Graph(this, this._graphJson(desc, false), false); }

  // A state machine: desc mirrors mn_state_machine_desc (marionette/state_machine.h):
  //   { nodes: [...as blendTree], parameters: [{ name, kind: 'float' | 'bool' | 'trigger', value }],
  //     states: [{ name, node }],               // states[0] is the initial state
  //     transitions: [{ from, to, duration, exitTime?, priority?,   // from/to: name or index
  //                     conditions: [{ name, op: '<' | '<=' | '>' | '>=' | '==' | '!=' | 'trigger', value }] }] }
  stateMachine(desc) { return new Graph(this, this._graphJson(desc, true), true); }

  // The description as the JSON web/bindings.c reads: clip names turned into indices, 2D
  // positions flattened.
  _graphJson(desc, machine) {
    const clips = this.clips.map((c) => c.name);
    const nodes = (desc.nodes ?? []).map((node, i) => {
      const out = { ...node };
      if (typeof node.clip === 'string') {
        out.clip = clips.indexOf(node.clip);
        if (out.clip < 0) {
          const error = this.mn._error(14, `nodes[${i}].clip: no clip is named "${node.clip}"`); // MN_INVALID_VALUE
          error.path = `nodes[${i}].clip`;
          throw error;
        }
      }
      if (Array.isArray(node.positions)) out.positions = node.positions.flat();
      return out;
    });
    return JSON.stringify(machine ? { ...desc, nodes } : { nodes, root: desc.root ?? 0 });
  }

  // A new instance; options.size: its largest dimension in world units (default 1);
  // options.hidden: it animates and keeps its worlds but deforms no vertices.
  instance(options = {}) {
    const ptr = this.mn.core._mnw_instance_create(this._live(), options.size ?? 0, options.hidden ? 1 : 0);
    if (!ptr) this.mn._throw();
    return new Instance(this, ptr);
  }

  free() {
    if (!this.ptr) return;
    this.mn._untrack(this);
    this.mn.core._mnw_rig_free(this.ptr);
    this.ptr = 0;
  }
}

class Instance {
  constructor(rig, ptr) {
    this.rig = rig;
    this.mn = rig.mn;
    this.ptr = ptr;
    this.mn._track(this, this.mn.core._mnw_instance_free, ptr);
  }

  _live() { if (!this.ptr) throw new Error('marionette: this instance was freed'); return this.ptr; }

  _clipIndex(clip) {
    if (typeof clip === 'number') return clip;
    const index = this.rig.clips.findIndex((c) => c.name === clip);
    if (index < 0) throw this.mn._error(1, `no clip is named "${clip}"`);
    return index;
  }

  // Play a clip (index or name): { fade: seconds of crossfade from the live pose (0: cut),
  // speed (default 1), at: start time, once: play once instead of looping }.
  play(clip, options = {}) {
    const status = this.mn.core._mnw_play(this._live(), this._clipIndex(clip), options.fade ?? 0,
                                          options.speed ?? 1, options.at ?? 0, options.once ? 1 : 0);
    this.mn._check(status);
  }

  crossfade(clip, seconds, options = {}) { this.play(clip, { ...options, fade: seconds }); }
  seek(t) { this.mn.core._mnw_seek(this._live(), t); }
  set speed(s) { this.mn.core._mnw_set_speed(this._live(), s); }
  pause() { this.mn.core._mnw_pause(this._live()); }
  resume() { this.mn.core._mnw_resume(this._live()); }
  get paused() { return this.mn.core._mnw_paused(this._live()) !== 0; }
  get time() { return this.mn.core._mnw_time(this._live()); }
  get fading() { return this.mn.core._mnw_fading(this._live()) !== 0; }
  get current() {
    const index = this.mn.core._mnw_current(this._live()) >>> 0;
    return index === NONE ? -1 : index;
  }

  // Show a blend tree's pose (evaluated at frame time `time`) or a state machine's (its own
  // clock: advance it with sm.update(dt)) now: worlds and vertices are updated from it, and clip
  // playback stops.  A later play() crossfades from this pose (mn_mixer_set_pose).
  drive(graph, time = 0) {
    this.mn._check(this.mn.core._mnw_drive(this._live(), graph._live(), time));
  }

  // Advance by dt seconds: the mixer, the world matrices, the skinned and morphed vertices.
  update(dt) { this.mn.core._mnw_update(this._live(), dt); }

  // Shown (vertices deformed each update) or hidden (animation and worlds only).
  set visible(v) { this.mn.core._mnw_set_visible(this._live(), v ? 1 : 0); }
  get visible() { return this.mn.core._mnw_visible(this._live()) !== 0; }

  get _nodes() { return this.mn.core._mnw_model_node_count(this.rig.model._live()); }

  // Placed world matrices, 16 floats (column-major) a node.
  worlds() { return this.mn._f32(this.mn.core._mnw_worlds(this._live()), 16 * this._nodes); }

  // The pose: { translations (3 a node), rotations (4, x y z w), scales (3) }.
  pose() {
    const c = this.mn.core, p = this._live(), n = this._nodes;
    return { translations: this.mn._f32(c._mnw_pose(p, 0), 3 * n),
             rotations: this.mn._f32(c._mnw_pose(p, 1), 4 * n),
             scales: this.mn._f32(c._mnw_pose(p, 2), 3 * n) };
  }

  // Skin s's palette (world x inverse bind, model space), 16 floats a joint, computed now.
  palette(skin = 0) {
    const c = this.mn.core;
    const joints = c._mnw_model_skin_joint_count(this.rig.model._live(), skin);
    const ptr = c._mnw_palette(this._live(), skin);
    if (!ptr) throw this.mn._error(1, `no skin ${skin}`);
    return this.mn._f32(ptr, 16 * joints);
  }

  vertexCount(part) { return this.mn.core._mnw_part_vertex_count(this._live(), part); }

  // Part `part`'s posed vertex positions (3 floats a vertex); draw them with matrix(part).
  positions(part = 0) {
    return this.mn._f32(this.mn.core._mnw_part(this._live(), part, 0), 3 * this.vertexCount(part));
  }

  // Its normals (3 floats a vertex), or null when the primitive has none.
  normals(part = 0) {
    const ptr = this.mn.core._mnw_part(this._live(), part, 1);
    return ptr ? this.mn._f32(ptr, 3 * this.vertexCount(part)) : null;
  }

  matrix(part = 0) { return this.mn._f32(this.mn.core._mnw_part(this._live(), part, 2), 16); }

  free() {
    if (!this.ptr) return;
    this.mn._untrack(this);
    this.mn.core._mnw_instance_free(this.ptr);
    this.ptr = 0;
  }
}

// A blend tree or a state machine (rig.blendTree, rig.stateMachine).  Its names are the blend
// parameters and clocks of its nodes (and a machine's declared parameters and triggers).
class Graph {
  constructor(rig, json, machine) {
    this.rig = rig;
    this.mn = rig.mn;
    this.machine = machine;
    const c = this.mn.core;
    const text = this.mn._cstring(json);
    try {
      this.ptr = c._mnw_graph_create(rig._live(), text, machine ? 1 : 0);
    } finally {
      c._free(text);
    }
    if (!this.ptr) this.mn._throw();
    this.mn._track(this, c._mnw_graph_free, this.ptr);
  }

  _live() { if (!this.ptr) throw new Error('marionette: this graph was freed'); return this.ptr; }

  _named(name, call) {
    const ptr = this.mn._cstring(String(name));
    try { return call(ptr); } finally { this.mn.core._free(ptr); }
  }

  // Set a parameter or clock (a machine: also its declared parameters; true/false for bools).
  set(name, value) {
    const v = value === true ? 1 : value === false ? 0 : value;
    this.mn._check(this._named(name, (p) => this.mn.core._mnw_graph_set(this._live(), p, v)));
  }

  get(name) {
    const c = this.mn.core, out = c._malloc(4);
    try {
      this.mn._check(this._named(name, (p) => c._mnw_graph_get(this._live(), p, out)));
      return this.mn._f32(out, 1)[0];
    } finally {
      c._free(out);
    }
  }

  // A machine's trigger: set until a transition naming it fires.
  trigger(name) { this.mn._check(this._named(name, (p) => this.mn.core._mnw_graph_trigger(this._live(), p))); }

  // A machine: advance by dt seconds (transitions, fades, state time).  No events are reported
  // (a glTF carries no event tracks).
  update(dt) { this.mn._check(this.mn.core._mnw_graph_update(this._live(), dt, 0)); }

  // A tree: add dt seconds to clock `name`.
  advance(name, dt) {
    this.mn._check(this._named(name, (p) => this.mn.core._mnw_graph_update(this._live(), dt, p)));
  }

  // A machine's current state's name (null for a tree), and whether it is crossfading.
  get state() { return this.mn._string(this.mn.core._mnw_graph_state(this._live())); }
  get fading() { return this.mn.core._mnw_graph_fading(this._live()) !== 0; }

  free() {
    if (!this.ptr) return;
    this.mn._untrack(this);
    this.mn.core._mnw_graph_free(this.ptr);
    this.ptr = 0;
  }
}
