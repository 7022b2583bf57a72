#!/usr/bin/env node
// Build build/edge/ from build/engine/ (run build_engine.mjs first; `make build` does): the runtime-neutral
// engine entry (engine.mjs), the fetch handler (handler.mjs), entries for workerd (worker.mjs + assets.mjs +
// workerd.capnp), Deno (deno.mjs + deno.json) and Node (node.mjs), the engine files they load, and the
// precompiled Emscripten adapters (adapters/<sig>.wasm) that workerd serves instead of compiling.
//
//   node build_scripts/build_edge.mjs [--engine DIR] [--out DIR] [--no-snapshot] [--quiet]
//
// edge-manifest.json records each file's size and gzip size (the bundle a deployment uploads).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { adapterBytes, signaturesIn } from './edge/adapters.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const SOURCES = ['adapters.mjs', 'engine.mjs', 'fetch_guard.mjs', 'handler.mjs', 'worker.mjs', 'deno.mjs', 'node.mjs', 'readwell_edge.py'];
const PYODIDE = ['pyodide/pyodide.mjs', 'pyodide/pyodide.asm.mjs', 'pyodide/pyodide.asm.wasm', 'pyodide/python_stdlib.zip'];
const ENGINE = ['loader.mjs', 'manifest.json', 'pyodide-lock.json', 'site-packages.zip'];
// workerd exposes a Node-like `process` by default from some date after 2026-06-01 (2026-11-01 has it): Pyodide
// then takes its Node path and fails reading files. Keep a date without it (and nodejs_compat off).
const COMPAT_DATE = '2026-06-01';

function parseArgs(argv) {
  const opts = { engine: path.join(ROOT, 'build', 'engine'), out: path.join(ROOT, 'build', 'edge'), snapshot: true, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--engine') opts.engine = path.resolve(argv[++i]);
    else if (a === '--out') opts.out = path.resolve(argv[++i]);
    else if (a === '--no-snapshot') opts.snapshot = false;
    else if (a === '--quiet' || a === '-q') opts.quiet = true;
    else throw new Error(`unknown argument: ${a}`);
  }
  return opts;
}

const capnpString = (s) => JSON.stringify(s);

const ENV = ['READWELL_TOKEN', 'READWELL_MAX_BODY', 'READWELL_DEADLINE_MS', 'READWELL_QUEUE', 'READWELL_ALLOW_PRIVATE'];

// allow: the address classes workerd's network service lets fetch() connect to, checked on the addresses a
// name RESOLVES to (what fetch_guard.mjs cannot see): ["public"] in workerd.capnp; workerd-private.capnp
// also allows private and local addresses, for pages on the operator's own network (and the tests).
function workerdConfig(modules, allow) {
  const lines = modules.map(({ name, type }) => `    (name = ${capnpString(name)}, ${type} = embed ${capnpString(name)}),`);
  return `# workerd configuration for the Readwell edge handler (written by build_scripts/build_edge.mjs).
#   npx workerd serve build/edge/workerd.capnp [--socket-addr http=127.0.0.1:8787]
# nodejs_compat stays off (with it Pyodide would take its Node path). Outbound requests (GET /extract?url=)
# go through the network service "internet", which connects only to ${allow.join(', ')} addresses, after DNS
# resolution (the check the handler cannot make itself). Environment: READWELL_TOKEN (require a bearer
# token), READWELL_MAX_BODY (bytes, default 10 MiB), READWELL_DEADLINE_MS (default 30000), READWELL_QUEUE
# (requests waiting, default 4), READWELL_ALLOW_PRIVATE (1: the handler lets URLs name private hosts).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "readwell", worker = .readwell),
    (name = "internet", network = (allow = [${allow.map(capnpString).join(', ')}], tlsOptions = (trustBrowserCas = true))),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "readwell")],
);

const readwell :Workerd.Worker = (
  modules = [
${lines.join('\n')}
  ],
  bindings = [
${ENV.map((n) => `    (name = "${n}", fromEnvironment = "${n}"),`).join('\n')}
  ],
  compatibilityDate = "${COMPAT_DATE}",
  globalOutbound = "internet",
);
`;
}

function assetsModule(dataFiles, sigs) {
  const ident = (rel) => `f_${rel.replace(/[^a-zA-Z0-9]/g, '_')}`;
  return `// Written by build_scripts/build_edge.mjs: the engine's files as workerd modules (data → ArrayBuffer,
// text → string, wasm → WebAssembly.Module compiled by workerd).
${dataFiles.map((rel) => `import ${ident(rel)} from './${rel}';`).join('\n')}
import wasmModule from './pyodide/pyodide.asm.wasm';
${sigs.map((s) => `import a_${s} from './adapters/${s}.wasm';`).join('\n')}

export const files = {
${dataFiles.map((rel) => `  '${rel}': ${ident(rel)},`).join('\n')}
};
export const adapters = { ${sigs.map((s) => `${s}: a_${s}`).join(', ')} };
export { wasmModule };
`;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const log = (m) => opts.quiet || console.log(`build_edge: ${m}`);
  const engineManifest = path.join(opts.engine, 'manifest.json');
  if (!fs.existsSync(engineManifest)) throw new Error(`${opts.engine} holds no engine: run node build_scripts/build_engine.mjs first`);
  const manifest = JSON.parse(fs.readFileSync(engineManifest, 'utf8'));
  const withSnapshot = opts.snapshot && manifest.snapshot && fs.existsSync(path.join(opts.engine, manifest.snapshot.file));
  const digest = createHash('sha256')
    .update(manifest.inputs_digest + String(withSnapshot))
    .update(fs.readFileSync(fileURLToPath(import.meta.url)));
  for (const f of SOURCES) digest.update(fs.readFileSync(path.join(HERE, 'edge', f)));
  const inputs = digest.digest('hex');
  const old = path.join(opts.out, 'edge-manifest.json');
  if (fs.existsSync(old) && JSON.parse(fs.readFileSync(old, 'utf8')).inputs_digest === inputs) {
    log(`${path.relative(process.cwd(), opts.out)} is up to date`);
    return;
  }
  const stage = `${opts.out}.partial`;
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(path.join(stage, 'pyodide'), { recursive: true });
  fs.mkdirSync(path.join(stage, 'adapters'));
  const engineFiles = [...ENGINE, ...PYODIDE, ...(withSnapshot ? [manifest.snapshot.file] : [])];
  for (const rel of engineFiles) fs.copyFileSync(path.join(opts.engine, rel), path.join(stage, rel));
  for (const f of SOURCES) fs.copyFileSync(path.join(HERE, 'edge', f), path.join(stage, f));

  // Emscripten adapters, one per signature it may wrap; each must be valid wasm.
  const sigs = signaturesIn(fs.readFileSync(path.join(opts.engine, 'pyodide/pyodide.asm.mjs'), 'utf8'));
  for (const sig of sigs) {
    const bytes = adapterBytes(sig);
    if (!WebAssembly.validate(bytes)) throw new Error(`adapter for signature ${sig} is not valid wasm`);
    fs.writeFileSync(path.join(stage, 'adapters', `${sig}.wasm`), bytes);
  }

  const data = ['site-packages.zip', 'pyodide/python_stdlib.zip', ...(withSnapshot ? [manifest.snapshot.file] : [])];
  const text = ['manifest.json', 'pyodide-lock.json', 'readwell_edge.py'];
  fs.writeFileSync(path.join(stage, 'assets.mjs'), assetsModule([...data, ...text], sigs));
  const modules = [
    { name: 'worker.mjs', type: 'esModule' },
    ...['assets.mjs', 'adapters.mjs', 'engine.mjs', 'fetch_guard.mjs', 'handler.mjs', 'loader.mjs', 'pyodide/pyodide.mjs', 'pyodide/pyodide.asm.mjs'].map((name) => ({ name, type: 'esModule' })),
    { name: 'pyodide/pyodide.asm.wasm', type: 'wasm' },
    ...sigs.map((s) => ({ name: `adapters/${s}.wasm`, type: 'wasm' })),
    ...data.map((name) => ({ name, type: 'data' })),
    ...text.map((name) => ({ name, type: 'text' })),
  ];
  fs.writeFileSync(path.join(stage, 'workerd.capnp'), workerdConfig(modules, ['public']));
  fs.writeFileSync(path.join(stage, 'workerd-private.capnp'), workerdConfig(modules, ['public', 'private', 'local']));
  fs.writeFileSync(
    path.join(stage, 'deno.json'),
    JSON.stringify(
      {
        tasks: {
          serve: `deno serve --allow-read=. --allow-net --allow-env=${ENV.join(',')} --host 127.0.0.1 --port 8788 deno.mjs`,
        },
      },
      null,
      2,
    ) + '\n',
  );

  // What a workerd deployment uploads: the modules in the config.
  const files = {};
  let total = 0;
  let gz = 0;
  for (const { name } of modules) {
    const buf = fs.readFileSync(path.join(stage, name));
    const g = gzipSync(buf, { level: 9 }).length;
    files[name] = { size: buf.length, gzip: g };
    total += buf.length;
    gz += g;
  }
  fs.writeFileSync(
    path.join(stage, 'edge-manifest.json'),
    JSON.stringify({ inputs_digest: inputs, snapshot: Boolean(withSnapshot), adapters: sigs.length, bundle: { bytes: total, gzip: gz }, files }, null, 2) + '\n',
  );
  fs.rmSync(opts.out, { recursive: true, force: true });
  fs.renameSync(stage, opts.out);
  const mb = (n) => (n / 1e6).toFixed(1);
  log(`built ${path.relative(process.cwd(), opts.out)}: ${modules.length} modules (${sigs.length} adapters), ${mb(total)} MB, ${mb(gz)} MB gzip, snapshot ${withSnapshot ? 'yes' : 'no'}`);
}

main();
