// ESLint for the project's JavaScript: `npm run lint` (part of `make lint`). ESLint's recommended rules, with each
// file given the globals of where it runs, so a Node-only name in the extension (or chrome.* in Node) is an error.
import js from '@eslint/js';
import globals from 'globals';

// Content scripts and pages loaded as classic scripts (each an IIFE registering on globalThis.__readwell).
const CLASSIC_SCRIPTS = ['content.js', 'snapshot.js', 'safe_dom.js', 'reader.js', 'overlay.js', 'messages.js',
  'site_roots.js', 'options.js', 'clip.js']
  .map((f) => `extension/${f}`);
// The module service worker and what only it imports.
const SERVICE_WORKER = ['sw.js', 'files.js', 'md_images.js'].map((f) => `extension/${f}`);

// The edge handler's runtime-neutral files (workerd, Deno, Node, Bun): only what all of them have; the workerd
// entry also has the worker globals (addEventListener), Deno's declares its Deno global itself.
const EDGE_NEUTRAL = ['adapters.mjs', 'engine.mjs', 'fetch_guard.mjs', 'handler.mjs'].map((f) => `build_scripts/edge/${f}`);
const EDGE_WORKER = ['worker.mjs', 'deno.mjs'].map((f) => `build_scripts/edge/${f}`);

export default [
  { ignores: ['build/**', 'out/**', 'node_modules/**', 'dist/**'] },
  js.configs.recommended,
  {
    files: CLASSIC_SCRIPTS,
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, ...globals.webextensions } },
  },
  {
    files: SERVICE_WORKER,
    languageOptions: { sourceType: 'module', globals: { ...globals.serviceworker, ...globals.webextensions } },
  },
  {
    files: ['extension/offscreen.js', 'extension/engine.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser, ...globals.webextensions } },
  },
  {
    files: ['build_scripts/**/*.mjs', 'eslint.config.js'],
    ignores: ['build_scripts/engine_src/loader.mjs', ...EDGE_NEUTRAL, ...EDGE_WORKER],
    languageOptions: { sourceType: 'module', globals: globals.node },
  },
  {
    files: ['build_scripts/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
  },
  {
    // the shared engine loader runs in Node, the extension and edge runtimes: only what all of them have
    files: ['build_scripts/engine_src/loader.mjs'],
    languageOptions: { sourceType: 'module', globals: globals['shared-node-browser'] },
  },
  {
    files: EDGE_NEUTRAL,
    languageOptions: { sourceType: 'module', globals: globals['shared-node-browser'] },
  },
  {
    files: EDGE_WORKER,
    languageOptions: { sourceType: 'module', globals: { ...globals['shared-node-browser'], ...globals.serviceworker } },
  },
];
