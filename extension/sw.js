// Service worker: commands (toolbar button, keyboard shortcut, context menu), the engine broker (offscreen
// document), saving files, and the automation hook `self.readwell`.
import { bytesDataUrl, dataUrl, safeFilename } from './files.js';
import { IMAGE_LIMITS, fetchImage, imageFileName, imageUrls, pool, rewriteImages } from './md_images.js';
import './messages.js';
import './clip.js';

const { ADDRESSES, listen, send, withTimeout, errorText } = globalThis.__readwell.messages;
const { fileStem, frontMatter } = globalThis.__readwell.clip;

// messages.js, site_roots.js, snapshot.js, safe_dom.js, reader.js and content.js as one file, made by
// build_scripts/build_extension.mjs (CONTENT_PARTS says why); overlay.js and clip.js are injected when a tab's
// content script first uses them (LAZY_FILES; content.js need())
const CONTENT_FILES = ['content_bundle.js'];
const LAZY_FILES = new Set(['overlay.js', 'clip.js']);
const ENGINE_TIMEOUT_MS = 90000;
const OFFSCREEN_CREATE_TIMEOUT_MS = 15000;

// ---- engine (offscreen document) ----
let offscreenPromise = null;
async function createOffscreen() {
  const have = await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] });
  if (have.length) return;
  try {
    await chrome.offscreen.createDocument({ url: 'offscreen.html', reasons: ['DOM_PARSER'],
      justification: 'Runs the Readwell Python engine (Pyodide) and builds saved HTML files.' });
  } catch (err) {
    if (!/single offscreen|already/i.test(String(err && err.message))) throw err;
  }
}
function ensureOffscreen() {
  if (!offscreenPromise) {
    offscreenPromise = createOffscreen();
    offscreenPromise.catch(() => { offscreenPromise = null; });
  }
  return offscreenPromise;
}
async function offscreen(cmd, fields = {}, ms = ENGINE_TIMEOUT_MS, retry = true) {
  await withTimeout(ensureOffscreen(), OFFSCREEN_CREATE_TIMEOUT_MS, 'engine document');
  try {
    return await send(ADDRESSES.offscreen, cmd, fields, { timeoutMs: ms });
  } catch (err) {
    // the document went away (closed, crashed) since we created it: make a new one, once
    if (retry && /receiving end does not exist|could not establish connection/i.test(errorText(err))) {
      offscreenPromise = null;
      return offscreen(cmd, fields, ms, false);
    }
    if (err.noReply) offscreenPromise = null;
    throw err;
  }
}

// Pre-warm: create the engine document (it starts loading Pyodide from the memory snapshot at once) when the
// browser starts or the extension is installed, so the first reader command only waits for what is left.
// Opt out with chrome.storage.local {prewarm: false} (the engine then loads on first use, as before).
let prewarmed = null;
let prewarming = null;
function prewarm(reason) {
  if (!prewarming) {
    prewarmed = { reason, at: Date.now(), skipped: false };
    prewarming = startPrewarm();
  }
  return prewarming;
}
async function startPrewarm() {
  try {
    const { prewarm: wanted } = await chrome.storage.local.get('prewarm');
    if (wanted === false) { prewarmed.skipped = true; return prewarmed; }
    await withTimeout(ensureOffscreen(), OFFSCREEN_CREATE_TIMEOUT_MS, 'engine document');
  } catch (err) {
    report(err);
  }
  return prewarmed;
}

let cssPromise = null;
const readerCss = () => (cssPromise ||= fetch(chrome.runtime.getURL('reader.css')).then((r) => r.text()));

// ---- content script ----
// The command goes straight to the tab's content script; only when nothing there answers ("receiving end does
// not exist": not injected yet, or the page navigated) are the files injected and the command sent again. A
// ping first cost one more round trip through the page's renderer on every command (3-4 ms of a warm reader
// command on 2 busy cores).
const NOT_INJECTED = /receiving end does not exist|could not establish connection/i;
async function content(tabId, cmd, fields = {}, ms = ENGINE_TIMEOUT_MS + 10000) {
  try {
    return await send(ADDRESSES.content, cmd, fields, { tabId, timeoutMs: ms });
  } catch (err) {
    if (!NOT_INJECTED.test(errorText(err))) throw err;
  }
  await chrome.scripting.executeScript({ target: { tabId }, files: CONTENT_FILES });
  return send(ADDRESSES.content, cmd, fields, { tabId, timeoutMs: ms });
}

// ---- the automation hook ----
/** Extract the tab's article: the CLI's JSON fields (plus removals/timings with {debug: true}). */
async function extract(tabId, options = {}) {
  ensureOffscreen().catch(() => {}); // start the engine while the page is serialized
  const { result } = await content(tabId, 'extract', { options });
  return result;
}
/** Toggle the reader view; resolves when it is shown (or closed): { open, found, title, ms }. */
async function reader(tabId, options = {}) {
  ensureOffscreen().catch(() => {});
  return content(tabId, 'reader', { css: await readerCss(), options });
}
/** Toggle the debug overlay: { open, found, removals, boxes }. */
async function overlay(tabId, options = {}) {
  ensureOffscreen().catch(() => {});
  return content(tabId, 'overlay', { options });
}
/** Save the article: {format: 'markdown'|'html'|'markdown-images'} → { id, filename, bytes } once the file
 * is on disk ('markdown-images' also: images {total, saved, failed, folder, files}). {selection: true}: only
 * what is selected on the page, converted by readwell (Obsidian Web Clipper's "clip selection"). */
async function save(tabId, { format = 'markdown', selection = false } = {}) {
  if (format === 'md') format = 'markdown';
  ensureOffscreen().catch(() => {});
  const { result, pageMeta } = await content(tabId, selection ? 'extract-selection' : 'extract',
    { options: {} });
  if (!result.found) {
    throw new Error(selection ? 'readwell: the selection has no text to save'
      : 'readwell: no article found on this page');
  }
  const savedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const { clipFilename, clipTemplate } = await chrome.storage.local.get(['clipFilename', 'clipTemplate'])
    .catch(() => ({}));
  const stem = fileStem(clipFilename, result, savedAt, pageMeta);
  let url, filename;
  let images = null;
  let conflictAction = 'uniquify';
  const head = frontMatter(result, pageMeta, savedAt, clipTemplate);
  if (format === 'markdown') {
    url = dataUrl(head + result.markdown, 'text/markdown');
    filename = safeFilename(stem, 'md');
  } else if (format === 'markdown-images') {
    // the .md's final name first ("Title (1).md" when "Title.md" exists), so that its images go to
    // "Title (1)_files/", not into the folder of an earlier save
    filename = await reserveName(safeFilename(stem, 'md'));
    conflictAction = 'overwrite';
    const saved = await saveImages(result.markdown, `${filename.slice(0, -3)}_files`);
    images = saved.images;
    url = dataUrl(head + saved.markdown, 'text/markdown');
  } else if (format === 'html') {
    const built = await offscreen('build-html', { result, css: await readerCss(), savedAt });
    images = { total: built.images, saved: built.embedded, failed: built.failed };
    url = dataUrl(built.html, 'text/html');
    filename = safeFilename(stem, 'html');
  } else {
    throw new Error(`readwell: unknown format ${format}`);
  }
  const id = await chrome.downloads.download({ url, filename, conflictAction, saveAs: false });
  const item = await downloaded(id);
  const info = { id, filename: item.filename, bytes: item.fileSize || item.bytesReceived, format,
    ...(images ? { images } : {}) };
  return { ...info, summary: saveSummary(info) };
}

/** One line for the user about a finished save: the file, and which images did not make it. */
function saveSummary(info) {
  const name = info.filename.split(/[\\/]/).pop();
  let text = `Saved ${name}`;
  const im = info.images;
  if (im && im.total) {
    text += ` (${im.saved} of ${im.total} images ${info.format === 'html' ? 'embedded' : 'saved'}`;
    if (im.failed.length) {
      const shown = im.failed.slice(0, 3).map((f) => `${f.url.split('/').pop() || f.url}: ${f.error}`);
      const more = im.failed.length > 3 ? `; and ${im.failed.length - 3} more` : '';
      text += `; not saved: ${shown.join('; ')}${more}`;
    }
    text += ')';
  }
  return text;
}

/** Take `filename` in the downloads folder with an empty placeholder (uniquified like any save) and return
 * the name it got; the caller overwrites it. The placeholder leaves the download history, not the disk. */
async function reserveName(filename) {
  const id = await chrome.downloads.download({ url: dataUrl('', 'text/markdown'), filename,
    conflictAction: 'uniquify', saveAs: false });
  const item = await downloaded(id);
  await chrome.downloads.erase({ id }).catch(() => {});
  return item.filename.split(/[\\/]/).pop();
}

/** A path segment for a Markdown link target: percent-encoded, parentheses too (they would end the target). */
const linkSegment = (name) => encodeURIComponent(name).replace(/[()'!*~]/g,
  (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Download the Markdown's http(s) images under `folder/` (relative to the downloads directory, beside the .md)
 * and point the Markdown at them; an image that cannot be fetched or saved keeps its absolute URL. */
async function saveImages(markdown, folder) {
  const urls = imageUrls(markdown).slice(0, IMAGE_LIMITS.maxImages);
  const budget = { left: IMAGE_LIMITS.totalBytes };
  const taken = new Set();
  const paths = new Map();
  const files = [];
  const failed = [];
  await pool(urls, IMAGE_LIMITS.parallel, async (url) => {
    const got = await fetchImage(url, budget);
    if (got.error) { failed.push({ url, error: got.error }); return; }
    const name = imageFileName(url, got.ext, taken);
    try {
      const id = await chrome.downloads.download({ url: bytesDataUrl(got.bytes, got.type), filename: `${folder}/${name}`,
        conflictAction: 'uniquify', saveAs: false });
      const item = await downloaded(id);
      // uniquify may have renamed it ("photo (1).png" when an earlier save left "photo.png"): link the real name
      const real = item.filename.split(/[\\/]/).pop();
      paths.set(url, `${linkSegment(folder)}/${linkSegment(real)}`);
      files.push(item.filename);
    } catch (err) {
      failed.push({ url, error: String((err && err.message) || err) });
    }
  });
  return { markdown: rewriteImages(markdown, paths),
    images: { total: urls.length, saved: paths.size, failed, folder, files } };
}
async function downloaded(id, ms = 30000) {
  const t0 = Date.now();
  for (;;) {
    const [item] = await chrome.downloads.search({ id });
    if (item && item.state === 'complete') return item;
    if (item && item.state === 'interrupted') throw new Error(`readwell: download interrupted: ${item.error}`);
    if (Date.now() - t0 > ms) throw new Error('readwell: download timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
/** readwell's pipeline stage names, in order, as the engine defines them (loads the engine if needed). */
const stages = () => offscreen('stages');
/** Load the engine now (benchmarks, tests): { loadMs, fromSnapshot }. */
const warm = () => offscreen('warm');
/** Engine state without starting anything: { prewarm: {reason, at}, offscreen, engine: {state, startedAt, ...} }. */
async function status() {
  if (prewarming) await prewarming; // the document may be being created right now
  const have = await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] });
  return { prewarm: prewarmed, offscreen: have.length > 0,
    engine: have.length ? await offscreen('status', {}, 10000) : null };
}
/** Close the engine document (the next use loads the engine again, cold): benchmarks, tests. */
async function unload() {
  const have = await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] });
  offscreenPromise = null;
  if (have.length) await chrome.offscreen.closeDocument();
  return { closed: have.length > 0 };
}

self.readwell = { extract, reader, save, overlay, stages, warm, status, unload };

// ---- messages from content scripts ----
listen(ADDRESSES.sw, {
  'engine-extract': (msg) => offscreen('extract', { snapshot: msg.snapshot, options: msg.options }),
  'engine-extract-html': (msg) => offscreen('extract-html', { html: msg.html, options: msg.options }),
  // a content script's part it loads when first used (content.js need()): only the files named there, into the
  // frame that asks
  inject: async (msg, sender) => {
    if (!sender.tab || !LAZY_FILES.has(msg.file)) throw new Error('readwell: nothing to inject');
    await chrome.scripting.executeScript({ target: { tabId: sender.tab.id, frameIds: [sender.frameId || 0] },
      files: [msg.file] });
    return true;
  },
  save: (msg, sender) => {
    if (!sender.tab) throw new Error('readwell: save is asked from a tab');
    return save(sender.tab.id, { format: msg.format });
  },
});

// ---- user entry points ----
const report = (err) => console.warn('readwell:', err && err.message ? err.message : err);

// Feedback for what the user asked (toolbar button, shortcut, context menu): in the reader's live region when
// the reader is open on that tab, else on the toolbar button (badge + tooltip), never only in this console.
const BADGE = { error: ['!', '#c5221f'], ok: ['✓', '#188038'], busy: ['…', '#5f6368'] };
const BADGE_OK_MS = 8000;
async function notify(tabId, kind, text) {
  if (!text) { // success with nothing to say (the reader or overlay is on screen): clear an earlier error
    await chrome.action.setBadgeText({ tabId, text: '' }).catch(() => {});
    await chrome.action.setTitle({ tabId, title: 'Readwell: reader view' }).catch(() => {});
    return { shown: 'nothing', text };
  }
  let shown = false;
  try {
    shown = await send(ADDRESSES.content, 'announce', { text, kind }, { tabId, timeoutMs: 5000 });
  } catch { /* no content script in this tab (yet), or it cannot run there */ }
  const [badge, color] = shown ? ['', null] : BADGE[kind] || BADGE.ok;
  try {
    await chrome.action.setBadgeText({ tabId, text: badge });
    if (color) await chrome.action.setBadgeBackgroundColor({ tabId, color });
    await chrome.action.setTitle({ tabId, title: shown ? 'Readwell: reader view' : `Readwell: ${text}` });
    if (kind === 'ok' && badge) {
      setTimeout(() => chrome.action.setBadgeText({ tabId, text: '' }).catch(() => {}), BADGE_OK_MS);
    }
  } catch (err) { report(err); }
  return { shown: shown ? 'reader' : 'badge', text };
}

const SAVE_LABEL = { markdown: 'Markdown', 'markdown-images': 'Markdown + images', html: 'HTML' };
/** Run a user command on a tab and tell the user how it went (saves: the summary; failures: the message). */
async function userAction(tabId, cmd) {
  prewarm('first use');
  const [kind, arg, part] = cmd.split(':');
  const label = `${part === 'selection' ? 'the selection as ' : ''}${SAVE_LABEL[arg] || arg}`;
  try {
    if (kind === 'save') {
      await notify(tabId, 'busy', `Saving ${label}…`);
      const info = await save(tabId, { format: arg, selection: part === 'selection' });
      return notify(tabId, 'ok', info.summary);
    }
    const got = await (kind === 'overlay' ? overlay(tabId) : reader(tabId));
    await notify(tabId, 'ok', '');
    return got;
  } catch (err) {
    report(err);
    const what = kind === 'save' ? `Saving ${label} failed`
      : `${kind === 'overlay' ? 'Debug overlay' : 'Reader view'} failed`;
    return notify(tabId, 'error', `${what}: ${errorText(err).replace(/^readwell: /, '')}`);
  }
}
self.readwell.userAction = userAction;

chrome.action.onClicked.addListener((tab) => { userAction(tab.id, 'reader'); });
chrome.commands.onCommand.addListener(async (command, tab) => {
  prewarm('first use');
  const t = tab || (await chrome.tabs.query({ active: true, currentWindow: true }))[0];
  if (!t) return;
  if (command === 'toggle-reader') userAction(t.id, 'reader');
  if (command === 'toggle-overlay') userAction(t.id, 'overlay');
});
chrome.runtime.onStartup.addListener(() => { prewarm('startup'); });
chrome.runtime.onInstalled.addListener(() => {
  prewarm('installed');
  chrome.contextMenus.removeAll(() => {
    const contexts = ['page', 'selection', 'link', 'image'];
    chrome.contextMenus.create({ id: 'readwell-reader', title: 'Reader view', contexts });
    chrome.contextMenus.create({ id: 'readwell-save-md', title: 'Save article as Markdown', contexts });
    chrome.contextMenus.create({ id: 'readwell-save-md-images', title: 'Save article as Markdown with images',
      contexts });
    chrome.contextMenus.create({ id: 'readwell-save-html', title: 'Save article as HTML', contexts });
    chrome.contextMenus.create({ id: 'readwell-overlay', title: 'Debug overlay', contexts });
    chrome.contextMenus.create({ id: 'readwell-save-selection', title: 'Save selection as Markdown',
      contexts: ['selection'] });
  });
});
const MENU = { 'readwell-reader': 'reader', 'readwell-save-md': 'save:markdown',
  'readwell-save-md-images': 'save:markdown-images', 'readwell-save-html': 'save:html',
  'readwell-overlay': 'overlay', 'readwell-save-selection': 'save:markdown:selection' };
chrome.contextMenus.onClicked.addListener((info, tab) => {
  if (tab && MENU[info.menuItemId]) userAction(tab.id, MENU[info.menuItemId]);
});
