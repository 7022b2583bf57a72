#!/usr/bin/env node
// Start-up and speed of the Node engine (build/engine).
//
//   node build_scripts/bench_engine.mjs [--engine build/engine] [--small FILE] [--large FILE] [--runs 5]
//                                       [--no-compare] [--no-cpython] [--python python3] [--json]
//
// Prints: cold start (import the bridge + load Pyodide + packages + readwell, in this fresh process, from the
// snapshot when there is one), the same for a normal load without snapshot (in a child process), warm
// extraction times (first call and median of --runs) on a small and a large fixture (default: the smallest
// and the largest fixtures/*.html, plus a synthetic ~5,000-element page and, when ../shared/benchmarks is
// there, the four median-sized scrapinghub pages the extension benchmark uses), the same pages in CPython
// (a `python3` child importing readwell, same runs, same options) with the engine/CPython ratio, and memory
// (rss, V8 heap, external/array buffers incl. the wasm heap).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const T_START = performance.now(); // ms since process start (performance.timeOrigin)
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};
const flag = (name) => args.includes(name);
const engineDir = path.resolve(opt('--engine', path.join(ROOT, 'build', 'engine')));
const runs = Number(opt('--runs', '5'));
const coldOnly = flag('--cold-only');

function readFixture(file) {
  const html = fs.readFileSync(file, 'utf8');
  const m = /^\s*<!--\s*readwell-fixture:\s*(\{.*?\})\s*-->/.exec(html);
  let meta = {};
  if (m) {
    try {
      meta = JSON.parse(m[1]);
    } catch {
      meta = {};
    }
  }
  return { file, html, options: { ...(meta.options || {}), ...(meta.url ? { url: meta.url } : {}) } };
}

// A deterministic ~5,000-element page (article + navigation + sidebars), for a real "large" figure.
function syntheticPage(paragraphs) {
  const words = ['reader', 'content', 'article', 'extraction', 'python', 'engine', 'parity', 'fixture', 'stage', 'score'];
  const sentence = (i) => Array.from({ length: 18 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
  const nav = Array.from({ length: 60 }, (_, i) => `<li><a href="/section/${i}">Section ${i}</a></li>`).join('');
  const body = Array.from(
    { length: paragraphs },
    (_, i) =>
      (i % 25 === 0 ? `<h2 id="h${i}">Heading ${i}</h2>` : '') +
      `<p>${sentence(i)} <a href="/ref/${i}">reference ${i}</a> <em>${sentence(i + 1)}</em>.</p>`,
  ).join('\n');
  const aside = Array.from({ length: 40 }, (_, i) => `<div class="teaser"><a href="/t/${i}"><img src="/t${i}.jpg" alt="">Teaser ${i}</a></div>`).join('');
  return (
    `<!doctype html><html><head><title>Synthetic long read</title></head><body><header><nav><ul>${nav}</ul></nav></header>` +
    `<main><article><h1>Synthetic long read</h1>${body}</article><aside class="related">${aside}</aside></main>` +
    `<footer><div class="share">Share this</div><div class="newsletter">Subscribe to our newsletter</div></footer></body></html>`
  );
}

function pickFixtures() {
  const small = opt('--small', null);
  const large = opt('--large', null);
  const dir = path.join(ROOT, 'fixtures');
  const all = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.html'))
        .map((f) => path.join(dir, f))
        .sort((a, b) => fs.statSync(a).size - fs.statSync(b).size)
    : [];
  const s = small ?? all[0];
  const l = large ?? all[all.length - 1];
  if (!s || !l) {
    // No fixtures yet: synthesize a small and a large article.
    const para = (i) => `<p>Paragraph ${i} of the article, with <a href="/l/${i}">a link</a> and enough words to count as prose.</p>`;
    const page = (n) => `<html><head><title>Bench</title></head><body><article><h1>Bench</h1>${Array.from({ length: n }, (_, i) => para(i)).join('\n')}</article></body></html>`;
    return [
      { file: '(synthetic small)', html: page(5), options: { url: 'https://example.com/s' } },
      { file: '(synthetic large)', html: page(3000), options: { url: 'https://example.com/l' } },
    ];
  }
  return [readFixture(s), readFixture(l)];
}

// The extension benchmark's real pages (build_scripts/bench_extension.py pages()): the four median-sized
// scrapinghub pages, by size then name.
function corpusPages() {
  const dir = path.join(ROOT, '..', 'shared', 'benchmarks', 'scrapinghub', 'html');
  if (!fs.existsSync(dir)) return [];
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.html.gz'))
    .map((f) => ({ f, size: fs.statSync(path.join(dir, f)).size }))
    .sort((a, b) => a.size - b.size || (a.f < b.f ? -1 : a.f > b.f ? 1 : 0));
  const mid = files.length >> 1;
  return files.slice(mid, mid + 4).map(({ f }, i) => ({
    label: `real${i}`,
    file: path.join(dir, f),
    html: zlib.gunzipSync(fs.readFileSync(path.join(dir, f))).toString('utf8'),
    options: { url: `https://example.org/real${i}.html` },
  }));
}

// The same pages in CPython: a child `python3` importing readwell (PYTHONPATH as given), one warm-up call then
// `runs` timed calls per page, as the engine loop. html5lib as in the engine (READWELL_PARSER: the same
// code in both runtimes, so the ratio is the runtime's cost). Returns { times: { label: { ms, cpu_ms } } }
// (medians of wall-clock and CPU time) or { error }.
const CPYTHON_SCRIPT = `
import json, statistics, sys, time
import readwell
spec = json.load(sys.stdin)
out = {}
for p in spec["pages"]:
    times, cpu = [], []
    for i in range(spec["runs"] + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        readwell.extract(p["html"], **p["options"])
        if i:
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
    out[p["label"]] = {"ms": statistics.median(times), "cpu_ms": statistics.median(cpu)}
print(json.dumps(out))
`;
function cpythonTimes(pages) {
  const python = opt('--python', 'python3');
  const input = JSON.stringify({ runs, pages: pages.map(({ label, html, options }) => ({ label, html, options })) });
  const child = spawnSync(python, ['-c', CPYTHON_SCRIPT], { input, encoding: 'utf8', maxBuffer: 1 << 26,
    env: { ...process.env, READWELL_PARSER: 'html5lib' } });
  if (child.status !== 0) return { error: (child.stderr || String(child.error)).trim().split('\n').pop() };
  return { times: JSON.parse(child.stdout.trim().split('\n').pop()) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;

async function main() {
  if (!fs.existsSync(path.join(engineDir, 'manifest.json'))) {
    console.error(`bench_engine: no engine in ${engineDir}: run \`make build\` (node build_scripts/build_engine.mjs)`);
    process.exit(2);
  }
  const t0 = performance.now();
  const mod = await import(pathToFileURL(path.join(engineDir, 'index.mjs')).href);
  const engine = await mod.load(flag('--no-snapshot') ? { snapshot: false } : {});
  const t1 = performance.now();
  const cold = { load_ms: t1 - t0, since_process_start_ms: t1, process_boot_ms: T_START, from_snapshot: engine.fromSnapshot };
  if (coldOnly) {
    console.log(JSON.stringify(cold));
    return;
  }

  let normal = null;
  if (!flag('--no-compare') && engine.fromSnapshot) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--engine', engineDir, '--cold-only', '--no-snapshot'], {
      encoding: 'utf8',
    });
    if (child.status === 0) normal = JSON.parse(child.stdout.trim().split('\n').pop());
  }

  const [small, large] = pickFixtures();
  const warm = {};
  const synthetic = { file: '(synthetic page, 1,500 paragraphs)', html: syntheticPage(1500), options: { url: 'https://example.com/long-read' } };
  let cpython = null;
  const pages = [['small', small], ['large', large], ['synthetic', synthetic], ...corpusPages().map((p) => [p.label, p])];
  for (const [label, fx] of pages) {
    const times = [];
    const cpu = [];
    let first = null;
    for (let i = 0; i <= runs; i++) {
      const a = performance.now();
      const c = process.cpuUsage();
      await mod.extract(fx.html, fx.options);
      const ms = performance.now() - a;
      const used = process.cpuUsage(c);
      if (i === 0) first = ms;
      else {
        times.push(ms);
        cpu.push((used.user + used.system) / 1000);
      }
    }
    warm[label] = { file: path.relative(ROOT, fx.file) || fx.file, bytes: Buffer.byteLength(fx.html), first_ms: first,
      median_ms: median(times), cpu_median_ms: median(cpu), runs };
    // CPython right after, page by page: both figures see the same load on a shared machine
    if (!flag('--no-cpython') && !(cpython && cpython.error)) {
      const got = cpythonTimes([{ label, ...fx }]);
      if (got.error) cpython = { error: got.error };
      else {
        cpython = { ...cpython, ...got.times };
        warm[label].cpython_median_ms = got.times[label].ms;
        warm[label].cpython_cpu_median_ms = got.times[label].cpu_ms;
        warm[label].engine_vs_cpython = warm[label].median_ms / got.times[label].ms;
        // CPU time (the process's: includes V8's compiler and GC threads) moves less with other jobs' load
        warm[label].engine_vs_cpython_cpu = warm[label].cpu_median_ms / got.times[label].cpu_ms;
      }
    }
  }
  const rdStart = performance.now();
  await mod.isProbablyReaderable(synthetic.html);
  const readerableMs = performance.now() - rdStart;
  const mem = process.memoryUsage();
  const ratios = (k) => Object.values(warm).map((w) => w[k]).filter((x) => x !== undefined);
  const medianOf = (xs) => (xs.length ? median(xs) : null);
  const result = { cold, cold_without_snapshot: normal, warm, cpython,
    engine_vs_cpython_median: medianOf(ratios('engine_vs_cpython')),
    engine_vs_cpython_cpu_median: medianOf(ratios('engine_vs_cpython_cpu')), readerable_large_ms: readerableMs,
    memory: mem };

  if (flag('--json')) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const r = (x) => `${Math.round(x)} ms`;
  console.log(`engine: ${path.relative(process.cwd(), engineDir) || engineDir} (Pyodide ${engine.manifest.pyodide.version}, Python ${engine.manifest.pyodide.python}, node ${process.version})`);
  console.log(`cold start (import + load + packages + readwell): ${r(cold.load_ms)} ${cold.from_snapshot ? '(memory snapshot)' : '(normal load)'}; ${r(cold.since_process_start_ms)} since process start`);
  if (normal) console.log(`cold start without snapshot:                     ${r(normal.load_ms)}; ${r(normal.since_process_start_ms)} since process start`);
  for (const [label, w] of Object.entries(warm)) {
    const vs = w.cpython_median_ms === undefined ? ''
      : `; CPython ${r(w.cpython_median_ms)}, engine/CPython ${w.engine_vs_cpython.toFixed(2)}x `
        + `(CPU ${r(w.cpu_median_ms)} vs ${r(w.cpython_cpu_median_ms)}: ${w.engine_vs_cpython_cpu.toFixed(2)}x)`;
    console.log(`extract ${label.padEnd(9)} ${w.file} (${(w.bytes / 1024).toFixed(1)} KB): first ${r(w.first_ms)}, warm median ${r(w.median_ms)} over ${w.runs}${vs}`);
  }
  if (cpython && cpython.error) console.log(`CPython comparison skipped: ${cpython.error}`);
  if (result.engine_vs_cpython_median !== null) {
    console.log(`engine/CPython warm extraction (CPython with html5lib), median over the pages: ${result.engine_vs_cpython_median.toFixed(2)}x wall-clock, ${result.engine_vs_cpython_cpu_median.toFixed(2)}x CPU time`);
  }
  console.log(`isProbablyReaderable synthetic: ${r(readerableMs)}`);
  console.log(`memory: rss ${mb(mem.rss)}, heap used ${mb(mem.heapUsed)} / total ${mb(mem.heapTotal)}, external ${mb(mem.external)} (array buffers ${mb(mem.arrayBuffers)})`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exit(1);
  },
);
