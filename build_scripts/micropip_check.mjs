// micropip in a stock Pyodide (node_modules/pyodide, unmodified lock), for tests/test_micropip.py:
// load micropip by URL from a local index, `await micropip.install("readwell", index_urls=[...])`, then extract
// a page. Prints one JSON object: {installed: {name: [version, source]}, result: <readwell JSON>}.
//   node build_scripts/micropip_check.mjs http://127.0.0.1:PORT PAGE.html [PAGE_URL]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [base, page, pageUrl] = process.argv.slice(2);
if (!base || !page || !/^http:\/\/127\.0\.0\.1:\d+$/.test(base)) {
  console.error('usage: micropip_check.mjs http://127.0.0.1:PORT PAGE.html [PAGE_URL]');
  process.exit(2);
}
const { loadPyodide } = await import(path.join(ROOT, 'node_modules', 'pyodide', 'pyodide.mjs'));
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'build_scripts', 'micropip.lock.json'), 'utf8'));

const py = await loadPyodide({ indexURL: path.join(ROOT, 'node_modules', 'pyodide') + path.sep });
await py.loadPackage(`${base}/micropip/${lock.wheels[0].file}`, { messageCallback: () => {} });
py.globals.set("INDEX", `${base}/simple`);
py.globals.set('HTML', fs.readFileSync(page, 'utf8'));
py.globals.set('PAGE_URL', pageUrl ?? null);
const out = await py.runPythonAsync(`
import json
import micropip

await micropip.install("readwell", index_urls=[INDEX])
import readwell

installed = {name: [p.version, p.source] for name, p in micropip.list().items()}
json.dumps({"installed": installed, "result": readwell.extract(HTML, url=PAGE_URL).to_dict()}, ensure_ascii=False)
`);
process.stdout.write(out + '\n');
