#!/usr/bin/env node
// `readwell` for people without Python: runs readwell.cli.main(argv) inside Pyodide, so the arguments,
// output and exit codes are those of the Python CLI (0 found, 3 not found, 2 bad usage or unreadable
// input).
//
//   node build/engine/cli.mjs extract page.html --url https://example.com/a --format json
//   node build/engine/cli.mjs stages
//
// Host files are reached through Emscripten's NODEFS: the working directory and the top-level directory
// of every absolute path on the command line are mounted at the same paths inside Pyodide.
import fs from 'node:fs';
import nodePath from 'node:path';
import { load } from './index.mjs';

// Directories that Pyodide itself uses (or that make no sense to mount).
const RESERVED = new Set(['lib', 'dev', 'proc', 'sys']);

function writeAll(fd, buf) {
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off, buf.length - off);
    } catch (err) {
      if (err.code === 'EAGAIN') continue;
      if (err.code === 'EPIPE') return buf.length;
      throw err;
    }
  }
  return buf.length;
}

function pyIsEmptyDir(FS, p) {
  try {
    const st = FS.stat(p);
    if (!FS.isDir(st.mode)) return false;
    return FS.readdir(p).filter((n) => n !== '.' && n !== '..').length === 0;
  } catch {
    return null; // does not exist
  }
}

function hostIsDir(p) {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

// Mount the host directory holding `absPath` at the same place in Pyodide's file system.
function mountFor(pyodide, absPath, mounted) {
  const FS = pyodide.FS;
  const parts = nodePath.resolve(absPath).split('/').filter(Boolean);
  if (parts.length === 0 || RESERVED.has(parts[0])) return;
  // Walk down until a directory that Pyodide does not have (or has empty) is found.
  for (let depth = 1; depth <= Math.min(parts.length, 3); depth++) {
    const dir = '/' + parts.slice(0, depth).join('/');
    if (mounted.has(dir)) return;
    if (!hostIsDir(dir)) return;
    const state = pyIsEmptyDir(FS, dir);
    if (state === null || state === true) {
      try {
        pyodide.mountNodeFS(dir, dir);
        mounted.add(dir);
      } catch {
        /* leave it: Python reports the unreadable file itself */
      }
      return;
    }
  }
}

async function main() {
  const argv = process.argv.slice(2);
  let engine;
  try {
    engine = await load({ stdout: () => {}, stderr: () => {} });
  } catch (err) {
    process.stderr.write(`readwell: cannot start the engine: ${String(err && err.message).split('\n')[0]}\n`);
    return 1;
  }
  const { pyodide } = engine;
  pyodide.setStdout({ write: (buf) => writeAll(1, buf) });
  pyodide.setStderr({ write: (buf) => writeAll(2, buf) });
  pyodide.setStdin({
    read(buf) {
      try {
        return fs.readSync(0, buf);
      } catch (err) {
        if (err.code === 'EOF') return 0;
        throw err;
      }
    },
  });

  const cwd = process.cwd();
  const mounted = new Set();
  mountFor(pyodide, cwd + '/x', mounted);
  for (const arg of argv) {
    const value = arg.startsWith('--') && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg;
    if (value.startsWith('/')) {
      mountFor(pyodide, value, mounted);
    } else if (value && !value.startsWith('-') && value.includes('/')) {
      const abs = nodePath.resolve(cwd, value); // e.g. ../other/page.html
      if (fs.existsSync(abs) || fs.existsSync(nodePath.dirname(abs))) mountFor(pyodide, abs, mounted);
    }
  }
  return engine.call('cli_main', JSON.stringify(argv), cwd);
}

main().then(
  (rc) => {
    process.exitCode = rc;
  },
  (err) => {
    process.stderr.write(`readwell: ${String(err && err.message).split('\n')[0]}\n`);
    process.exitCode = 1;
  },
);
