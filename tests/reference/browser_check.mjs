// The viewer page in a real browser: Debian's Chromium, headless, driven by playwright-core.
// Loads a model through the page's file input, pauses and scrubs it through the UI to three
// times and compares the skinned positions the page holds with the native library's
// (`marionette sample --json`), within 1e-5 of the model's size; checks a screenshot is not blank
// (many colours, a foreground of sensible size); drives a crossfade through the UI; drops a broken
// GLB and checks the library's message is shown and the page keeps working; loads the demo.
// The blend pad's corner shows its leaf's clip, and turning the pad off crossfades back.
// usage: node browser_check.mjs WEB_DIR MODEL NATIVE_SAMPLE.json SCREENSHOT.png
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/web-serve.mjs';

const [webDir, modelPath, samplePath, screenshotPath] = process.argv.slice(2);
let failures = 0;
const fail = (what) => { console.log(`browser_check: FAILED: ${what}`); failures++; };

const server = await serve(webDir, 0);
const url = server.url;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
});
try {
  const page = await browser.newPage({ viewport: { width: 900, height: 600 } });
  page.on('pageerror', (e) => fail(`page error: ${e.message}`));
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]', { timeout: 30000 });

  // Load through the file input, as a user does.
  await page.setInputFiles('#file', modelPath);
  await page.waitForFunction(() => window.viewer.state.rig !== null, null, { timeout: 30000 });
  const native = JSON.parse(readFileSync(samplePath, 'utf8'));
  const { min, max } = await page.evaluate(() => window.viewer.state.model.bounds);
  const size = Math.max(max[0] - min[0], max[1] - min[1], max[2] - min[2]);

  // Pause and scrub through the UI, then read the skinned positions the page drew.
  await page.click('#pause');
  let worst = 0;
  for (const s of native.samples.filter((x) => x.clip === 0)) {
    await page.$eval('#scrub', (el, t) => { el.value = String(t); el.dispatchEvent(new Event('input')); }, s.time);
    const p = s.primitives.find((x) => x.skinned);
    const got = await page.evaluate(() => window.viewer.positions(0));
    if (got.length !== p.positions.length) { fail(`t=${s.time}: ${got.length} floats, native ${p.positions.length}`); continue; }
    for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - p.positions[i]));
  }
  if (!(worst <= 1e-5 * size)) fail(`skinned positions differ from the native ones by ${worst}`);
  console.log(`browser_check: ${basename(modelPath)} in Chromium: largest difference from native ` +
              `${(worst / size).toExponential(2)} of the model's size (tolerance 1e-5)`);

  // Not blank: many colours and a foreground of sensible size, read from the canvas itself.
  await page.waitForTimeout(200);
  const picture = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    const copy = document.createElement('canvas');
    copy.width = c.width; copy.height = c.height;
    const ctx = copy.getContext('2d');
    ctx.drawImage(c, 0, 0);
    const { data } = ctx.getImageData(0, 0, c.width, c.height);
    const bg = [data[0], data[1], data[2]], colours = new Set();
    let fg = 0, x0 = c.width, x1 = -1, y0 = c.height, y1 = -1;
    for (let y = 0; y < c.height; y++) for (let x = 0; x < c.width; x++) {
      const i = (y * c.width + x) * 4;
      colours.add((data[i] >> 2) << 12 | (data[i + 1] >> 2) << 6 | (data[i + 2] >> 2));
      if (Math.abs(data[i] - bg[0]) + Math.abs(data[i + 1] - bg[1]) + Math.abs(data[i + 2] - bg[2]) > 24) {
        fg++; x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
    }
    return { colours: colours.size, share: fg / (c.width * c.height),
             height: (y1 - y0 + 1) / c.height, width: (x1 - x0 + 1) / c.width };
  });
  writeFileSync(screenshotPath, await page.screenshot());
  console.log(`browser_check: screenshot ${screenshotPath}: ${picture.colours} colours, foreground ` +
              `${(100 * picture.share).toFixed(1)}% of the canvas, ${(100 * picture.height).toFixed(0)}% of its height`);
  if (picture.colours < 32) fail(`the canvas has ${picture.colours} colours: blank or flat`);
  if (!(picture.share > 0.01 && picture.share < 0.9 && picture.height > 0.2))
    fail(`the foreground covers ${picture.share} of the canvas, ${picture.height} of its height`);

  // The overlays change the picture and break nothing.
  const plain = await page.screenshot();
  await page.check('#skeleton');
  await page.waitForTimeout(100);
  const withSkeleton = await page.screenshot();
  await page.check('#wireframe');
  await page.waitForTimeout(100);
  const withWireframe = await page.screenshot();
  if (plain.equals(withSkeleton)) fail('the skeleton overlay changed nothing');
  if (withSkeleton.equals(withWireframe)) fail('the wireframe toggle changed nothing');
  await page.uncheck('#skeleton');
  await page.uncheck('#wireframe');

  // Crossfade through the UI: resume, then click the clip with a fade set.
  await page.click('#pause');
  await page.$eval('#fade', (el) => { el.value = '0.5'; el.dispatchEvent(new Event('input')); });
  await page.click('#clips button');
  if (!(await page.evaluate(() => window.viewer.state.instance.fading))) fail('a crossfade from the UI did not start');
  await page.waitForFunction(() => !window.viewer.state.instance.fading, null, { timeout: 10000 })
    .catch(() => fail('the crossfade did not end'));

  // The blend pad: paused, a press at the pad's (1, 0) corner drives the instance with the 2D
  // tree, whose pose there is its second leaf's: the clip it names at that leaf's clock, as a
  // plain instance playing it shows (within 1e-5 of the model's size).  Turning the pad off
  // crossfades back to the clip.
  await page.click('#pause');
  await page.click('#pad', { position: { x: 118, y: 118 } }); // past the corner: clamped to it
  await page.waitForTimeout(100);
  const pad = await page.evaluate(() => {
    const s = window.viewer.state, clips = s.rig.clips.length;
    const plain = s.rig.instance();
    plain.play(1 % clips, { at: s.padTime + s.padOffsets[1] });
    plain.update(0);
    const want = plain.positions(0), got = s.instance.positions(0);
    let worst = 0;
    for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
    plain.free();
    return { worst, on: document.getElementById('pad-on').checked, current: s.instance.current,
             x: s.tree.get('x'), y: s.tree.get('y') };
  });
  console.log(`browser_check: blend pad at (${pad.x}, ${pad.y}): differs from its corner's clip by ` +
              `${(pad.worst / size).toExponential(2)} of the model's size (tolerance 1e-5)`);
  if (!pad.on || pad.current !== -1) fail(`the pad did not take over (on ${pad.on}, clip ${pad.current})`);
  if (pad.x !== 1 || pad.y !== 0) fail(`the pad's press set (${pad.x}, ${pad.y}), not (1, 0)`);
  if (!(pad.worst <= 1e-5 * size)) fail(`the pad's corner pose differs from its clip by ${pad.worst}`);
  await page.uncheck('#pad-on');
  const back = await page.evaluate(() => ({ fading: window.viewer.state.instance.fading,
                                             current: window.viewer.state.instance.current }));
  if (!back.fading || back.current < 0) fail(`turning the pad off did not crossfade to a clip (${JSON.stringify(back)})`);
  await page.click('#pause');

  // A broken GLB shows the library's message; the page keeps working.
  await page.setInputFiles('#file', { name: 'broken.glb', mimeType: 'model/gltf-binary',
                                      buffer: Buffer.from('glTF\x02\x00\x00\x00\xff\x00\x00\x00') });
  await page.waitForFunction(() => window.viewer.error() !== '', null, { timeout: 10000 })
    .catch(() => fail('a broken GLB showed no error'));
  const message = await page.evaluate(() => window.viewer.error());
  console.log(`browser_check: a broken GLB shows: ${message}`);
  if (!/broken\.glb: MN_GLB/.test(message)) fail(`the error shown is not the library's: ${message}`);
  await page.click('#demo');
  await page.waitForFunction(() => window.viewer.error() === '' && window.viewer.state.rig.clips.length > 0,
                             null, { timeout: 10000 }).catch(() => fail('the demo did not load after a broken file'));
  const readout = await page.textContent('#readout');
  if (!/update [0-9.]+ ms\n\d+ vertices skinned/.test(readout)) fail(`the readout says ${readout}`);
} finally {
  await browser.close();
  await server.close();
}
process.exit(failures ? 1 : 0);
