// Blend trees and state machines from JavaScript (rig.blendTree, rig.stateMachine,
// instance.drive) against plain clip playback, in Node.  A model's clip 0 is blended with itself
// at another time through two leaves on their own clocks: a lerp at weight 0 and 1, and a 1D set
// at either end, must skin every vertex as playing the clip at that leaf's time does, within
// 1e-5 of the model's size; weight 0.5 must differ from both; a 2D space of three such leaves
// at each child's point likewise.  A state machine cuts to another
// state when a float parameter passes a threshold and back on a trigger, and its pose is that
// state's clip time.  A play() after drive() crossfades from the driven pose.  Errors are
// MarionetteErrors with the library's status and path; free() and the registry as elsewhere.
// usage: node check_graph.mjs WEB_DIR MODEL
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [webDir, modelPath] = process.argv.slice(2);
const { init, MarionetteError } = await import(pathToFileURL(resolve(webDir, 'marionette.mjs')).href);
const mn = await init();
let failures = 0;
const fail = (what) => { console.log(`check_graph: FAILED: ${basename(modelPath)}: ${what}`); failures++; };

const model = mn.loadModel(readFileSync(modelPath));
const { min, max } = model.bounds;
const size = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
const tolerance = 1e-5 * size;
const rig = model.rig();
const clip = rig.clips[0];
const [ta, tb] = [0.25 * clip.duration, 0.6 * clip.duration];

// Every part's skinned positions, copied.
const shape = (instance) => {
  const out = [];
  for (let p = 0; p < rig.partCount; p++) out.push(Float32Array.from(instance.positions(p)));
  return out;
};
const difference = (a, b) => {
  let worst = 0;
  for (let p = 0; p < a.length; p++)
    for (let i = 0; i < a[p].length; i++) worst = Math.max(worst, Math.abs(a[p][i] - b[p][i]));
  return worst;
};
const playedAt = (t) => {
  const plain = rig.instance();
  plain.play(0, { at: t });
  plain.update(0);
  const s = shape(plain);
  plain.free();
  return s;
};
const atA = playedAt(ta), atB = playedAt(tb);
if (!(difference(atA, atB) > 100 * tolerance)) fail('the two clip times give the same shape');

const leaves = [{ kind: 'clip', clip: clip.name, clock: 'ta' }, { kind: 'clip', clip: 0, clock: 'tb' }];
const instance = rig.instance();
let worst = 0;
for (const [label, tree] of [
  ['lerp', rig.blendTree({ nodes: [...leaves, { kind: 'lerp', a: 0, b: 1, parameter: 'w' }], root: 2 })],
  ['1d', rig.blendTree({ nodes: [...leaves, { kind: '1d', parameter: 'w', children: [0, 1], positions: [0, 1] }], root: 2 })],
]) {
  tree.set('ta', ta);
  tree.advance('tb', tb); // a clock advanced from 0 reads as one set
  if (Math.abs(tree.get('tb') - tb) > 1e-6) fail(`${label}: get("tb") is ${tree.get('tb')}, not ${tb}`);
  for (const [w, want] of [[0, atA], [1, atB]]) {
    tree.set('w', w);
    instance.drive(tree);
    const d = difference(shape(instance), want);
    worst = Math.max(worst, d);
    if (!(d <= tolerance)) fail(`${label} at w=${w}: differs from playing the clip by ${d}`);
  }
  tree.set('w', 0.5);
  instance.drive(tree);
  const half = shape(instance);
  if (!(difference(half, atA) > tolerance && difference(half, atB) > tolerance))
    fail(`${label} at w=0.5 equals one of its ends`);
  tree.free();
}
// A 2D space of three leaves (Delaunay): at each child's point the shape is that child's.
{
  const tc = 0.9 * clip.duration, atC = playedAt(tc);
  const tree = rig.blendTree({
    nodes: [...leaves, { kind: 'clip', clip: 0, clock: 'tc' },
            { kind: '2d', parameter: 'x', parameterY: 'y', children: [0, 1, 2],
              positions: [[0, 0], [1, 0], [0, 1]] }],
    root: 3 });
  tree.set('ta', ta); tree.set('tb', tb); tree.set('tc', tc);
  for (const [x, y, want] of [[0, 0, atA], [1, 0, atB], [0, 1, atC]]) {
    tree.set('x', x); tree.set('y', y);
    instance.drive(tree);
    const d = difference(shape(instance), want);
    worst = Math.max(worst, d);
    if (!(d <= tolerance)) fail(`2d at (${x}, ${y}): differs from playing the clip by ${d}`);
  }
  tree.free();
}
console.log(`check_graph: ${basename(modelPath)}: lerp, 1D and 2D at their children equal plain playback; ` +
            `largest difference ${worst.toExponential(2)} (${(worst / size).toExponential(2)} of ` +
            `the model's size; tolerance 1e-5)`);

// A play() after drive() crossfades from the driven pose: its first frame is still that pose.
{
  const tree = rig.blendTree({ nodes: leaves, root: 1 });
  tree.set('tb', tb);
  instance.drive(tree);
  if (instance.current !== -1) fail(`drive left clip ${instance.current} playing`);
  instance.play(0, { fade: 0.5, at: ta });
  instance.update(0);
  if (!instance.fading) fail('play after drive does not fade');
  const d = difference(shape(instance), atB);
  if (!(d <= tolerance)) fail(`the fade's first frame is not the driven pose (${d})`);
  tree.free();
}

// A state machine: idle (clip at time 0 on and on) -> moving when speed > 0.5, back on "stop".
{
  const sm = rig.stateMachine({
    nodes: [{ kind: 'clip', clip: 0, clock: 'still' }, { kind: 'clip', clip: 0 }],
    parameters: [{ name: 'speed', kind: 'float', value: 0 }, { name: 'stop', kind: 'trigger' }],
    states: [{ name: 'idle', node: 0 }, { name: 'moving', node: 1 }],
    transitions: [
      { from: 'idle', to: 'moving', duration: 0, conditions: [{ name: 'speed', op: '>', value: 0.5 }] },
      { from: 'moving', to: 0, duration: 0, conditions: [{ name: 'stop', op: 'trigger' }] },
    ],
  });
  if (sm.state !== 'idle') fail(`the machine starts in "${sm.state}", not idle`);
  sm.update(0.1);
  if (sm.state !== 'idle') fail('the machine left idle with speed 0');
  sm.set('speed', 1);
  sm.update(0.1);
  if (sm.state !== 'moving') fail(`speed 1: the machine is in "${sm.state}", not moving`);
  sm.update(tb - 0.1 > 0 ? tb - 0.1 : 0); // the state's time: tb (the transition frame's step included, or not)
  instance.drive(sm);
  const moving = shape(instance);
  sm.trigger('stop');
  sm.update(0);
  if (sm.state !== 'idle') fail(`after the trigger the machine is in "${sm.state}", not idle`);
  instance.drive(sm);
  const d = difference(shape(instance), playedAt(0));
  if (!(d <= tolerance)) fail(`idle's pose is not the clip at 0 (${d})`);
  if (!(difference(moving, playedAt(0)) > tolerance)) fail('moving showed the idle pose');
  if (sm.get('speed') !== 1) fail(`get("speed") is ${sm.get('speed')}`);
  sm.free();
}

// Errors: the library's status, message and path; the JS side's own for unknown clip names.
const expectError = (what, status, path, f) => {
  try {
    f();
    fail(`${what}: no error`);
  } catch (e) {
    if (!(e instanceof MarionetteError)) fail(`${what}: ${e}`);
    else if (e.status !== status || (path !== null && e.path !== path))
      fail(`${what}: ${e.status} at "${e.path}" (${e.message}), not ${status} at "${path}"`);
  }
};
expectError('an unknown clip name', 'MN_INVALID_VALUE', 'nodes[0].clip',
            () => rig.blendTree({ nodes: [{ kind: 'clip', clip: 'no such clip' }] }));
expectError('a clip index out of range', 'MN_INDEX_RANGE', 'nodes[0].clip',
            () => rig.blendTree({ nodes: [{ kind: 'clip', clip: 99 }] }));
expectError('an unknown kind', 'MN_INVALID_ARGUMENT', 'nodes[1]',
            () => rig.blendTree({ nodes: [leaves[0], { kind: 'spline' }] }));
expectError('a lerp child out of range', 'MN_INDEX_RANGE', null,
            () => rig.blendTree({ nodes: [leaves[0], { kind: 'lerp', a: 0, b: 7, parameter: 'w' }], root: 1 }));
expectError('an unknown state', 'MN_INVALID_VALUE', 'transitions[0].to',
            () => rig.stateMachine({ nodes: [leaves[0]], states: [{ name: 'a', node: 0 }],
                                     transitions: [{ from: 'a', to: 'b' }] }));
{
  const tree = rig.blendTree({ nodes: leaves, root: 0 });
  expectError('an unknown parameter', 'MN_INVALID_VALUE', null, () => tree.set('nope', 1));
  expectError('a trigger on a tree', 'MN_INVALID_ARGUMENT', null, () => tree.trigger('ta'));
  tree.free();
  tree.free(); // twice is fine
  try { tree.set('ta', 1); fail('a freed tree is still usable'); } catch (e) {
    if (e instanceof MarionetteError) fail(`a freed tree: ${e.message}`);
  }
}
instance.free();
rig.free();
model.free();
if (failures) { console.log(`check_graph: ${failures} failure(s)`); process.exit(1); }
console.log(`check_graph: ${basename(modelPath)}: passed`);
