#!/usr/bin/env node
// Node entry: the same fetch handler as workerd and Deno behind node:http, with the engine loaded the edge
// way (files passed in, a WebAssembly.Module compiled here). For tests and for Node hosts that want the
// handler; Node's own API is build/engine/index.mjs.
//
//   node build/edge/node.mjs [--host 127.0.0.1] [--port 8788]    (prints "listening on http://HOST:PORT")
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createEdgeEngine } from './engine.mjs';
import { allowPrivateFrom, createHandler, limitsFrom } from './handler.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const FILES = ['manifest.json', 'pyodide-lock.json', 'site-packages.zip', 'snapshot.bin', 'readwell_edge.py'];

export async function loadEngine() {
  const files = {};
  for (const rel of FILES) {
    try {
      const buf = await readFile(HERE + rel);
      files[rel] = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (err) {
      if (rel !== 'snapshot.bin') throw err;
    }
  }
  const wasmModule = await WebAssembly.compile(await readFile(HERE + 'pyodide/pyodide.asm.wasm'));
  return createEdgeEngine({ files, wasmModule, indexURL: HERE + 'pyodide/' });
}

/** node:http ↔ Request/Response. */
export function listen(handler, { host = '127.0.0.1', port = 8788 } = {}) {
  const server = http.createServer(async (req, res) => {
    try {
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const request = new Request(`http://${host}:${server.address().port}${req.url}`, {
        method: req.method,
        headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
        body: hasBody ? Readable.toWeb(req) : undefined,
        duplex: hasBody ? 'half' : undefined,
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    } catch (err) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(`{"error": "internal error: ${err && err.name}", "status": 500}\n`);
    }
  });
  return new Promise((resolve) => server.listen(port, host, () => resolve(server)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
  const host = opt('--host', '127.0.0.1');
  let rejections = 0;
  process.on('unhandledRejection', (reason) => {
    rejections += 1;
    console.error('readwell edge: unhandled rejection:', reason);
  });
  const handler = createHandler(loadEngine, {
    token: process.env.READWELL_TOKEN || undefined,
    limits: limitsFrom((name) => process.env[name]),
    allowPrivate: allowPrivateFrom((name) => process.env[name]),
    health: () => ({ unhandled_rejections: rejections }),
  });
  const server = await listen(handler, { host, port: Number(opt('--port', '8788')) });
  console.log(`readwell edge (node): listening on http://${host}:${server.address().port}`);
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
