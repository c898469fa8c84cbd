// Serve a folder (default build/web) on 127.0.0.1, for the viewer page and its browser test:
// static files with the MIME types an ES module and WebAssembly need.  Prints "serving URL"
// once listening.
// usage: node scripts/web-serve.mjs [FOLDER] [PORT]        (PORT 0: any free port)
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize, extname, resolve } from 'node:path';

const root = resolve(process.argv[2] || 'build/web');
const port = Number(process.argv[3] ?? 8080);
const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript',
                '.wasm': 'application/wasm', '.glb': 'model/gltf-binary', '.json': 'application/json',
                '.ts': 'text/plain', '.css': 'text/css', '.png': 'image/png' };

const server = createServer(async (request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname));
  const file = join(root, path.endsWith('/') ? join(path, 'index.html') : path);
  if (!file.startsWith(root)) { response.writeHead(403).end(); return; }
  try {
    const body = await readFile(file);
    response.writeHead(200, { 'Content-Type': types[extname(file)] || 'application/octet-stream' });
    response.end(body);
  } catch {
    response.writeHead(404).end();
  }
});
server.listen(port, '127.0.0.1', () => {
  console.log(`serving http://127.0.0.1:${server.address().port}/`);
});
