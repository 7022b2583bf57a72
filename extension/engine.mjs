// The Pyodide engine on the extension's own origin (offscreen document). The same loading sequence as
// build_scripts/engine_src/index.mjs (snapshot, our lock file, site-packages.zip, readwell_bridge), with
// fetch() instead of node:fs; file names and snapshot facts come from build/engine/manifest.json, so the
// engine build stays the single source of truth. Copied into build/extension/engine/ by build_extension.mjs.
import { loadPyodide, version as pyodideJsVersion } from './pyodide/pyodide.mjs';

const here = (rel) => new URL(rel, import.meta.url).href;
const fetchBytes = async (rel) => {
  const res = await fetch(here(rel));
  if (!res.ok) throw new Error(`readwell engine: cannot fetch ${rel}: ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
};

// A load that has not finished by then is given up (the next request starts a new one): nothing waits forever
// on a stuck load, and a slow machine (2 busy cores: 2-6 s) stays far below it.
const LOAD_TIMEOUT_MS = 60000;

let enginePromise = null;
const state = { state: 'idle', startedAt: null, readyAt: null, loadMs: null, fromSnapshot: null, error: null,
  attempts: 0 };

/** Load (once) and return { fromSnapshot, loadMs, call(name, ...args) }. */
export function load() {
  if (!enginePromise) {
    Object.assign(state, { state: 'loading', startedAt: Date.now(), readyAt: null, error: null });
    state.attempts++;
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`readwell engine: load timed out after ${LOAD_TIMEOUT_MS} ms`)),
        LOAD_TIMEOUT_MS);
    });
    enginePromise = Promise.race([createEngine(), timeout]).finally(() => clearTimeout(timer));
    enginePromise.then((e) => Object.assign(state, { state: 'ready', readyAt: Date.now(), loadMs: e.loadMs,
      fromSnapshot: e.fromSnapshot }), (err) => {
      Object.assign(state, { state: 'failed', error: String((err && err.message) || err) });
      enginePromise = null;
    });
  }
  return enginePromise;
}

/** Where the engine is: { state: idle|loading|ready|failed, startedAt, readyAt (epoch ms), loadMs, ... }. */
export const status = () => ({ ...state });

/** The wasm module defines its own memory (32 MB at start), so Pyodide's INITIAL_MEMORY hint has no effect and
 * restoring a larger snapshot fails ("offset is out of bounds"): grow the heap through Emscripten (which
 * updates its views) before Pyodide copies the snapshot in. */
function roomFor(createPyodideModule, bytesNeeded) {
  return async (settings) => {
    const mod = await createPyodideModule(settings);
    if (mod.HEAP8.length < bytesNeeded && !mod._emscripten_resize_heap(bytesNeeded)) {
      throw new Error(`readwell engine: cannot grow the heap to ${bytesNeeded} bytes for the snapshot`);
    }
    return mod;
  };
}

async function createEngine() {
  const t0 = performance.now();
  const manifest = await (await fetch(here('manifest.json'))).json();
  const zipPromise = fetchBytes(manifest.site_packages.file);
  const livePromise = fetch(here('readwell_live.py')).then((r) => r.text());
  const base = {
    indexURL: here('pyodide/'),
    lockFileURL: here('pyodide-lock.json'),
    stdout: () => {},
    stderr: (line) => console.warn('[readwell engine]', line),
  };
  let pyodide = null;
  let fromSnapshot = false;
  if (manifest.snapshot && manifest.snapshot.pyodide_version === pyodideJsVersion) {
    try {
      const [snap, asm] = await Promise.all([fetchBytes(manifest.snapshot.file), import('./pyodide/pyodide.asm.mjs')]);
      pyodide = await loadPyodide({ ...base, _loadSnapshot: snap, createPyodideModule: roomFor(asm.default, snap.length) });
      fromSnapshot = true;
    } catch (err) {
      console.warn('readwell engine: snapshot not used:', err && err.message);
      pyodide = null;
    }
  }
  if (!pyodide) pyodide = await loadPyodide(base);
  // A snapshot holds the Python heap, not the file system: unpack always.
  pyodide.unpackArchive(await zipPromise, 'zip', { extractDir: manifest.site_packages.extract_dir });
  pyodide.FS.writeFile(`${manifest.site_packages.extract_dir}/readwell_live.py`, await livePromise);
  const bridge = pyodide.pyimport('readwell_bridge');
  if (!fromSnapshot) bridge.preload();
  const live = pyodide.pyimport('readwell_live');
  const fns = { extract_snapshot_json: live.extract_snapshot_json, versions_json: bridge.versions_json,
    stages_json: bridge.stages_json };
  const call = (name, ...args) => fns[name](...args);
  return { fromSnapshot, loadMs: performance.now() - t0, call, version: manifest.pyodide };
}
