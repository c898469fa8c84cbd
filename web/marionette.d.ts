// Types of marionette.mjs: marionette's C animation runtime compiled to WebAssembly.
// Views (Float32Array) look into wasm memory: their bytes change on update(), and their buffer is
// detached when wasm memory grows (after a load or create); take them again then.

export declare class MarionetteError extends Error {
  /** The library's status code (mn_status). */
  readonly code: number;
  /** Its name, e.g. "MN_JSON_SYNTAX". */
  readonly status: string;
  /** The JSON path of the offending item, "" when none. */
  readonly path: string;
}

export interface InitOptions {
  /** The bytes of marionette_core.wasm, when the caller has them (else read or fetched beside the module). */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

/** Start the module. */
export declare function init(options?: InitOptions): Promise<Marionette>;

export interface Marionette {
  readonly version: string;
  /** Counts wasm memory growths: views taken before a change are detached. */
  readonly memoryGeneration: number;
  /**
   * Read a GLB or .gltf (bytes, or a .gltf's JSON text); `files` maps the URIs a .gltf names to
   * their bytes.  Throws MarionetteError.
   */
  loadModel(data: ArrayBuffer | Uint8Array | string,
            files?: Record<string, ArrayBuffer | Uint8Array | string>): Model;
  /** Update many instances in one call into wasm (and their palettes with palettes: true). */
  crowd(instances: Instance[]): { update(dt: number, options?: { palettes?: boolean }): void; free(): void };
}

export interface NodeInfo { name: string; parent: number; }
export interface SkinInfo { name: string; joints: number[]; }
export interface ClipInfo { name: string; duration: number; }

export interface Model {
  readonly nodes: NodeInfo[];
  readonly skins: SkinInfo[];
  readonly warnings: string[];
  readonly bounds: { min: number[]; max: number[] };
  /** The prepared model its instances share. */
  rig(): Rig;
  /** Free its memory; free its rigs first. */
  free(): void;
}

export interface Rig {
  readonly model: Model;
  readonly clips: ClipInfo[];
  readonly partCount: number;
  readonly triangleCount: number;
  /** Part `part`'s triangles (3 indices each; empty for points and lines), copied. */
  indices(part: number): Uint32Array;
  /** Part `part`'s base colour factor [r, g, b, a]. */
  color(part: number): number[];
  /** The skin part `part` is drawn with, -1 when unskinned. */
  partSkin(part: number): number;
  /** A new instance; size: its largest dimension in world units (default 1); hidden: animate and
   *  keep worlds, deform no vertices. */
  instance(options?: { size?: number; hidden?: boolean }): Instance;
  /** A blend tree over this rig's clips (mn_blend_tree_desc as an object); throws MarionetteError. */
  blendTree(desc: BlendTreeDesc): Graph;
  /** A state machine over this rig's clips (mn_state_machine_desc as an object). */
  stateMachine(desc: StateMachineDesc): Graph;
  /** Free its memory; free its instances and graphs first. */
  free(): void;
}

/** One blend-tree node (marionette/blend_tree.h, mn_blend_node); clips by name or index. */
export type BlendNode =
  | { kind: 'clip'; clip: string | number; clock?: string; loop?: boolean }
  | { kind: 'lerp'; a: number; b: number; parameter: string }
  | { kind: '1d'; parameter: string; children: number[]; positions: number[]; sync?: boolean }
  | { kind: '2d'; parameter: string; parameterY: string; children: number[];
      positions: [number, number][] | number[]; triangles?: number[]; sync?: boolean };

export interface BlendTreeDesc {
  nodes: BlendNode[];
  /** The node evaluated, default 0. */
  root?: number;
}

export interface StateMachineDesc {
  nodes: BlendNode[];
  parameters?: { name: string; kind: 'float' | 'bool' | 'trigger'; value?: number | boolean }[];
  /** states[0] is the initial state. */
  states: { name: string; node: number }[];
  transitions?: {
    from: string | number; to: string | number;
    /** Crossfade seconds; 0 (default) cuts. */
    duration?: number;
    exitTime?: number;
    priority?: number;
    conditions?: { name: string; op: '<' | '<=' | '>' | '>=' | '==' | '!=' | 'trigger'; value?: number }[];
  }[];
}

/** A blend tree or state machine (Rig.blendTree, Rig.stateMachine). */
export interface Graph {
  /** Set a blend parameter, a clock, or a machine's declared parameter. */
  set(name: string, value: number | boolean): void;
  get(name: string): number;
  /** A machine's trigger, set until a transition naming it fires. */
  trigger(name: string): void;
  /** A machine: advance by dt seconds (no events are reported). */
  update(dt: number): void;
  /** A tree: add dt seconds to clock `name`. */
  advance(name: string, dt: number): void;
  /** A machine's current state (null for a tree). */
  readonly state: string | null;
  readonly fading: boolean;
  free(): void;
}

export interface PlayOptions {
  /** Seconds of crossfade from the live pose; 0 (default) cuts. */
  fade?: number;
  /** Playback rate, default 1; negative plays backwards. */
  speed?: number;
  /** Start time in the clip, seconds. */
  at?: number;
  /** Play once and stop at the end instead of looping. */
  once?: boolean;
}

export interface Instance {
  readonly rig: Rig;
  play(clip: number | string, options?: PlayOptions): void;
  crossfade(clip: number | string, seconds: number, options?: PlayOptions): void;
  seek(t: number): void;
  speed: number;
  pause(): void;
  resume(): void;
  readonly paused: boolean;
  readonly time: number;
  readonly fading: boolean;
  /** The clip playing, -1 for none. */
  readonly current: number;
  /** Advance by dt seconds: mixer, world matrices, skinned and morphed vertices. */
  update(dt: number): void;
  /** Show a graph's pose now (a tree at frame time `time`); stops clip playback, and a later
   *  play() crossfades from it. */
  drive(graph: Graph, time?: number): void;
  /** Shown (vertices deformed each update) or hidden. */
  visible: boolean;
  /** Placed world matrices, 16 floats (column-major) a node. */
  worlds(): Float32Array;
  pose(): { translations: Float32Array; rotations: Float32Array; scales: Float32Array };
  /** Skin `skin`'s palette in model space, 16 floats a joint. */
  palette(skin?: number): Float32Array;
  vertexCount(part: number): number;
  /** Part `part`'s posed positions, 3 floats a vertex. */
  positions(part?: number): Float32Array;
  normals(part?: number): Float32Array | null;
  /** The matrix to draw part `part`'s vertices with. */
  matrix(part?: number): Float32Array;
  free(): void;
}
