#!/usr/bin/env node
// Check a built engine: a load from the memory snapshot, a normal load, and a load through our
// pyodide-lock.json with loadPackage (integrity checked) must all work and agree.
//
//   node build_scripts/verify_engine.mjs [build/engine] [--json]
//
// build_engine.mjs runs this on the staged bundle before swapping it in.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const dir = path.resolve(args.find((a) => !a.startsWith('--')) ?? 'build/engine');

const SAMPLE = `<!doctype html><html><head><title>Verification page</title><base href="https://example.com/docs/"></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>How the engine is checked</h1>
<p>The build loads the engine three ways and requires the same answers from each. This paragraph has enough
words to look like the body of an article, with <a href="guide.html">a relative link</a> and <em>emphasis</em>.</p>
<p>A second paragraph talks about caf\u00e9s, na\u00efve text, and other non-ASCII words \u2014 so that encoding
problems show up here and not in production.</p>
<img src="pic.png" alt="A &quot;quoted&quot; picture"><script>alert(1)</script></article>
<footer>Share this • Subscribe to our newsletter</footer></body></html>`;
const URL_ = 'https://example.com/docs/engine-check';

function stripTimings(value) {
  if (Array.isArray(value)) return value.map(stripTimings);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) if (k !== 'timings') out[k] = stripTimings(v);
    return out;
  }
  return value;
}

async function viaBridge(tag, loadOptions) {
  const mod = await import(`${pathToFileURL(path.join(dir, 'index.mjs')).href}?${tag}`);
  const t0 = performance.now();
  const engine = await mod.load(loadOptions);
  const ms = performance.now() - t0;
  const stages = await mod.stages();
  const extracted = stripTimings(await mod.extract(SAMPLE, { url: URL_ }));
  const readerable = await mod.isProbablyReaderable(SAMPLE);
  return { ms, fromSnapshot: engine.fromSnapshot, snapshotError: engine.snapshotError, result: JSON.stringify({ stages, extracted, readerable }) };
}

async function viaLockFile() {
  const { loadPyodide } = await import(pathToFileURL(path.join(dir, 'pyodide', 'pyodide.mjs')).href);
  const py = await loadPyodide({
    indexURL: path.join(dir, 'pyodide') + path.sep,
    lockFileURL: path.join(dir, 'pyodide-lock.json'),
    stdout: () => {},
    stderr: () => {},
  });
  const errors = [];
  await py.loadPackage(['readwell'], { checkIntegrity: true, messageCallback: () => {}, errorCallback: (m) => errors.push(m) });
  if (errors.length) throw new Error(`loadPackage: ${errors.join('; ')}`);
  const names = py.runPython(`
import json, readwell, html5lib, bleach
json.dumps(list(readwell.stage_names()) if hasattr(readwell, "stage_names") else [s.name for s in readwell.STAGES])
`);
  return JSON.parse(names);
}

async function main() {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const report = { normal_ok: false, lock_ok: false, snapshot_ok: false, normal_ms: null, snapshot_ms: null, snapshot_error: null };
  let snap = null;
  if (manifest.snapshot) {
    try {
      snap = await viaBridge('snapshot', {});
      report.snapshot_ms = snap.ms;
      if (!snap.fromSnapshot) report.snapshot_error = `snapshot not loaded: ${snap.snapshotError && snap.snapshotError.message}`;
    } catch (err) {
      report.snapshot_error = String(err && err.message).split('\n').slice(-3).join(' ');
    }
  }
  const normal = await viaBridge('normal', { snapshot: false });
  report.normal_ms = normal.ms;
  const lockStages = await viaLockFile();
  report.lock_ok = JSON.stringify(lockStages) === JSON.stringify(JSON.parse(normal.result).stages);
  report.normal_ok = report.lock_ok && !normal.fromSnapshot;
  if (snap && snap.fromSnapshot) {
    report.snapshot_ok = snap.result === normal.result;
    if (!report.snapshot_ok) report.snapshot_error = 'snapshot and normal load give different results';
  }
  if (asJson) {
    console.log(JSON.stringify(report));
  } else {
    for (const [k, v] of Object.entries(report)) console.log(`${k}: ${typeof v === 'number' ? Math.round(v) : v}`);
  }
  const ok = report.normal_ok && (!manifest.snapshot || report.snapshot_ok);
  process.exit(ok ? 0 : 1);
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  if (asJson) console.log(JSON.stringify({ normal_ok: false, error: String(err && err.message) }));
  process.exit(1);
});
