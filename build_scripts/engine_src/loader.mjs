// The one Pyodide loading sequence for every host of the engine: Node (index.mjs, files through node:fs),
// the extension (extension/engine.mjs, fetch() of extension URLs) and, later, edge runtimes. The host passes
// its I/O in, so this module imports nothing host-specific (no node:*, no chrome.*, no DOM).
//
// Sequence: manifest.json → memory snapshot when it matches this Pyodide (heap grown first, see roomFor),
// else a normal load → site-packages.zip unpacked → readwell_bridge imported. File names and snapshot facts
// come from the manifest written by build_engine.mjs, which stays the single source of truth. Copied beside
// index.mjs into build/engine/ and from there into build/extension/engine/.
import { loadPyodide, version as pyodideJsVersion } from './pyodide/pyodide.mjs';

/** The readwell_bridge functions a host may call through engine.call(name, ...args). */
export const BRIDGE_FUNCTIONS = [
  'extract_json',
  'extract_snapshot_json',
  'readerable_json',
  'stages_json',
  'options_json',
  'versions_json',
  'cli_main',
];

/** The wasm module defines its own memory (32 MB at start), so Pyodide's INITIAL_MEMORY hint for a snapshot has
 * no effect and restoring a snapshot larger than that fails ("offset is out of bounds"). Grow the heap
 * through Emscripten (which updates its views) before Pyodide copies the snapshot in. */
export function roomFor(createPyodideModule, bytesNeeded) {
  return async (settings) => {
    const mod = await createPyodideModule(settings);
    if (mod.HEAP8.length < bytesNeeded && !mod._emscripten_resize_heap(bytesNeeded)) {
      throw new Error(`readwell engine: cannot grow the heap to ${bytesNeeded} bytes for the snapshot`);
    }
    return mod;
  };
}

/** Instantiate Pyodide from a WebAssembly.Module the host compiled (edge runtimes forbid compiling wasm from
 * bytes). Emscripten's instantiateWasm hook is the documented way in; Pyodide's own hook would fetch and
 * compile the bytes. Jsv_GetError_import/JsvError_Check are Pyodide's plain-JS fallback pair (what it uses
 * wherever its tiny helper wasm cannot be compiled). A failed instantiation rejects instead of hanging. */
export function withWasmModule(createPyodideModule, wasmModule) {
  return (settings) => {
    let fail;
    const failed = new Promise((_, reject) => {
      fail = reject;
    });
    settings.instantiateWasm = (imports, receive) => {
      const marker = Symbol('error marker');
      imports.env.Jsv_GetError_import = () => marker;
      imports.env.JsvError_Check = (value) => value === marker;
      WebAssembly.instantiate(wasmModule, imports).then((instance) => receive(instance, wasmModule), fail);
      return {};
    };
    return Promise.race([createPyodideModule(settings), failed]);
  };
}

/**
 * Load Pyodide, the packages and readwell; return { pyodide, fromSnapshot, snapshotError, loadMs, manifest,
 * version, call(name, ...args) }.
 *
 * io (the host's I/O, paths relative to the engine directory):
 *   url(rel)          a location Pyodide can load from (indexURL, lockFileURL): file path or URL
 *   bytes(rel)        Promise<Uint8Array> of a file (plain typed array: Pyodide rejects Node Buffers)
 *   text(rel)         Promise<string> of a file
 *   lock()            optional: the lock file's contents (object or Promise), instead of a URL to load it from
 * options:
 *   snapshot          false forces a normal load
 *   wasmModule        optional precompiled WebAssembly.Module of pyodide.asm.wasm (edge runtimes)
 *   stdout, stderr    functions receiving Python's output lines
 *   onSnapshotError   called with the error when a snapshot exists but could not be used
 */
export async function createEngine(io, options = {}) {
  const t0 = performance.now();
  const manifest = JSON.parse(await io.text('manifest.json'));
  const zipPromise = io.bytes(manifest.site_packages.file);
  zipPromise.catch(() => {}); // awaited below; a failed snapshot load must not leave it unhandled
  const base = {
    indexURL: io.url('pyodide/'),
    ...(io.lock ? { lockFileContents: io.lock() } : { lockFileURL: io.url('pyodide-lock.json') }),
    stdout: options.stdout ?? (() => {}),
    stderr: options.stderr ?? ((line) => console.error(line)),
  };
  const wantSnapshot =
    options.snapshot !== false && manifest.snapshot && manifest.snapshot.pyodide_version === pyodideJsVersion;
  const wrap = (create) => (options.wasmModule ? withWasmModule(create, options.wasmModule) : create);
  let pyodide = null;
  let fromSnapshot = false;
  let snapshotError = null;
  if (wantSnapshot) {
    try {
      const [snap, asm] = await Promise.all([
        io.bytes(manifest.snapshot.file),
        import('./pyodide/pyodide.asm.mjs'),
      ]);
      pyodide = await loadPyodide({
        ...base,
        _loadSnapshot: snap,
        createPyodideModule: roomFor(wrap(asm.default), snap.length),
      });
      fromSnapshot = true;
    } catch (err) {
      snapshotError = err;
      pyodide = null;
      if (options.onSnapshotError) options.onSnapshotError(err);
    }
  }
  if (!pyodide && options.wasmModule) {
    const asm = await import('./pyodide/pyodide.asm.mjs');
    pyodide = await loadPyodide({ ...base, createPyodideModule: wrap(asm.default) });
  }
  if (!pyodide) pyodide = await loadPyodide(base);
  // The snapshot holds the Python heap (modules already imported), not the file system: unpack always.
  pyodide.unpackArchive(await zipPromise, 'zip', { extractDir: manifest.site_packages.extract_dir });
  const bridge = pyodide.pyimport('readwell_bridge');
  if (!fromSnapshot) bridge.preload();
  bridge.settle(); // the loaded heap out of the cycle collector's walks (see readwell_bridge.settle)
  const fns = {};
  for (const name of BRIDGE_FUNCTIONS) fns[name] = bridge[name];
  const call = (name, ...args) => {
    if (!fns[name]) throw new TypeError(`readwell engine: no bridge function ${name}`);
    return fns[name](...args);
  };
  return {
    pyodide,
    fromSnapshot,
    snapshotError,
    loadMs: performance.now() - t0,
    manifest,
    version: manifest.pyodide,
    call,
  };
}
