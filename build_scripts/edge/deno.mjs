// Deno entry: `deno serve` runs `export default { fetch }` (build/edge/deno.json has the task and the
// permissions: read this directory, nothing else). Deno shows process.versions.node, so Pyodide takes its
// Node path and reads pyodide/ itself; the other files are read here and passed in.
/* global Deno */
import { createEdgeEngine } from './engine.mjs';
import { allowPrivateFrom, createHandler, limitsFrom } from './handler.mjs';

const HERE = new URL('.', import.meta.url);
const FILES = ['manifest.json', 'pyodide-lock.json', 'site-packages.zip', 'snapshot.bin', 'readwell_edge.py'];

async function load() {
  const files = {};
  for (const rel of FILES) {
    try {
      files[rel] = await Deno.readFile(new URL(rel, HERE));
    } catch (err) {
      if (rel !== 'snapshot.bin') throw err; // a bundle built without the snapshot loads normally
    }
  }
  const wasmModule = await WebAssembly.compile(await Deno.readFile(new URL('pyodide/pyodide.asm.wasm', HERE)));
  const indexURL = decodeURIComponent(new URL('pyodide/', HERE).pathname);
  return createEdgeEngine({ files, wasmModule, indexURL });
}

let rejections = 0;
globalThis.addEventListener('unhandledrejection', (event) => {
  rejections += 1;
  console.error('readwell edge: unhandled rejection:', event.reason);
});

export default createHandler(load, {
  token: Deno.env.get('READWELL_TOKEN') || undefined,
  limits: limitsFrom((name) => Deno.env.get(name)),
  allowPrivate: allowPrivateFrom((name) => Deno.env.get(name)),
  health: () => ({ unhandled_rejections: rejections }),
});
