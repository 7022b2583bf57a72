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

let enginePromise = null;

/** Load (once) and return { fromSnapshot, loadMs, call(name, ...args) }. */
export function load() {
  if (!enginePromise) {
    enginePromise = createEngine();
    enginePromise.catch(() => { enginePromise = null; });
  }
  return enginePromise;
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
      pyodide = await loadPyodide({ ...base, _loadSnapshot: await fetchBytes(manifest.snapshot.file) });
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
