// Content-script entry: message router between the service worker and the page-side modules (snapshot,
// reader, overlay). Extraction = one snapshot of the live DOM here, Python on the extension origin (offscreen
// document, see extension/README.md for why), result back here. Injected on demand by the service worker.
(() => {
  const RW = (globalThis.__readwell = globalThis.__readwell || {});
  if (RW.content) return;

  const TIMEOUT_MS = 90000;

  const { ADDRESSES, listen, send, withTimeout } = RW.messages;

  /** Does `selector` find an element on this page? (A remembered root that matches nothing falls back.) */
  function matchesHere(selector) {
    try { return document.querySelector(selector) !== null; } catch { return false; }
  }
  const staleNotice = (entry) => `The content root remembered for ${location.host}${entry.prefix}* `
    + `(${entry.label || entry.selector}) is not on this page: automatic detection was used. `
    + 'Change or delete it in the debug overlay or on the options page.';

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
   * stages (readwell's stage names, in order), snapshotMs, nodeCount, engine, siteRoot (the remembered root
   * used, or null), notice (why a remembered root was not used, or null) }. afterSnapshot: called once the
   * snapshot has been sent, while the engine works (the reader puts up its surface then). */
  async function extractHere(options = {}, afterSnapshot = null) {
    const t0 = performance.now();
    const pyOpts = { ...options, url: location.href };
    let siteRoot = null;
    let notice = null;
    // The remembered root is read from chrome.storage (a round trip to the browser process) while the page is
    // serialized: the snapshot does not depend on it. site_roots.js may be absent when a caller injects the
    // content files itself (benchmark): no remembered root.
    const lookup = !pyOpts.selector && options.useSiteRoot !== false && RW.siteRoots
      ? RW.siteRoots.forUrl(location.href).catch(() => null) : null;
    // the port to the engine document is opened now: the browser connects it while the page is serialized
    // (its hello, see askEngine, is read only after the snapshot: this thread is busy until then)
    if (options.engine !== 'page') engineRequest.connect();
    const t1 = performance.now();
    const snap = RW.reader.uncovered(() => RW.snapshot());
    const t2 = performance.now();
    const entry = lookup ? await lookup : null;
    if (entry && matchesHere(entry.selector)) {
      pyOpts.selector = entry.selector;
      siteRoot = entry;
    } else if (entry) {
      notice = staleNotice(entry);
    }
    const t2b = performance.now();
    let got;
    try {
      const asked = runEngine(snap, pyOpts, options.engine); // the snapshot is on its way when this returns
      if (afterSnapshot) afterSnapshot();
      got = await asked;
    } catch (err) {
      if (!siteRoot) throw err;
      // the remembered root is on the page for the browser but not for readwell (or failed): never lock out
      notice = staleNotice(siteRoot);
      siteRoot = null;
      delete pyOpts.selector;
      got = await runEngine(snap, pyOpts, options.engine);
    }
    const t3 = performance.now();
    const result = JSON.parse(got.json);
    // where the time went (benchmark): remembered root lookup, snapshot, engine (Python in the engine
    // document), the rest of the round trip to it (messages), parsing the reply
    const phases = { siteRoot: t1 - t0 + t2b - t2, snapshot: t2 - t1, engine: got.ms,
      transfer: t3 - t2b - (got.ms || 0),
      parse: performance.now() - t3 };
    if (got.receivedAt) {
      const origin = performance.timeOrigin;
      phases.toEngine = got.receivedAt - (origin + t2b);
      phases.fromEngine = origin + t3 - got.repliedAt;
    }
    // the same snapshot and options again with other formats (the reader asks for the HTML only, and for the
    // Markdown when the user copies it): the result of the article that is shown, whatever the page did since
    const again = async (formats) => JSON.parse((await runEngine(snap, { ...pyOpts, formats },
      options.engine)).json);
    return { result, nodes: snap.nodes, stages: got.stages, snapshotMs: snap.ms, nodeCount: snap.count,
      engine: got.engine, siteRoot, notice, phases, again };
  }

  async function runEngine(snap, pyOpts, which) {
    let engine = 'offscreen';
    if (which === 'page') {
      try {
        const eng = await loadPageEngine();
        const t0 = performance.now();
        const json = eng.extractSnapshot(snap.json, pyOpts);
        return { json, stages: eng.stages, engine: 'page', ms: performance.now() - t0 };
      } catch (err) {
        engine = `offscreen (page engine: ${err.message})`;
      }
    }
    const reply = await askEngine(snap.json, pyOpts);
    return { json: reply.json, stages: reply.stages, engine, ms: reply.ms, receivedAt: reply.receivedAt,
      repliedAt: reply.repliedAt };
  }

  // The engine document answers this script directly: one message hop each way instead of two through the
  // service worker (each hop copies the snapshot, 100-200 KB on real pages, ~4 ms). When the document is not
  // there (not created yet, closed, crashed), the service worker creates it and passes the request on.
  // It listens on a long-lived port (messages.js portClient: no new channel per request, and the snapshot
  // goes to that document only, not to the service worker as well).
  // Where messages travel by structured clone (the manifest's "message_serialization", honoured from Chrome
  // 148), the snapshot goes as its UTF-8 bytes: a Uint8Array is copied as is, while a 110-200 KB JSON string
  // inside a message is escaped, converted and parsed again on the way (~1.5 ms more to the engine on the real
  // pages), and the engine wants UTF-8 bytes anyway (engine.mjs extractSnapshot). Which way messages travel:
  // the engine port's hello once it has been read (messages.js portClient), else the browser's version. Should
  // the bytes still arrive as something else, the engine says so (offscreen.js extract) and the JSON text
  // is sent instead; elsewhere the text goes, as before. The engine takes both.
  const NOT_REACHED = /receiving end does not exist|could not establish connection|message port closed/i;
  const NOT_BYTES = /neither JSON text nor its UTF-8 bytes/;
  const engineRequest = RW.messages.portClient(ADDRESSES.offscreen);
  const ENCODER = new TextEncoder();
  const STRUCTURED_CLONE_FROM = 148;
  function clonesBytes() {
    try {
      if (chrome.runtime.getManifest().message_serialization !== 'structured_clone') return false;
      const brand = ((navigator.userAgentData && navigator.userAgentData.brands) || [])
        .find((b) => b.brand === 'Chromium');
      const major = brand ? brand.version : (/\bChrom(?:e|ium)\/(\d+)/.exec(navigator.userAgent) || [])[1];
      return Number.parseInt(major, 10) >= STRUCTURED_CLONE_FROM;
    } catch { return false; }
  }
  const BYTES_BY_VERSION = clonesBytes();
  async function askEngine(json, options) {
    const bytes = engineRequest.binary() ?? BYTES_BY_VERSION;
    try {
      return await askEngineWith(bytes ? ENCODER.encode(json) : json, options);
    } catch (err) {
      if (!bytes || !NOT_BYTES.test(err.message)) throw err;
    }
    return askEngineWith(json, options);
  }
  async function askEngineWith(snapshot, options) {
    const fields = { snapshot, options };
    try {
      return await engineRequest('extract', fields, { timeoutMs: TIMEOUT_MS });
    } catch (err) {
      if (!err.noReply && !NOT_REACHED.test(err.message)) throw err; // the engine's own error
    }
    return send(ADDRESSES.sw, 'engine-extract', fields, { timeoutMs: TIMEOUT_MS });
  }

  // overlay.js (the debug overlay) and clip.js (the front matter of "Copy Markdown") are not in the files the
  // service worker injects for a command (sw.js CONTENT_FILES): only those two features use them, and compiling
  // and running them was ~1-1.8 ms of every first command on a page (the service worker's injection, measured
  // interleaved on the benchmark's pages). They are asked for when used: the service worker injects the one
  // named file into this frame (sw.js 'inject'); until then RW.overlay / RW.clip are absent.
  const LAZY = { overlay: 'overlay.js', clip: 'clip.js' };
  async function need(name) {
    if (!RW[name]) await send(ADDRESSES.sw, 'inject', { file: LAZY[name] }, { timeoutMs: 30000 });
    if (!RW[name]) throw new Error(`readwell: ${LAZY[name]} could not be loaded`);
    return RW[name];
  }
  const overlayOpen = () => !!(RW.overlay && RW.overlay.isOpen());
  const hideOverlay = () => (RW.overlay ? RW.overlay.hide() : false);

  /** The page's own tags, for the clip's front matter (readwell's result has no keywords). */
  function pageMeta() {
    const contents = (sel) => Array.from(document.querySelectorAll(sel),
      (m) => m.getAttribute('content') || '').filter(Boolean).slice(0, 50);
    return { keywords: contents('meta[name="keywords" i]'),
      articleTags: contents('meta[property="article:tag"]') };
  }

  // Clip selection: readwell converts only what is selected. A copy of the selection (the page is not
  // touched) goes into a small inert document with the page's metadata (<title>, <meta>, canonical link,
  // JSON-LD, <base>), inside one root that readwell is told to use; the stages that drop boilerplate by score
  // or by pattern are off (the user chose every part of it), and a short selection is still an article.
  const SELECTION_ID = 'readwell-clip-selection';
  const SELECTION_OPTIONS = { selector: `#${SELECTION_ID}`, min_article_chars: 0,
    disable: ['remove_low_score', 'remove_by_selector', 'remove_by_pattern'] };
  const HEAD_KEEP = 'title, meta, link[rel~="canonical" i], script[type="application/ld+json" i], base';

  /** The selection (in the reader when it is open, else on the page) as an HTML document, or null. */
  function selectionHtml() {
    const sel = RW.reader.selection() || document.getSelection();
    if (!sel || sel.isCollapsed || !sel.rangeCount || !sel.toString().trim()) return null;
    const doc = document.implementation.createHTMLDocument('');
    doc.head.replaceChildren(); // its empty <title> would hide the page's
    for (const a of ['lang', 'dir']) {
      const v = document.documentElement.getAttribute(a);
      if (v) doc.documentElement.setAttribute(a, v);
    }
    for (const n of document.head ? document.head.querySelectorAll(HEAD_KEEP) : []) {
      doc.head.appendChild(doc.importNode(n, true));
    }
    const root = doc.createElement('div');
    root.id = SELECTION_ID;
    for (let i = 0; i < sel.rangeCount; i++) {
      root.appendChild(doc.importNode(sel.getRangeAt(i).cloneContents(), true));
    }
    doc.body.appendChild(root);
    return `<!DOCTYPE html>\n${doc.documentElement.outerHTML}`;
  }

  async function extractSelection() {
    const html = selectionHtml();
    if (!html) throw new Error('readwell: nothing is selected on this page');
    const reply = await send(ADDRESSES.sw, 'engine-extract-html',
      { html, options: { ...SELECTION_OPTIONS, url: location.href } }, { timeoutMs: TIMEOUT_MS });
    return { result: JSON.parse(reply.json), pageMeta: pageMeta(), selection: true };
  }

  /** The reader's "Copy Markdown": the clip (front matter from the options page's template, then the article)
   * to the clipboard, announced in the reader's live region. */
  async function copyMarkdown(result, again) {
    try {
      // the reader renders no Markdown up front (READER_FORMATS): the engine makes it from the same snapshot now
      if (result.markdown == null && again) result = { ...result, markdown: (await again(['markdown'])).markdown };
      const { clipTemplate } = await chrome.storage.local.get('clipTemplate').catch(() => ({}));
      const savedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const text = (await need('clip')).note(result, pageMeta(), savedAt, clipTemplate);
      await RW.reader.copyText(text);
      RW.reader.announce(`Copied the article as Markdown with front matter (${text.length} characters)`);
      return { copied: text.length };
    } catch (err) {
      RW.reader.announce(`Copying failed: ${err.message.replace(/^readwell: /, '')}`, 'error');
      return { copied: 0, error: err.message };
    }
  }

  const SAVE_LABEL = { markdown: 'Markdown', 'markdown-images': 'Markdown + images', html: 'HTML' };
  const actions = {
    // every save is announced in the reader's live region: started, saved (with failed images), failed
    save: async (format) => {
      RW.reader.announce(`Saving ${SAVE_LABEL[format]}…`);
      try {
        const info = await send(ADDRESSES.sw, 'save', { format }, { timeoutMs: TIMEOUT_MS });
        RW.reader.announce(info.summary, info.images && info.images.failed.length ? 'notice' : 'info');
      } catch (err) {
        const why = err.message.replace(/^readwell: /, '');
        RW.reader.announce(`Saving ${SAVE_LABEL[format]} failed: ${why}`, 'error');
      }
    },
    overlay: () => toggleOverlay({}),
  };

  // What the reader shows of a result: the HTML (and the metadata, always there). The Markdown and the text are
  // neither shown nor rendered up front (the Markdown's render and the larger reply were 0.1-2.3 ms and
  // 0.1-1.2 ms of the engine's warm call on the benchmark's pages under Pyodide); "Copy Markdown" asks the
  // engine for it then (copyMarkdown); the save buttons extract anew anyway (sw.js save). A caller's own
  // `formats` option wins.
  const READER_FORMATS = ['html'];

  async function toggleReader(msg) {
    if (RW.reader.isOpen() && msg.force !== true) { RW.reader.hide(); return { open: false }; }
    hideOverlay();
    const t0 = performance.now();
    RW.reader.prepare(msg.css);
    // the reader's surface goes up right after the snapshot, while the engine works (reader.js open())
    let result = null;
    let again = null;
    let shell = null;
    const acts = { ...actions, copy: () => copyMarkdown(result, again) };
    let got;
    try {
      got = await extractHere({ formats: READER_FORMATS, ...msg.options },
        () => { shell = RW.reader.open(msg.css, acts); });
    } catch (err) {
      if (shell) shell.then((sh) => RW.reader.dismiss(sh), () => {});
      throw err;
    }
    ({ result, again } = got);
    const { snapshotMs, engine, notice, phases } = got;
    const t1 = performance.now();
    const shown = RW.reader.fill(await shell, result, notice);
    phases.show = performance.now() - t1;
    // when the first frame with the reader has been painted (benchmark: build_scripts/bench_extension.py)
    RW.content.painted = new Promise((resolve) => {
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
    });
    return { open: shown.shown, found: shown.found, title: result.title, ms: performance.now() - t0,
      snapshotMs, engine, notice, phases };
  }

  async function toggleOverlay(options) {
    if (overlayOpen()) { hideOverlay(); return { open: false }; }
    const overlay = await need('overlay');
    RW.reader.hide();
    return overlay.show(extractHere, options || {});
  }

  const handlers = {
    ping: async () => ({ ok: true }),
    extract: async (msg) => {
      const { result, snapshotMs, nodeCount, engine, notice } = await extractHere(msg.options || {});
      return { result, snapshotMs, nodeCount, engine, notice, pageMeta: pageMeta() };
    },
    'extract-selection': extractSelection,
    reader: toggleReader,
    overlay: async (msg) => toggleOverlay(msg.options),
    state: async () => ({ reader: RW.reader.isOpen(), overlay: overlayOpen() }),
    // feedback from the service worker: shown when the reader is open (false: the toolbar badge shows it)
    announce: async (msg) => (RW.reader.isOpen() && msg.text
      ? RW.reader.announce(msg.text, msg.kind) : false),
    close: async () => ({ reader: RW.reader.hide(), overlay: hideOverlay() }),
  };

  listen(ADDRESSES.content, handlers);

  RW.content = { extractHere };
})();
