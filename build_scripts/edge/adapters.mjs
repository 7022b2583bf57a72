// The small wasm modules Emscripten compiles at run time to put a JS function into the wasm function table
// (convertJsFunctionToWasm in pyodide.asm.mjs): one per signature, and the bytes depend on the signature only.
// build_edge.mjs writes them as files; workerd precompiles them as wasm modules; engine.mjs hands them out
// where compiling from bytes is refused. No imports: used at build time (Node) and at run time (any runtime).

// Wasm value type codes, as Emscripten's generateTypePack writes them ('p' is a 32-bit pointer).
const TYPE_CODES = { i: 127, p: 127, j: 126, f: 125, d: 124, e: 111 };

function typePack(types) {
  const codes = Array.from(types, (t) => TYPE_CODES[t]);
  return [(codes.length % 128) | 128, codes.length >> 7, ...codes];
}

/** The bytes Emscripten's convertJsFunctionToWasm(func, sig) compiles: a module importing e.f with the
 * signature and exporting it as f. Same formula as pyodide.asm.mjs, so build time and run time agree. */
export function adapterBytes(sig) {
  const type = [1, 96, ...typePack(sig.slice(1)), ...typePack(sig[0] === 'v' ? '' : sig[0])];
  return Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0, 1, type.length % 128 | 128, type.length >> 7, ...type,
    2, 7, 1, 1, 101, 1, 102, 0, 0, 7, 5, 1, 1, 102, 0, 0);
}

export const keyOf = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** Signatures Emscripten may wrap, read from pyodide.asm.mjs (`name.sig="..."`): the adapters to precompile. */
export function signaturesIn(asmSource) {
  const sigs = new Set();
  for (const m of asmSource.matchAll(/\.sig="([vijfdpe]+)"/g)) sigs.add(m[1]);
  return [...sigs].sort();
}

