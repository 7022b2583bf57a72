// Offscreen document (extension origin, CSP script-src 'self' 'wasm-unsafe-eval'): hosts the one Pyodide
// engine for every tab, and builds the self-contained HTML file (it has a DOM; the service worker has not).
import { load, status } from './engine/engine.mjs';
import { warmSnapshot } from './warm_page.js';

const RW = globalThis.__readwell; // safe_dom.js, reader.js and messages.js (offscreen.html loads them first)
const IMAGE_TIMEOUT_MS = 15000;
const MAX_EMBED_BYTES = 40 * 1024 * 1024;

// Pre-warm: the service worker creates this document when the browser starts (or the extension is installed),
// and on first use; the engine starts loading right away, so a first reader command only waits for the rest.
const createdAt = Date.now();
let firstExtractAt = null;
load().then(() => keepWarm(),
  (err) => console.warn('readwell: engine pre-load failed (retried on first use):', err && err.message));

// Keep the engine warm: the first extractions after a load take 2-4x the CPU of later ones (warm_page.js says
// why). In idle time after the load and after each request, the engine extracts the synthetic page, until
// WARM_RUNS extractions (requests or warm-ups) have run in this document; never while a request waits or runs.
const WARM_RUNS = 4;
const WARM_DELAY_MS = 100;
const WARM_URL = 'https://example.org/news/river-winter';
let runs = 0;
let warmUps = 0;
let pending = 0;
let warmTimer = null;
function keepWarm() {
  if (runs >= WARM_RUNS || warmTimer !== null) return;
  warmTimer = setTimeout(async () => {
    warmTimer = null;
    if (pending) return; // the request warms the engine itself, and calls keepWarm when done
    const engine = await load().catch(() => null);
    if (!engine || pending || runs >= WARM_RUNS) return;
    try {
      engine.extractSnapshot(JSON.stringify(warmSnapshot()), { url: WARM_URL });
    } catch (err) {
      console.warn('readwell: engine warm-up failed:', err && err.message);
      runs = WARM_RUNS; // not again: requests still work, or fail with their own message
      return;
    }
    runs++;
    warmUps++;
    keepWarm();
  }, WARM_DELAY_MS);
}

/** snapshot: the content script's snapshot as JSON text or as that text's UTF-8 bytes (a Uint8Array, where
 * messages travel by structured clone: content.js askEngine). options: an object; the engine passes on the keys
 * readwell knows. The stage names come along for the overlay. */
async function extract(snapshot, options) {
  const receivedAt = performance.timeOrigin + performance.now();
  if (typeof snapshot !== 'string' && !(snapshot instanceof Uint8Array)) {
    // e.g. bytes sent where messages travel as JSON (an object of numbered keys): content.js sends the text then
    throw new Error('readwell: the snapshot is neither JSON text nor its UTF-8 bytes');
  }
  firstExtractAt ??= Date.now();
  pending++;
  try {
    const engine = await load();
    const t0 = performance.now();
    let json;
    try {
      json = engine.extractSnapshot(snapshot, options);
    } catch (err) {
      console.warn('readwell: extraction failed:', err); // the full Python traceback stays here, for developers
      throw new Error(shortError(err));
    }
    runs++;
    return { json, ms: performance.now() - t0, receivedAt, repliedAt: performance.timeOrigin + performance.now(), loadMs: engine.loadMs, fromSnapshot: engine.fromSnapshot,
      stages: engine.stages };
  } finally {
    pending--;
    keepWarm();
  }
}

/** readwell on an HTML text (a clipped selection, see content.js): options url, selector, disable and
 * min_article_chars only. */
async function extractHtml(html, options) {
  const engine = await load();
  const known = {};
  for (const k of ['url', 'selector', 'disable', 'min_article_chars']) {
    if (options[k] != null) known[k] = options[k];
  }
  try {
    return { json: engine.call('extract_json', html, JSON.stringify(known)) };
  } catch (err) {
    console.warn('readwell: extraction failed:', err);
    throw new Error(shortError(err));
  }
}

/** What a user may read of an engine error: a Python traceback's last line without the module path
 * ("InputError: selector 'x' matched no element"), never the traceback. */
function shortError(err) {
  const text = String((err && err.message) || err);
  if (!/Traceback \(most recent call last\)/.test(text)) return text;
  const last = text.trim().split('\n').map((l) => l.trim()).filter(Boolean).pop() || 'extraction failed';
  return `readwell: ${last.replace(/^[\w.]+\.(\w+(Error|Exception):)/, '$1')}`;
}

function blobToDataUrl(blob) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(r.result);
    r.onerror = () => reject(r.error);
    r.readAsDataURL(blob);
  });
}

async function embed(url, budget) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), IMAGE_TIMEOUT_MS);
  try {
    const res = await fetch(url, { signal: ctl.signal, credentials: 'omit', referrerPolicy: 'no-referrer' });
    if (!res.ok) return null;
    const blob = await res.blob();
    const type = (blob.type || res.headers.get('content-type') || '').split(';')[0].trim().toLowerCase();
    if (!/^image\/(png|gif|jpe?g|webp|avif|bmp)$/.test(type) || blob.size > budget.left) return null;
    budget.left -= blob.size;
    const data = await blobToDataUrl(new Blob([blob], { type }));
    return data.startsWith(`data:${type};`) ? data : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** The reader layout as one HTML file: sanitized article, our CSS, images as data: URLs, a CSP that forbids
 * scripts and remote loads. */
async function buildHtml(result, css, savedAt) {
  const doc = document.implementation.createHTMLDocument('');
  const add = (parent, tag, attrs = {}, text = null) => {
    const n = doc.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== null) n.textContent = text;
    parent.appendChild(n);
    return n;
  };
  doc.head.replaceChildren();
  add(doc.head, 'meta', { charset: 'utf-8' });
  add(doc.head, 'meta', { 'http-equiv': 'Content-Security-Policy',
    content: "default-src 'none'; img-src data:; style-src 'unsafe-inline'" });
  add(doc.head, 'meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' });
  add(doc.head, 'title', {}, result.title || 'Article');
  add(doc.head, 'style', {}, css);
  const root = add(doc.body, 'div', { class: 'rw-root rw-file', 'data-theme': 'auto', 'data-font': 'serif',
    'data-width': 'medium' });
  const page = RW.reader.buildPage(result, doc);
  root.appendChild(page);
  const source = result.canonical_url || result.url;
  if (source && RW.safeDom.safeUrl(source, false) && /^https?:/i.test(source)) {
    const foot = add(page, 'footer', { class: 'rw-meta' });
    foot.appendChild(doc.createTextNode('Saved from '));
    add(foot, 'a', { href: source, rel: 'noopener noreferrer' }, source);
    foot.appendChild(doc.createTextNode(` on ${savedAt}`));
  }
  for (const s of Array.from(doc.querySelectorAll('picture source, source'))) s.remove();
  const budget = { left: MAX_EMBED_BYTES };
  const imgs = Array.from(doc.querySelectorAll('img'));
  let embedded = 0;
  const failed = [];
  await Promise.all(imgs.map(async (img) => {
    img.removeAttribute('srcset');
    const src = img.getAttribute('src') || '';
    if (/^data:/i.test(src)) { embedded++; return; }
    const data = /^https?:/i.test(src) ? await embed(src, budget) : null;
    if (data) { img.setAttribute('src', data); embedded++; } else {
      const error = /^https?:/i.test(src) ? 'could not be fetched as an image' : 'not http(s)';
      failed.push({ url: src.slice(0, 300), error });
      img.removeAttribute('src'); // nothing remote in a self-contained file; alt text stays
    }
  }));
  const lang = page.getAttribute('lang');
  if (lang) doc.documentElement.setAttribute('lang', lang);
  const dir = page.getAttribute('dir');
  if (dir) doc.documentElement.setAttribute('dir', dir);
  return { html: `<!DOCTYPE html>\n${doc.documentElement.outerHTML}\n`, images: imgs.length, embedded,
    failed };
}

const handlers = {
  warm: async () => { const e = await load(); return { loadMs: e.loadMs, fromSnapshot: e.fromSnapshot }; },
  status: async () => ({ ...status(), createdAt, firstExtractAt, runs, warmUps }),
  extract: (msg) => extract(msg.snapshot, msg.options),
  'extract-html': (msg) => extractHtml(String(msg.html || ''), msg.options || {}),
  stages: async () => (await load()).stages,
  'build-html': (msg) => buildHtml(msg.result, msg.css, msg.savedAt),
};

RW.messages.listen(RW.messages.ADDRESSES.offscreen, handlers);
// content scripts send their snapshots over a long-lived port (messages.js portClient)
RW.messages.servePorts(RW.messages.ADDRESSES.offscreen, { extract: handlers.extract });
