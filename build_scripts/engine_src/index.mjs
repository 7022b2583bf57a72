// Readwell engine for Node (ES module entry). Built into build/engine/ by build_scripts/build_engine.mjs.
//
//   import { extract, isProbablyReaderable, stages } from './build/engine/index.mjs';
//   const result = await extract(html, { url: 'https://example.com/a' });
//
// All functions are async: the first call loads Pyodide (from the memory snapshot when it matches,
// otherwise a normal load) and later calls reuse that one interpreter. Results are plain JS objects
// with the same fields as `readwell extract --format json`.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadPyodide, version as pyodideJsVersion } from './pyodide/pyodide.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const path = (rel) => HERE + rel;
// Pyodide wants plain typed arrays, not Node Buffers.
const bytes = (buf) => new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);

let enginePromise = null;

/**
 * Load (once) and return the engine: { pyodide, fromSnapshot, loadMs, manifest, call }.
 * options.snapshot: false forces a normal load (also env READWELL_ENGINE_NO_SNAPSHOT=1).
 * options.stdout / options.stderr: functions receiving Python's output lines (default: discard stdout,
 * forward stderr to console.error).
 */
export function load(options = {}) {
  if (!enginePromise) {
    enginePromise = createEngine(options);
    enginePromise.catch(() => {
      enginePromise = null;
    });
  }
  return enginePromise;
}

/** The wasm module defines its own memory (32 MB at start), so Pyodide's INITIAL_MEMORY hint for a snapshot has
 * no effect and restoring a snapshot larger than that fails ("offset is out of bounds"). Grow the heap
 * through Emscripten (views updated) before Pyodide copies the snapshot in. */
function roomFor(createPyodideModule, bytesNeeded) {
  return async (settings) => {
    const mod = await createPyodideModule(settings);
    if (mod.HEAP8.length < bytesNeeded && !mod._emscripten_resize_heap(bytesNeeded)) {
      throw new Error(`readwell engine: cannot grow the heap to ${bytesNeeded} bytes for the snapshot`);
    }
    return mod;
  };
}

async function createEngine(options) {
  const t0 = performance.now();
  const manifest = JSON.parse(await readFile(path('manifest.json'), 'utf8'));
  const zipPromise = readFile(path(manifest.site_packages.file));
  const base = {
    indexURL: path('pyodide/'),
    lockFileURL: path('pyodide-lock.json'),
    stdout: options.stdout ?? (() => {}),
    stderr: options.stderr ?? ((line) => console.error(line)),
  };
  const wantSnapshot =
    options.snapshot !== false &&
    !process.env.READWELL_ENGINE_NO_SNAPSHOT &&
    manifest.snapshot &&
    manifest.snapshot.pyodide_version === pyodideJsVersion;
  let pyodide = null;
  let fromSnapshot = false;
  let snapshotError = null;
  if (wantSnapshot) {
    try {
      const snap = await readFile(path(manifest.snapshot.file));
      const { default: createPyodideModule } = await import(new URL('./pyodide/pyodide.asm.mjs', import.meta.url).href);
      pyodide = await loadPyodide({ ...base, _loadSnapshot: bytes(snap), createPyodideModule: roomFor(createPyodideModule, snap.length) });
      fromSnapshot = true;
    } catch (err) {
      snapshotError = err;
      pyodide = null;
      if (process.env.READWELL_ENGINE_DEBUG) console.error(`readwell engine: snapshot not used: ${err.message}`);
    }
  }
  if (!pyodide) pyodide = await loadPyodide(base);
  // The snapshot holds the Python heap (modules already imported), not the file system: unpack always.
  pyodide.unpackArchive(bytes(await zipPromise), 'zip', { extractDir: manifest.site_packages.extract_dir });
  const bridge = pyodide.pyimport('readwell_bridge');
  if (!fromSnapshot) bridge.preload();
  const fns = {};
  for (const name of ['extract_json', 'readerable_json', 'stages_json', 'versions_json', 'cli_main']) {
    fns[name] = bridge[name];
  }
  const call = (name, ...args) => fns[name](...args);
  return {
    pyodide,
    fromSnapshot,
    snapshotError,
    loadMs: performance.now() - t0,
    manifest,
    call,
  };
}

function optionsJson(options) {
  if (options == null) return '{}';
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('readwell: options must be an object');
  }
  return JSON.stringify(options);
}

// Strings go to Python as str; bytes (Uint8Array, Buffer, ArrayBuffer) as bytes, so readwell sniffs the
// encoding (BOM, <meta charset>, ...) exactly as CPython does for bytes.
function asHtml(html) {
  if (typeof html === 'string') return html;
  if (html instanceof Uint8Array) return new Uint8Array(html.buffer, html.byteOffset, html.byteLength);
  if (html instanceof ArrayBuffer) return new Uint8Array(html);
  throw new TypeError('readwell: html must be a string or bytes (Uint8Array/Buffer/ArrayBuffer)');
}

/** Extract the main content from an HTML string or bytes. options: { url, selector, debug, disable: [...], ... } (Python keyword names;
 * camelCase keys are converted to snake_case). */
export async function extract(html, options = {}) {
  const source = asHtml(html);
  const opts = optionsJson(options);
  const engine = await load();
  return JSON.parse(engine.call('extract_json', source, opts));
}

/** Cheap check whether a page looks like an article: { value, score, ... }. */
export async function isProbablyReaderable(html, options = {}) {
  const source = asHtml(html);
  const opts = optionsJson(options);
  const engine = await load();
  return JSON.parse(engine.call('readerable_json', source, opts));
}

/** Names of the pipeline stages, in order. */
export async function stages() {
  const engine = await load();
  return JSON.parse(engine.call('stages_json'));
}

/** Versions of Python and the shipped packages inside the engine. */
export async function versions() {
  const engine = await load();
  return JSON.parse(engine.call('versions_json'));
}

const readwell = { extract, isProbablyReaderable, stages, versions, load };
export default readwell;
