// The Khronos glTF validator (npm gltf-validator) over the files marionette wrote.
//
//   node tests/reference/validate.mjs FOLDER_OR_FILE...
//
// Every .glb and .gltf found (folders are searched recursively) is validated,
// its external resources (a .gltf's .bin) read from beside it.  Each file gets
// one line: its error, warning, info and hint counts; errors and warnings are
// then listed with their code and JSON pointer.  Infos and hints are allowed
// (UNUSED_OBJECT and the like say nothing about the file's validity).
//
// A warning the writer merely carries over is told apart from one it made:
// when a source.txt beside the file names the model it was written from, that
// source is validated too, and a warning with the same code at the same JSON
// pointer in the source is listed as "inherited" and allowed (the only one the
// shared assets have is NODE_SKINNED_MESH_NON_ROOT: a skinned mesh on a child
// node, a fact of the model that a faithful writer keeps).  Any other warning,
// and every error, fails.
// MN_VALIDATE_INFOS=1 lists the infos too.
// Exits 1 when any file has an error or a warning, or when no file was found.
import fs from 'node:fs';
import path from 'node:path';
import validator from 'gltf-validator';

const SEVERITY = ['error', 'warning', 'info', 'hint'];

function collect(target, out) {
  const stat = fs.statSync(target);
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(target).sort()) collect(path.join(target, name), out);
  } else if (/\.(glb|gltf)$/i.test(target)) {
    out.push(target);
  }
  return out;
}

async function validate(file) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const folder = path.dirname(file);
  return validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,   // no limit
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        fs.readFile(path.join(folder, decodeURIComponent(uri)), (err, data) =>
          err ? reject(err.toString()) : resolve(new Uint8Array(data)));
      }),
  });
}

const files = [];
for (const arg of process.argv.slice(2)) collect(arg, files);
if (files.length === 0) {
  console.log('validate: FAILED: no .glb or .gltf file found in', process.argv.slice(2).join(' '));
  process.exit(1);
}

// Warnings of the model a file was written from (source.txt beside it), by "code pointer".
const sourceWarnings = new Map();
async function inheritedWarnings(file) {
  const note = path.join(path.dirname(file), 'source.txt');
  if (!fs.existsSync(note)) return new Set();
  const source = fs.readFileSync(note, 'utf8').trim();
  if (!sourceWarnings.has(source)) {
    const report = await validate(source);
    sourceWarnings.set(source, new Set(report.issues.messages.filter((m) => m.severity === 1)
                                          .map((m) => `${m.code} ${m.pointer}`)));
  }
  return sourceWarnings.get(source);
}

let bad = 0, inheritedCount = 0;
const totals = [0, 0, 0, 0];
for (const file of files) {
  const report = await validate(file);
  const n = report.issues;
  totals[0] += n.numErrors; totals[1] += n.numWarnings; totals[2] += n.numInfos; totals[3] += n.numHints;
  const inherited = n.numWarnings > 0 ? await inheritedWarnings(file) : new Set();
  let flawed = n.numErrors > 0;
  const lines = [];
  for (const m of n.messages) {
    if (m.severity > (process.env.MN_VALIDATE_INFOS ? 2 : 1)) continue;
    let tag = SEVERITY[m.severity];
    if (m.severity === 1 && inherited.has(`${m.code} ${m.pointer}`)) {
      tag = 'warning (inherited: the source has it too)';
      inheritedCount++;
    } else if (m.severity === 1) {
      flawed = true;
    }
    lines.push(`    ${tag} ${m.code} at ${m.pointer ?? ''}: ${m.message}`);
  }
  if (flawed) bad++;
  console.log(`validate: ${flawed ? 'FAILED' : 'ok'} ${file}: ${n.numErrors} errors, ${n.numWarnings} warnings, ` +
              `${n.numInfos} infos, ${n.numHints} hints`);
  for (const line of lines) console.log(line);
}
console.log(`validate: validator ${validator.version()}: ${files.length} files, ${bad} FAILED with errors or ` +
            `new warnings (${totals[0]} errors, ${totals[1]} warnings of which ${inheritedCount} inherited from ` +
            `the source, ${totals[2]} infos, ${totals[3]} hints in all)`);
process.exit(bad ? 1 : 0);
