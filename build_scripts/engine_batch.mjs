#!/usr/bin/env node
// Run many extractions through the built Node engine in one process (used by tests/test_engine_node.py).
//
//   node build_scripts/engine_batch.mjs build/engine [results.json] < jobs.json
//
// jobs.json: {"jobs": [{"id": "...", "path": "fixtures/x.html", "options": {"url": "...", ...}}, ...]}
// Each file is read as bytes and handed to extract() as a Uint8Array (readwell sniffs the encoding, as for
// bytes in CPython). Output: {"stages", "versions", "from_snapshot", "exports", "results": {id: {"result"} |
// {"error"}}, "readerable": {id: ...}}.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = path.resolve(process.argv[2] ?? 'build/engine');
const input = JSON.parse(fs.readFileSync(0, 'utf8') || '{"jobs": []}');

const mod = await import(pathToFileURL(path.join(dir, 'index.mjs')).href);
const engine = await mod.load();
const out = {
  from_snapshot: engine.fromSnapshot,
  exports: {
    named: ['extract', 'isProbablyReaderable', 'stages'].filter((n) => typeof mod[n] === 'function'),
    default: ['extract', 'isProbablyReaderable', 'stages'].filter((n) => mod.default && typeof mod.default[n] === 'function'),
  },
  stages: await mod.default.stages(),
  versions: await mod.versions(),
  results: {},
  readerable: {},
};
for (const job of input.jobs) {
  const bytes = fs.readFileSync(job.path);
  try {
    out.results[job.id] = { result: await mod.extract(bytes, job.options || {}) };
  } catch (err) {
    out.results[job.id] = { error: String(err && err.message) };
  }
  try {
    out.readerable[job.id] = { result: await mod.isProbablyReaderable(bytes) };
  } catch (err) {
    out.readerable[job.id] = { error: String(err && err.message) };
  }
}
if (process.argv[3]) {
  fs.writeFileSync(process.argv[3], JSON.stringify(out));
  process.exit(0);
} else {
  process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
}
