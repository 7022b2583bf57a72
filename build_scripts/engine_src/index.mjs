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
import { createEngine } from './loader.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const path = (rel) => HERE + rel;
// Node's part of the engine: files from the directory of this module. Pyodide wants plain typed arrays, not
// Node Buffers.
const nodeIo = {
  url: path,
  bytes: async (rel) => {
    const buf = await readFile(path(rel));
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  },
  text: (rel) => readFile(path(rel), 'utf8'),
};

let enginePromise = null;

/**
 * Load (once) and return the engine: { pyodide, fromSnapshot, loadMs, manifest, call }.
 * options.snapshot: false forces a normal load (also env READWELL_ENGINE_NO_SNAPSHOT=1).
 * options.stdout / options.stderr: functions receiving Python's output lines (default: discard stdout,
 * forward stderr to console.error).
 */
export function load(options = {}) {
  if (!enginePromise) {
    enginePromise = createEngine(nodeIo, {
      ...options,
      snapshot: options.snapshot !== false && !process.env.READWELL_ENGINE_NO_SNAPSHOT,
      onSnapshotError: (err) => {
        if (process.env.READWELL_ENGINE_DEBUG) console.error(`readwell engine: snapshot not used: ${err.message}`);
      },
    });
    enginePromise.catch(() => {
      enginePromise = null;
    });
  }
  return enginePromise;
}

function optionsJson(options) {
  if (options == null) return '{}';
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('readwell: options must be an object');
  }
  return JSON.stringify(options);
}

// Strings go to Python as str; bytes (Uint8Array, Buffer, ArrayBuffer) as bytes, so readwell sniffs the
// encoding (BOM, <meta charset>, ...) exactly as CPython does for bytes. A string crosses as its UTF-8
// encoding and the bridge decodes it (utf8Text: true): Pyodide's own string copy is 3-5x slower
// (readwell_bridge.extract_json says why and what a lone surrogate becomes).
const ENCODER = new TextEncoder();
function asHtml(html) {
  if (typeof html === 'string') return { source: ENCODER.encode(html), utf8Text: true };
  if (html instanceof Uint8Array) return { source: new Uint8Array(html.buffer, html.byteOffset, html.byteLength), utf8Text: false };
  if (html instanceof ArrayBuffer) return { source: new Uint8Array(html), utf8Text: false };
  throw new TypeError('readwell: html must be a string or bytes (Uint8Array/Buffer/ArrayBuffer)');
}

/** Extract the main content from an HTML string or bytes. options: { url, selector, debug, disable: [...], ... } (Python keyword names;
 * camelCase keys are converted to snake_case). */
export async function extract(html, options = {}) {
  const { source, utf8Text } = asHtml(html);
  const opts = optionsJson(options);
  const engine = await load();
  return JSON.parse(engine.call('extract_json', source, opts, utf8Text));
}

/** Cheap check whether a page looks like an article: { value, score, ... }. */
export async function isProbablyReaderable(html, options = {}) {
  const { source, utf8Text } = asHtml(html);
  const opts = optionsJson(options);
  const engine = await load();
  return JSON.parse(engine.call('readerable_json', source, opts, utf8Text));
}

/** Names of the pipeline stages, in order. */
export async function stages() {
  const engine = await load();
  return JSON.parse(engine.call('stages_json'));
}

/** The extraction options as the engine's Python defines them: [{ name, type, default, group, help }]. */
export async function options() {
  const engine = await load();
  return JSON.parse(engine.call('options_json'));
}

/** Versions of Python and the shipped packages inside the engine. */
export async function versions() {
  const engine = await load();
  return JSON.parse(engine.call('versions_json'));
}

const readwell = { extract, isProbablyReaderable, stages, options, versions, load };
export default readwell;
