// Serve a folder (default build/web) on 127.0.0.1, for the viewer page, its browser test and the
// web benchmark: static files with the MIME types an ES module and WebAssembly need.
//   node scripts/web-serve.mjs [FOLDER] [PORT]     (PORT 0: any free port; prints "serving URL")
//   import { serve } from './web-serve.mjs';  const { url, close } = await serve(folder, 0);
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize, extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript',
                '.wasm': 'application/wasm', '.glb': 'model/gltf-binary', '.json': 'application/json',
                '.ts': 'text/plain', '.css': 'text/css', '.png': 'image/png' };

// Serve `folder` on 127.0.0.1:port; resolves to { url, close } once listening.
export function serve(folder, port = 0) {
  const root = resolve(folder);
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
  return new Promise((ok, fail) => {
    server.on('error', fail);
    server.listen(port, '127.0.0.1', () => ok({
      url: `http://127.0.0.1:${server.address().port}/`,
      close: () => new Promise((done) => server.close(done)),
    }));
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { url } = await serve(process.argv[2] || 'build/web', Number(process.argv[3] ?? 8080));
  console.log(`serving ${url}`);
}
