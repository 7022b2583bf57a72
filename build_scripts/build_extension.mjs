// Assemble the unpacked MV3 extension in build/extension/ from manifest.json, extension/ and the engine
// bundle build/engine/ (run build_engine.mjs first; `make build` does both). Loadable as is:
// chrome://extensions → Developer mode → Load unpacked → build/extension.
//
//   node build_scripts/build_extension.mjs [--engine DIR] [--out DIR]
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? resolve(args[i + 1]) : dflt; };
const ENGINE = opt('--engine', join(ROOT, 'build', 'engine'));
const OUT = opt('--out', join(ROOT, 'build', 'extension'));
const SRC = join(ROOT, 'extension');

// extension/ files that belong beside the engine, not at the top level
const ENGINE_SIDE = new Set(['engine.mjs']);
const SKIP = new Set(['README.md']);
// what the browser needs from build/engine (Node entry points, CLI and loose wheels are not shipped:
// site-packages.zip already holds every package); loader.mjs is the loading sequence engine.mjs shares with Node
const ENGINE_FILES = ['manifest.json', 'pyodide-lock.json', 'loader.mjs'];
const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip'];

function fail(msg) { console.error(`build_extension: ${msg}`); process.exit(1); }

if (!existsSync(join(ENGINE, 'manifest.json'))) fail(`no engine in ${ENGINE}: run node build_scripts/build_engine.mjs`);
const engineManifest = JSON.parse(readFileSync(join(ENGINE, 'manifest.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8'));

const tmp = `${OUT}.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
mkdirSync(join(tmp, 'engine', 'pyodide'), { recursive: true });

for (const name of readdirSync(SRC)) {
  if (SKIP.has(name) || statSync(join(SRC, name)).isDirectory()) continue;
  const dest = ENGINE_SIDE.has(name) ? join(tmp, 'engine', name) : join(tmp, name);
  cpSync(join(SRC, name), dest);
}
for (const f of ENGINE_FILES) cpSync(join(ENGINE, f), join(tmp, 'engine', f));
cpSync(join(ENGINE, engineManifest.site_packages.file), join(tmp, 'engine', engineManifest.site_packages.file));
if (engineManifest.snapshot && existsSync(join(ENGINE, engineManifest.snapshot.file))) {
  cpSync(join(ENGINE, engineManifest.snapshot.file), join(tmp, 'engine', engineManifest.snapshot.file));
}
for (const f of PYODIDE_FILES) {
  if (!existsSync(join(ENGINE, 'pyodide', f))) fail(`engine is missing pyodide/${f}`);
  cpSync(join(ENGINE, 'pyodide', f), join(tmp, 'engine', 'pyodide', f));
}
// The content scripts the service worker injects into a tab for a command (sw.js CONTENT_FILES), as one file:
// each injected file is a separate load, compile and run step in the tab, and the injection is on the path of
// every first command on a page. The parts are classic scripts, each one IIFE that returns early when its module
// is there already, so the bundle is their concatenation, in order; they stay in the build as separate files
// too (offscreen.html, options.html and the benchmark load some of them by name; overlay.js and clip.js are
// injected on their own when first used, content.js need()).
const CONTENT_BUNDLE = 'content_bundle.js';
const CONTENT_PARTS = ['messages.js', 'site_roots.js', 'snapshot.js', 'safe_dom.js', 'reader.js', 'content.js'];
writeFileSync(join(tmp, CONTENT_BUNDLE), CONTENT_PARTS.map((f) => `// ---- ${f}\n${readFileSync(join(SRC, f), 'utf8')}\n;\n`).join(''));

manifest.version_name = `${manifest.version} (pyodide ${engineManifest.pyodide.version}, python ${engineManifest.pyodide.python})`;
writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

// every file the manifest and pages name must exist
const must = [manifest.background.service_worker, 'offscreen.html', 'offscreen.js', 'content.js', CONTENT_BUNDLE, 'reader.css',
  'messages.js', 'engine/engine.mjs', 'engine/loader.mjs'];
for (const f of must) if (!existsSync(join(tmp, f))) fail(`missing ${f}`);

rmSync(OUT, { recursive: true, force: true });
renameSync(tmp, OUT);
let bytes = 0;
const walk = (d) => { for (const n of readdirSync(d)) { const p = join(d, n); const s = statSync(p); if (s.isDirectory()) walk(p); else bytes += s.size; } };
walk(OUT);
console.log(`build_extension: ${OUT} (${(bytes / 1e6).toFixed(1)} MB)`);
