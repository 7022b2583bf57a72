// Content-script entry: message router between the service worker and the page-side modules (snapshot,
// reader, overlay). Extraction = one snapshot of the live DOM here, Python on the extension origin (offscreen
// document, see extension/README.md for why), result back here. Injected on demand by the service worker.
(() => {
  const RW = (globalThis.__readwell = globalThis.__readwell || {});
  if (RW.content) return;

  const TIMEOUT_MS = 90000;

  const { ADDRESSES, listen, send, withTimeout } = RW.messages;

  async function siteRoot() {
    try {
      const got = await chrome.storage.local.get('siteRoots');
      return (got.siteRoots || {})[location.host] || null;
    } catch { return null; }
  }

  // Optional: Pyodide in this content script (options.engine === 'page'), used by the benchmark to measure
  // what the page pays for it. Probes WebAssembly first (a strict page CSP blocks it and loadPyodide would hang).
  let pageEngine = null;
  function wasmAllowed() {
    try { new WebAssembly.Module(Uint8Array.of(0, 97, 115, 109, 1, 0, 0, 0)); return true; } catch { return false; }
  }
  function loadPageEngine() {
    if (!pageEngine) {
      pageEngine = wasmAllowed()
        ? withTimeout(import(chrome.runtime.getURL('engine/engine.mjs')).then((m) => m.load()), 30000, 'page engine load')
        : Promise.reject(new Error('WebAssembly blocked by the page CSP'));
      pageEngine.catch(() => {});
    }
    return pageEngine;
  }

  /** Snapshot the page and run readwell on it. options: readwell's keyword options (the engine keeps the names
   * readwell defines and drops the rest) plus engine ('page') and useSiteRoot (false). Returns { result, nodes,
   * stages (readwell's stage names, in order), snapshotMs, nodeCount, engine }. */
  async function extractHere(options = {}) {
    const pyOpts = { ...options, url: location.href };
    if (!pyOpts.selector && options.useSiteRoot !== false) {
      const sel = await siteRoot();
      if (sel) pyOpts.selector = sel;
    }
    const snap = RW.snapshot();
    let json = null;
    let stages = null;
    let engine = 'offscreen';
    if (options.engine === 'page') {
      try {
        const eng = await loadPageEngine();
        json = eng.extractSnapshot(snap.json, pyOpts);
        stages = eng.stages;
        engine = 'page';
      } catch (err) {
        engine = `offscreen (page engine: ${err.message})`;
      }
    }
    if (json === null) {
      const reply = await send(ADDRESSES.sw, 'engine-extract', { snapshot: snap.json, options: pyOpts },
        { timeoutMs: TIMEOUT_MS });
      json = reply.json;
      stages = reply.stages;
    }
    return { result: JSON.parse(json), nodes: snap.nodes, stages, snapshotMs: snap.ms, nodeCount: snap.count,
      engine };
  }

  const actions = {
    save: (format) => send(ADDRESSES.sw, 'save', { format }, { timeoutMs: TIMEOUT_MS })
      .catch((err) => console.warn('readwell:', err.message)),
    overlay: () => toggleOverlay({}),
  };

  async function toggleReader(msg) {
    if (RW.reader.isOpen() && msg.force !== true) { RW.reader.hide(); return { open: false }; }
    RW.overlay.hide();
    const t0 = performance.now();
    const { result, snapshotMs, engine } = await extractHere(msg.options || {});
    const shown = await RW.reader.show(result, msg.css, actions);
    return { open: true, found: shown.found, title: result.title, ms: performance.now() - t0, snapshotMs, engine };
  }

  async function toggleOverlay(options) {
    if (RW.overlay.isOpen()) { RW.overlay.hide(); return { open: false }; }
    RW.reader.hide();
    return RW.overlay.show(extractHere, options || {});
  }

  const handlers = {
    ping: async () => ({ ok: true }),
    extract: async (msg) => {
      const { result, snapshotMs, nodeCount, engine } = await extractHere(msg.options || {});
      return { result, snapshotMs, nodeCount, engine };
    },
    reader: toggleReader,
    overlay: async (msg) => toggleOverlay(msg.options),
    state: async () => ({ reader: RW.reader.isOpen(), overlay: RW.overlay.isOpen() }),
    close: async () => ({ reader: RW.reader.hide(), overlay: RW.overlay.hide() }),
  };

  listen(ADDRESSES.content, handlers);

  RW.content = { extractHere };
})();
