// The Pyodide engine on the extension's own origin (offscreen document; also the benchmark's in-page engine).
// Loading is the shared sequence of build_scripts/engine_src/loader.mjs (snapshot, our lock file,
// site-packages.zip, readwell_bridge) with fetch() of extension URLs as its I/O. Copied into
// build/extension/engine/ beside loader.mjs by build_extension.mjs.
import { createEngine } from './loader.mjs';

const here = (rel) => new URL(rel, import.meta.url).href;
const fetched = async (rel) => {
  const res = await fetch(here(rel));
  if (!res.ok) throw new Error(`readwell engine: cannot fetch ${rel}: ${res.status}`);
  return res;
};
const extensionIo = {
  url: here,
  bytes: async (rel) => new Uint8Array(await (await fetched(rel)).arrayBuffer()),
  text: async (rel) => (await fetched(rel)).text(),
};

// A load that has not finished by then is given up (the next request starts a new one): nothing waits forever
// on a stuck load, and a slow machine (2 busy cores: 2-6 s) stays far below it.
const LOAD_TIMEOUT_MS = 60000;

let enginePromise = null;
const ENCODER = new TextEncoder();
const state = { state: 'idle', startedAt: null, readyAt: null, loadMs: null, fromSnapshot: null, error: null,
  attempts: 0 };

/** The loaded engine plus what the extension asks of it: the stage and option names readwell defines (read
 * once from the bridge) and extraction of a live-DOM snapshot with the options readwell knows. */
async function extensionEngine() {
  const engine = await createEngine(extensionIo, {
    stderr: (line) => console.warn('[readwell engine]', line),
    onSnapshotError: (err) => console.warn('readwell engine: snapshot not used:', err && err.message),
  });
  const stages = JSON.parse(engine.call('stages_json'));
  const optionNames = JSON.parse(engine.call('options_json')).map((o) => o.name); // readwell's options_schema()
  /** options: any object (url plus readwell's keyword options); other keys (the extension's own) are left out.
   * The snapshot crosses as UTF-8 bytes: Pyodide copies a JS string into Python one UTF-16 unit at a time, 3-5x
   * the cost of TextEncoder plus the bytes copy (readwell_bridge.extract_json). snapshotJson: the JSON text, or
   * its UTF-8 bytes already (a Uint8Array: the content script encodes it where messages carry binary data). */
  const extractSnapshot = (snapshotJson, options = {}) => {
    const known = { url: options.url };
    for (const k of optionNames) if (options[k] !== undefined && options[k] !== null) known[k] = options[k];
    const source = typeof snapshotJson === 'string' ? ENCODER.encode(snapshotJson) : snapshotJson;
    return engine.call('extract_snapshot_json', source, JSON.stringify(known));
  };
  return { ...engine, stages, optionNames, extractSnapshot };
}

/** Load (once) and return { fromSnapshot, loadMs, stages, optionNames, extractSnapshot, call(name, ...args) }. */
export function load() {
  if (!enginePromise) {
    Object.assign(state, { state: 'loading', startedAt: Date.now(), readyAt: null, error: null });
    state.attempts++;
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`readwell engine: load timed out after ${LOAD_TIMEOUT_MS} ms`)),
        LOAD_TIMEOUT_MS);
    });
    enginePromise = Promise.race([extensionEngine(), timeout]).finally(() => clearTimeout(timer));
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
