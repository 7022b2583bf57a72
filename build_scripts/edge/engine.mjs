// The Readwell engine for any JavaScript runtime with fetch-style globals (workerd, Deno, Node, Bun): the host
// passes the engine's files in and a precompiled WebAssembly.Module, nothing here imports node:* or reads a
// disk. Built into build/edge/ beside loader.mjs by build_scripts/build_edge.mjs.
//
// What a runtime without Node's globals needs while Pyodide loads (../shared/notes/edge-runtimes.md):
//   - Pyodide's non-Node path fetches python_stdlib.zip from indexURL and resolves URLs against `location`:
//     a virtual indexURL answered from memory, a temporary `location`, any other fetch refused.
//   - no compiling wasm from bytes: the main module comes precompiled (loader.mjs withWasmModule), and the
//     small per-signature adapters Emscripten builds for JS functions (convertJsFunctionToWasm) are served
//     from modules precompiled by the host (the wart: without them the first compile throws inside
//     Pyodide's load and surfaces as an unhandled rejection).
//   - no setImmediate in workerd; Emscripten's fallback registers a capturing 'message' listener, refused.
import { adapterBytes, keyOf } from './adapters.mjs';
import { createEngine } from './loader.mjs';

export const VIRTUAL_INDEX = 'https://readwell-engine.invalid/';

/** While `body` runs, `new WebAssembly.Module(bytes)` answers adapter bytes from `adapters` (sig → Module);
 * anything else goes to the real constructor. Returns body's result; the constructor is restored after. */
async function withAdapters(adapters, body) {
  const entries = Object.entries(adapters || {});
  if (!entries.length) return body();
  const byKey = new Map(entries.map(([sig, mod]) => [keyOf(adapterBytes(sig)), mod]));
  const Real = WebAssembly.Module;
  function Module(bytes, ...rest) {
    const view = ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null;
    const hit = view && view.length < 64 ? byKey.get(keyOf(view)) : undefined;
    return hit || new Real(bytes, ...rest);
  }
  Object.setPrototypeOf(Module, Real);
  Module.prototype = Real.prototype; // instanceof WebAssembly.Module keeps working
  WebAssembly.Module = Module;
  try {
    return await body();
  } finally {
    WebAssembly.Module = Real;
  }
}

const toBytes = (data) => {
  if (data instanceof Uint8Array) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (typeof data === 'string') return new TextEncoder().encode(data);
  throw new TypeError('readwell edge: engine files must be bytes or strings');
};

/** Node, Deno and Bun show process.versions.node: Pyodide takes its Node path there and reads indexURL from
 * the file system itself. */
export const nodeLike = () => typeof globalThis.process?.versions?.node === 'string';

/** Pyodide's browser path during load: `location`, and fetch of the virtual index from memory. */
async function withVirtualIndex(files, body) {
  const realFetch = globalThis.fetch;
  const hadLocation = 'location' in globalThis;
  globalThis.fetch = async (input) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.startsWith(VIRTUAL_INDEX)) {
      const rel = url.slice(VIRTUAL_INDEX.length);
      // pyodide.asm.wasm is asked for but unused (the module is precompiled): an empty answer, never a reject
      if (rel === 'pyodide/pyodide.asm.wasm') return new Response(null, { status: 404 });
      if (files[rel] !== undefined) return new Response(toBytes(files[rel]));
    }
    throw new TypeError(`readwell edge: no network while the engine loads (${url})`);
  };
  if (!hadLocation) {
    Object.defineProperty(globalThis, 'location', { value: new URL(VIRTUAL_INDEX), configurable: true });
  }
  try {
    return await body();
  } finally {
    globalThis.fetch = realFetch;
    if (!hadLocation) delete globalThis.location;
  }
}

/**
 * Load the engine from files the host hands in.
 *   files       { 'manifest.json', 'pyodide-lock.json', 'site-packages.zip', 'snapshot.bin'?,
 *                 'pyodide/python_stdlib.zip' }: Uint8Array | ArrayBuffer | string
 *   wasmModule  WebAssembly.Module of pyodide/pyodide.asm.wasm
 *   adapters    { sig: WebAssembly.Module } precompiled adapters (runtimes that cannot compile wasm)
 *   indexURL    the real pyodide/ directory on Node-like runtimes (Pyodide reads it with node:fs there)
 *   snapshot, stdout, stderr, onSnapshotError: as loader.mjs createEngine
 * Returns loader.mjs's engine.
 */
export async function createEdgeEngine({ files, wasmModule, adapters, indexURL, ...options }) {
  if (!(wasmModule instanceof WebAssembly.Module)) throw new TypeError('readwell edge: wasmModule must be a WebAssembly.Module');
  for (const rel of ['manifest.json', 'pyodide-lock.json', 'site-packages.zip']) {
    if (files[rel] === undefined) throw new TypeError(`readwell edge: missing engine file ${rel}`);
  }
  if (typeof globalThis.setImmediate !== 'function') {
    globalThis.setImmediate = (fn, ...args) => setTimeout(fn, 0, ...args);
  }
  const node = nodeLike();
  if (node && !indexURL) {
    throw new TypeError(
      'readwell edge: this runtime shows process.versions.node, so Pyodide reads files itself: pass indexURL ' +
        '(the pyodide/ directory); in workerd, turn Node compatibility off (nodejs_compat, compatibility date)',
    );
  }
  const text = (rel) => (typeof files[rel] === 'string' ? files[rel] : new TextDecoder().decode(toBytes(files[rel])));
  const io = {
    url: (rel) => (rel === 'pyodide/' && node ? indexURL : VIRTUAL_INDEX + rel),
    bytes: async (rel) => {
      if (files[rel] === undefined) throw new Error(`readwell edge: no engine file ${rel}`);
      return toBytes(files[rel]);
    },
    text: async (rel) => text(rel),
    lock: () => JSON.parse(text('pyodide-lock.json')),
  };
  const manifest = JSON.parse(text('manifest.json'));
  const load = () => createEngine(io, { ...options, snapshot: options.snapshot !== false && files[manifest.snapshot?.file] !== undefined, wasmModule });
  const engine = await withAdapters(adapters, () => (node ? load() : withVirtualIndex(files, load)));
  // Python modules of the host (the edge handler's readwell_edge.py) go beside the packages.
  for (const rel of Object.keys(files).filter((f) => /^[a-z_]+\.py$/.test(f))) {
    engine.pyodide.FS.writeFile(`${manifest.site_packages.extract_dir}/${rel}`, toBytes(files[rel]));
  }
  return engine;
}
