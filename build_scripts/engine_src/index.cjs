// Readwell engine for Node (CommonJS entry). Same API as index.mjs, which it loads on first use, so ESM
// and CommonJS callers in one process share one Pyodide interpreter.
//
//   const { extract } = require('./build/engine/index.cjs');
//   extract(html, { url }).then((result) => ...);
'use strict';

let esm = null;
function engineModule() {
  if (!esm) esm = import('./index.mjs');
  return esm;
}

async function extract(html, options) {
  return (await engineModule()).extract(html, options);
}
async function isProbablyReaderable(html, options) {
  return (await engineModule()).isProbablyReaderable(html, options);
}
async function stages() {
  return (await engineModule()).stages();
}
async function options() {
  return (await engineModule()).options();
}
async function versions() {
  return (await engineModule()).versions();
}
async function load(options) {
  return (await engineModule()).load(options);
}

const readwell = { extract, isProbablyReaderable, stages, options, versions, load };
module.exports = readwell;
module.exports.default = readwell;
