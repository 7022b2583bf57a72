#!/usr/bin/env node
// Build the Readwell Pyodide engine into build/engine/ (see issue 5 and docs in README).
//
//   node build_scripts/build_engine.mjs [--force] [--out DIR] [--source DIR] [--python PY] [--no-snapshot]
//
// Inputs, all pinned: node_modules/pyodide (package-lock.json), the wheels in build_scripts/wheels.lock.json
// (downloaded from PyPI by pip, sha256-checked), and the readwell wheel built from --source (default: this
// repository). Output: build/engine/ with the Pyodide runtime, the wheels, our own pyodide-lock.json, a
// byte-compiled site-packages.zip, a verified memory snapshot, the JS bridge (loader.mjs, index.mjs, index.cjs, cli.mjs)
// and manifest.json (versions and sha256 of every shipped file). Same inputs give the same files (except
// snapshot.bin, see manifest.snapshot.reproducible). Skips the work when manifest.json's inputs_digest matches.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const SOURCE_DATE_EPOCH = '315532800'; // 1980-01-01, the earliest zip date

// Runtime files copied from the npm package (maps, consoles and type files are left out).
const RUNTIME_FILES = ['pyodide.mjs', 'pyodide.js', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'package.json'];
// loader.mjs is the host-independent loading sequence; build_extension.mjs ships it with the extension too.
const BRIDGE_FILES = ['loader.mjs', 'index.mjs', 'index.cjs', 'cli.mjs'];

function parseArgs(argv) {
  const opts = {
    out: path.join(ROOT, 'build', 'engine'),
    source: ROOT,
    python: process.env.PYTHON || 'python3',
    force: false,
    snapshot: true,
    requireSnapshot: false,
    quiet: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) die(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--out') opts.out = path.resolve(next());
    else if (a === '--source') opts.source = path.resolve(next());
    else if (a === '--python') opts.python = next();
    else if (a === '--force') opts.force = true;
    else if (a === '--no-snapshot') opts.snapshot = false;
    else if (a === '--require-snapshot') opts.requireSnapshot = true;
    else if (a === '--quiet' || a === '-q') opts.quiet = true;
    else if (a === '--help' || a === '-h') {
      console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 12).join('\n'));
      process.exit(0);
    } else die(`unknown argument: ${a}`);
  }
  return opts;
}

function die(msg) {
  console.error(`build_engine: error: ${msg}`);
  process.exit(1);
}

let QUIET = false;
const log = (msg) => {
  if (!QUIET) console.log(`build_engine: ${msg}`);
};

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');
const sha256File = (p) => sha256(fs.readFileSync(p));

function run(cmd, args, options = {}) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', ...options });
  if (res.error) die(`cannot run ${cmd}: ${res.error.message}`);
  if (res.status !== 0) {
    die(`${cmd} ${args.join(' ')} failed (exit ${res.status}):\n${(res.stdout || '').slice(-3000)}${(res.stderr || '').slice(-3000)}`);
  }
  return res;
}

function walk(dir, filter = () => true, base = dir) {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const ent of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, ent.name);
    const rel = path.relative(base, p).split(path.sep).join('/');
    if (!filter(rel, ent)) continue;
    if (ent.isDirectory()) out.push(...walk(p, filter, base));
    else if (ent.isFile()) out.push(rel);
  }
  return out;
}

// Files of the readwell project that go into its wheel.
function sourceFiles(source) {
  const skip = (rel, ent) =>
    !(
      ent.name === '__pycache__' ||
      ent.name.endsWith('.pyc') ||
      ent.name.endsWith('.egg-info') ||
      ent.name.startsWith('.')
    );
  const top = ['pyproject.toml', 'setup.cfg', 'setup.py', 'README.md', 'README.rst', 'LICENSE', 'LICENSE.txt', 'MANIFEST.in'].filter(
    (f) => fs.existsSync(path.join(source, f)),
  );
  return [...top, ...walk(path.join(source, 'py_core'), skip).map((r) => `py_core/${r}`)];
}

function inputsDigest(opts, lock) {
  const h = createHash('sha256');
  const add = (label, p) => {
    h.update(`${label}\0`);
    h.update(fs.existsSync(p) ? fs.readFileSync(p) : Buffer.from('<missing>'));
    h.update('\0');
  };
  add('package-lock', path.join(ROOT, 'package-lock.json'));
  add('pyodide-package', path.join(ROOT, 'node_modules', 'pyodide', 'package.json'));
  for (const rel of walk(HERE, (r, ent) => ent.name !== '__pycache__' && !ent.name.endsWith('.pyc'))) add(`build_scripts/${rel}`, path.join(HERE, rel));
  for (const rel of sourceFiles(opts.source)) add(`source/${rel}`, path.join(opts.source, rel));
  h.update(JSON.stringify({ snapshot: opts.snapshot, pyodide: lock.pyodide }));
  return h.digest('hex');
}

function upToDate(opts, digest) {
  const mf = path.join(opts.out, 'manifest.json');
  if (!fs.existsSync(mf)) return false;
  try {
    const manifest = JSON.parse(fs.readFileSync(mf, 'utf8'));
    if (manifest.inputs_digest !== digest) return false;
    for (const [rel, info] of Object.entries(manifest.files)) {
      const p = path.join(opts.out, rel);
      if (!fs.existsSync(p) || fs.statSync(p).size !== info.size) return false;
    }
    return true;
  } catch {
    return false;
  }
}

function checkPyodidePackage(lock) {
  const pkgDir = path.join(ROOT, 'node_modules', 'pyodide');
  const pkgJson = path.join(pkgDir, 'package.json');
  if (!fs.existsSync(pkgJson)) die(`${pkgDir} is missing: run \`npm ci\` (or build_scripts/setup.sh) first`);
  const version = JSON.parse(fs.readFileSync(pkgJson, 'utf8')).version;
  if (version !== lock.pyodide) die(`node_modules/pyodide is ${version}, wheels.lock.json pins ${lock.pyodide}: run \`npm ci\``);
  for (const f of RUNTIME_FILES) if (!fs.existsSync(path.join(pkgDir, f))) die(`node_modules/pyodide/${f} is missing`);
  return { dir: pkgDir, version };
}

// Download (once, into build/cache/wheels) and verify the pinned dependency wheels.
function fetchWheels(opts, lock, cacheDir) {
  fs.mkdirSync(cacheDir, { recursive: true });
  const good = (w) => {
    const p = path.join(cacheDir, w.file);
    return fs.existsSync(p) && sha256File(p) === w.sha256;
  };
  const missing = lock.wheels.filter((w) => !good(w));
  if (missing.length) {
    log(`downloading ${missing.map((w) => `${w.name}==${w.version}`).join(', ')} from PyPI`);
    const req = path.join(cacheDir, 'requirements.txt');
    fs.writeFileSync(req, missing.map((w) => `${w.name}==${w.version} --hash=sha256:${w.sha256}\n`).join(''));
    for (const w of missing) fs.rmSync(path.join(cacheDir, w.file), { force: true });
    run(opts.python, [
      '-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--no-deps', '--only-binary=:all:',
      '--require-hashes', '--python-version', lock.python, '--implementation', 'py', '--abi', 'none',
      '--platform', 'any', '--dest', cacheDir, '-r', req,
    ]);
  }
  for (const w of lock.wheels) {
    const p = path.join(cacheDir, w.file);
    if (!fs.existsSync(p)) die(`wheel ${w.file} was not downloaded (check the name/version in wheels.lock.json)`);
    const got = sha256File(p);
    if (got !== w.sha256) die(`sha256 mismatch for ${w.file}: expected ${w.sha256}, got ${got}`);
  }
}

// Build the readwell wheel from a clean copy of the source, so nothing lands in the work tree.
function buildReadwellWheel(opts, tmp) {
  const src = path.join(tmp, 'src');
  for (const rel of sourceFiles(opts.source)) {
    fs.mkdirSync(path.dirname(path.join(src, rel)), { recursive: true });
    fs.copyFileSync(path.join(opts.source, rel), path.join(src, rel));
  }
  if (!fs.existsSync(path.join(src, 'pyproject.toml'))) die(`no pyproject.toml in ${opts.source}`);
  if (!fs.existsSync(path.join(src, 'py_core', 'readwell', '__init__.py'))) die(`no py_core/readwell/__init__.py in ${opts.source}`);
  const dist = path.join(tmp, 'dist');
  const env = { ...process.env, SOURCE_DATE_EPOCH, PYTHONHASHSEED: '0', PIP_DISABLE_PIP_VERSION_CHECK: '1' };
  run(opts.python, ['-m', 'pip', 'wheel', '--quiet', '--no-deps', '--no-build-isolation', '--no-cache-dir', '-w', dist, src], {
    env,
    cwd: tmp,
  });
  const wheels = fs.readdirSync(dist).filter((f) => /^readwell-.*-py3-none-any\.whl$/.test(f));
  if (wheels.length !== 1) die(`expected one pure-Python readwell wheel, got: ${fs.readdirSync(dist).join(', ')}`);
  return path.join(dist, wheels[0]);
}

function makeLock(stockLock, entries) {
  const packages = {};
  for (const e of entries) {
    packages[e.name] = {
      name: e.name,
      version: e.version,
      file_name: `wheels/${e.file}`,
      install_dir: 'site',
      sha256: e.sha256,
      package_type: 'package',
      imports: e.imports,
      depends: e.depends,
      unvendored_tests: false,
      shared_library: false,
    };
  }
  return { info: stockLock.info, packages };
}

async function pyodideSession(indexDir, extra = {}) {
  const { loadPyodide } = await import(pathToFileURL(path.join(indexDir, 'pyodide.mjs')).href);
  const lines = [];
  const py = await loadPyodide({
    indexURL: indexDir + path.sep,
    stdout: (l) => lines.push(l),
    stderr: (l) => lines.push(l),
    ...extra,
  });
  return { py, lines };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  QUIET = opts.quiet;
  const t0 = performance.now();
  const lockPath = path.join(HERE, 'wheels.lock.json');
  const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
  const pyodidePkg = checkPyodidePackage(lock);
  const digest = inputsDigest(opts, lock);
  if (!opts.force && upToDate(opts, digest)) {
    log(`${path.relative(process.cwd(), opts.out) || opts.out} is up to date`);
    return;
  }

  const stage = `${opts.out}.partial`;
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(path.join(stage, 'pyodide'), { recursive: true });
  fs.mkdirSync(path.join(stage, 'wheels'), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'readwell-engine-'));
  // die() exits at once: leave neither a half-built bundle nor temporary files behind.
  let done = false;
  process.on('exit', () => {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!done) fs.rmSync(stage, { recursive: true, force: true });
  });

  try {
    // 1. Pyodide runtime.
    for (const f of RUNTIME_FILES) fs.copyFileSync(path.join(pyodidePkg.dir, f), path.join(stage, 'pyodide', f));
    const stockLock = JSON.parse(fs.readFileSync(path.join(pyodidePkg.dir, 'pyodide-lock.json'), 'utf8'));
    if (!stockLock.info.python.startsWith(lock.python)) die(`Pyodide's Python is ${stockLock.info.python}, wheels.lock.json says ${lock.python}`);

    // 2. Dependency wheels (PyPI, pinned, sha256-verified).
    const cacheDir = path.join(path.dirname(opts.out), 'cache', 'wheels');
    fetchWheels(opts, lock, cacheDir);
    for (const w of lock.wheels) fs.copyFileSync(path.join(cacheDir, w.file), path.join(stage, 'wheels', w.file));

    // 3. Our own wheel.
    log(`building the readwell wheel from ${opts.source}`);
    const rwWheel = buildReadwellWheel(opts, tmp);
    const rwFile = path.basename(rwWheel);
    fs.copyFileSync(rwWheel, path.join(stage, 'wheels', rwFile));

    // 4. Byte-compiled site-packages zip, made by Pyodide's own Python.
    log('byte-compiling site-packages under Pyodide');
    const allWheels = [...lock.wheels.map((w) => w.file), rwFile];
    let siteInfo;
    let lazyModules = [];
    {
      const { py } = await pyodideSession(path.join(stage, 'pyodide'), { lockFileURL: path.join(pyodidePkg.dir, 'pyodide-lock.json') });
      py.FS.mkdirTree('/build/wheels');
      py.FS.mkdirTree('/build/extra');
      for (const f of allWheels) py.FS.writeFile(`/build/wheels/${f}`, fs.readFileSync(path.join(stage, 'wheels', f)));
      py.FS.writeFile('/build/extra/readwell_bridge.py', fs.readFileSync(path.join(HERE, 'engine_src', 'readwell_bridge.py')));
      siteInfo = JSON.parse(py.runPython(fs.readFileSync(path.join(HERE, 'make_site_packages.py'), 'utf8')));
      fs.writeFileSync(path.join(stage, 'site-packages.zip'), py.FS.readFile('/build/site-packages.zip'));
      // Which modules does a first extraction import? Those go into the snapshot too, so the first call
      // after a cold start does not pay for imports. (Only imports: no extraction runs before the snapshot.)
      py.unpackArchive(py.FS.readFile('/build/site-packages.zip'), 'zip', { extractDir: `/lib/python${siteInfo.python.split('.').slice(0, 2).join('.')}/site-packages` });
      py.FS.writeFile('/build/sample.html', fs.readFileSync(path.join(HERE, 'engine_src', 'warmup.html')));
      lazyModules = JSON.parse(
        py.runPython(`
import json, sys
import readwell_bridge
before = set(sys.modules)
readwell_bridge.preload()
html = open("/build/sample.html", encoding="utf-8").read()
for call, args in (
    (readwell_bridge.stages_json, ()),
    (readwell_bridge.extract_json, (html, json.dumps({"url": "https://example.com/a/b"}))),
    (readwell_bridge.extract_json, (html, json.dumps({"url": "https://example.com/a/b", "debug": True}))),
    (readwell_bridge.readerable_json, (html,)),
):
    try:
        call(*args)
    except Exception as exc:  # the verification step reports real failures
        print("warm-up:", type(exc).__name__, exc, file=sys.stderr)
json.dumps(sorted(m for m in set(sys.modules) - before if not m.startswith(("js", "pyodide", "_pyodide"))))
`),
      );
    }
    const pyVersion = siteInfo.python;
    const pyMinor = pyVersion.split('.').slice(0, 2).join('.');
    const rwInfo = siteInfo.dists.readwell;
    if (!rwInfo) die('the readwell wheel has no readwell distribution metadata');
    for (const w of lock.wheels) {
      const d = siteInfo.dists[w.name];
      if (!d || d.version !== w.version) die(`wheel ${w.file} carries version ${d && d.version}, expected ${w.version}`);
    }
    const shipped = new Set(lock.wheels.map((w) => w.name));
    const missingDeps = rwInfo.requires.filter((r) => !shipped.has(r));
    if (missingDeps.length) die(`readwell requires ${missingDeps.join(', ')}, which wheels.lock.json does not ship`);
    for (const w of lock.wheels) {
      const missing = siteInfo.dists[w.name].requires.filter((r) => !shipped.has(r));
      if (missing.length) die(`${w.name} requires ${missing.join(', ')}, which wheels.lock.json does not ship`);
    }

    // 5. Our lock file (PyPI hashes), for loadPyodide({lockFileURL}) + loadPackage users (e.g. the extension).
    const rwSha = sha256File(path.join(stage, 'wheels', rwFile));
    const ourLock = makeLock(stockLock, [
      ...lock.wheels.map((w) => ({ name: w.name, version: w.version, file: w.file, sha256: w.sha256, imports: w.imports, depends: w.depends })),
      { name: 'readwell', version: rwInfo.version, file: rwFile, sha256: rwSha, imports: rwInfo.imports, depends: rwInfo.requires },
    ]);
    fs.writeFileSync(path.join(stage, 'pyodide-lock.json'), JSON.stringify(ourLock, null, 2) + '\n');

    // 6. JS bridge.
    for (const f of BRIDGE_FILES) fs.copyFileSync(path.join(HERE, 'engine_src', f), path.join(stage, f));
    fs.chmodSync(path.join(stage, 'cli.mjs'), 0o755);
    fs.writeFileSync(
      path.join(stage, 'package.json'),
      JSON.stringify(
        {
          name: 'readwell-engine',
          version: rwInfo.version,
          private: true,
          description: 'Readwell (main-content extraction) on Pyodide, for Node.',
          type: 'module',
          main: './index.cjs',
          exports: { '.': { import: './index.mjs', require: './index.cjs' }, './cli': './cli.mjs', './manifest.json': './manifest.json' },
          bin: { 'readwell-node': './cli.mjs' },
          engines: { node: '>=18' },
        },
        null,
        2,
      ) + '\n',
    );

    const manifest = {
      name: 'readwell-engine',
      inputs_digest: digest,
      pyodide: { version: pyodidePkg.version, python: pyVersion, abi_version: stockLock.info.abi_version, platform: stockLock.info.platform },
      packages: [
        ...lock.wheels.map((w) => ({ name: w.name, version: w.version, file: `wheels/${w.file}`, sha256: w.sha256, source: 'pypi' })),
        { name: 'readwell', version: rwInfo.version, file: `wheels/${rwFile}`, sha256: rwSha, source: 'local' },
      ],
      site_packages: { file: 'site-packages.zip', extract_dir: `/lib/python${pyMinor}/site-packages`, files: siteInfo.files },
      snapshot: null,
      files: {},
    };
    const writeManifest = () => {
      manifest.files = {};
      for (const rel of walk(stage)) {
        if (rel === 'manifest.json') continue;
        const p = path.join(stage, rel);
        manifest.files[rel] = { size: fs.statSync(p).size, sha256: sha256File(p) };
      }
      fs.writeFileSync(path.join(stage, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    };
    writeManifest();

    // 7. Memory snapshot: Python heap with readwell and its dependencies imported.
    if (opts.snapshot) {
      try {
        log('making the memory snapshot');
        const { py } = await pyodideSession(path.join(stage, 'pyodide'), {
          lockFileURL: path.join(stage, 'pyodide-lock.json'),
          _makeSnapshot: true,
        });
        py.unpackArchive(new Uint8Array(fs.readFileSync(path.join(stage, 'site-packages.zip'))), 'zip', { extractDir: manifest.site_packages.extract_dir });
        const bridge = py.pyimport('readwell_bridge');
        const preloaded = JSON.parse(bridge.preload(JSON.stringify(lazyModules)));
        bridge.destroy();
        py.runPython('import gc; gc.collect()');
        const snap = py.makeMemorySnapshot();
        fs.writeFileSync(path.join(stage, 'snapshot.bin'), snap);
        manifest.snapshot = {
          file: 'snapshot.bin',
          pyodide_version: pyodidePkg.version,
          preloaded,
          sha256: sha256(snap),
          size: snap.length,
          verified: false,
          reproducible: false,
        };
      } catch (err) {
        if (opts.requireSnapshot) die(`memory snapshot failed: ${err.message}`);
        console.warn(`build_engine: WARNING: no memory snapshot (normal loads only): ${err.message.split('\n')[0]}`);
        fs.rmSync(path.join(stage, 'snapshot.bin'), { force: true });
        manifest.snapshot = null;
      }
      writeManifest();
    }

    // 8. Verify the bundle in a fresh Node process: normal load, lock file + loadPackage with integrity
    //    checks, snapshot load; all must agree. A snapshot that fails verification is dropped.
    log('verifying the bundle');
    const verify = spawnSync(process.execPath, [path.join(HERE, 'verify_engine.mjs'), stage, '--json'], { encoding: 'utf8' });
    let report = null;
    try {
      report = JSON.parse(verify.stdout.trim().split('\n').pop());
    } catch {
      /* handled below */
    }
    if (!report || !report.normal_ok) {
      die(`engine verification failed (exit ${verify.status}):\n${verify.stdout.slice(-3000)}${verify.stderr.slice(-3000)}`);
    }
    if (manifest.snapshot) {
      if (report.snapshot_ok) {
        manifest.snapshot.verified = true;
      } else {
        const why = report.snapshot_error || 'results differ from a normal load';
        if (opts.requireSnapshot) die(`memory snapshot failed verification: ${why}`);
        console.warn(`build_engine: WARNING: memory snapshot dropped, it failed verification: ${why}`);
        fs.rmSync(path.join(stage, 'snapshot.bin'), { force: true });
        manifest.snapshot = null;
      }
      writeManifest();
    }

    // 9. Swap the new bundle in.
    fs.rmSync(opts.out, { recursive: true, force: true });
    fs.renameSync(stage, opts.out);
    done = true;
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    log(
      `built ${path.relative(process.cwd(), opts.out) || opts.out} in ${secs}s: readwell ${rwInfo.version}, Pyodide ${pyodidePkg.version} (Python ${pyVersion}), ` +
        `snapshot ${manifest.snapshot ? 'verified' : 'none'}; verify: normal ${Math.round(report.normal_ms)} ms, ` +
        `snapshot ${report.snapshot_ms != null ? Math.round(report.snapshot_ms) + ' ms' : '-'}`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => die(err && err.stack ? err.stack : String(err)),
);
