// Service worker: commands (toolbar button, keyboard shortcut, context menu), the engine broker (offscreen
// document), saving files, and the automation hook `self.readwell`.
import { addSavedAt, dataUrl, safeFilename } from './files.js';

const CONTENT_FILES = ['snapshot.js', 'safe_dom.js', 'reader.js', 'overlay.js', 'content.js'];
const ENGINE_TIMEOUT_MS = 90000;

const withTimeout = (promise, ms, what) => Promise.race([promise,
  new Promise((_, reject) => setTimeout(() => reject(new Error(`readwell: ${what} timed out after ${ms} ms`)), ms))]);

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
async function offscreen(msg, ms = ENGINE_TIMEOUT_MS) {
  await ensureOffscreen();
  const reply = await withTimeout(chrome.runtime.sendMessage({ target: 'offscreen', ...msg }), ms, `engine ${msg.cmd}`);
  if (!reply) { offscreenPromise = null; throw new Error('readwell: no reply from the engine document'); }
  if (reply.error) throw new Error(reply.error);
  return reply.value;
}

let cssPromise = null;
const readerCss = () => (cssPromise ||= fetch(chrome.runtime.getURL('reader.css')).then((r) => r.text()));

// ---- content script ----
async function ensureContent(tabId) {
  try {
    const r = await chrome.tabs.sendMessage(tabId, { to: 'content', cmd: 'ping' });
    if (r && r.value) return;
  } catch (_) { /* not injected yet */ }
  await chrome.scripting.executeScript({ target: { tabId }, files: CONTENT_FILES });
}
async function content(tabId, msg, ms = ENGINE_TIMEOUT_MS + 10000) {
  await ensureContent(tabId);
  const reply = await withTimeout(chrome.tabs.sendMessage(tabId, { to: 'content', ...msg }), ms, `tab ${msg.cmd}`);
  if (!reply) throw new Error('readwell: no reply from the page');
  if (reply.error) throw new Error(reply.error);
  return reply.value;
}

// ---- the automation hook ----
/** Extract the tab's article: the CLI's JSON fields (plus removals/timings with {debug: true}). */
async function extract(tabId, options = {}) {
  ensureOffscreen(); // start the engine while the page is serialized
  const { result } = await content(tabId, { cmd: 'extract', options });
  return result;
}
/** Toggle the reader view; resolves when it is shown (or closed): { open, found, title, ms }. */
async function reader(tabId, options = {}) {
  ensureOffscreen();
  return content(tabId, { cmd: 'reader', css: await readerCss(), options });
}
/** Toggle the debug overlay: { open, found, removals, boxes }. */
async function overlay(tabId, options = {}) {
  ensureOffscreen();
  return content(tabId, { cmd: 'overlay', options });
}
/** Save the article: {format: 'markdown'|'html'} → { id, filename, bytes } once the file is on disk. */
async function save(tabId, { format = 'markdown' } = {}) {
  const result = await extract(tabId, { front_matter: format === 'markdown' });
  if (!result.found) throw new Error('readwell: no article found on this page');
  const savedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  let url, filename;
  if (format === 'markdown' || format === 'md') {
    url = dataUrl(addSavedAt(result.markdown, savedAt), 'text/markdown');
    filename = safeFilename(result.title, 'md');
  } else if (format === 'html') {
    const built = await offscreen({ cmd: 'build-html', result, css: await readerCss(), savedAt });
    url = dataUrl(built.html, 'text/html');
    filename = safeFilename(result.title, 'html');
  } else {
    throw new Error(`readwell: unknown format ${format}`);
  }
  const id = await chrome.downloads.download({ url, filename, conflictAction: 'uniquify', saveAs: false });
  const item = await downloaded(id);
  return { id, filename: item.filename, bytes: item.fileSize || item.bytesReceived, format };
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
async function stages() {
  return ['flatten_shadow', 'resolve_deferred', 'select_root', 'normalize_structures', 'callouts',
    'remove_hidden_and_tiny_media', 'remove_low_score', 'remove_by_selector', 'remove_by_pattern',
    'normalize_output', 'resolve_urls'];
}
/** Load the engine now (benchmarks, tests): { loadMs, fromSnapshot }. */
const warm = () => offscreen({ cmd: 'warm' });

self.readwell = { extract, reader, save, overlay, stages, warm };

// ---- messages from content scripts ----
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (!msg || msg.target === 'offscreen' || msg.to === 'content') return false;
  if (msg.cmd === 'engine-extract') {
    offscreen({ cmd: 'extract', snapshot: msg.snapshot, options: msg.options })
      .then((v) => sendResponse({ json: v.json }), (err) => sendResponse({ error: String(err.message || err) }));
    return true;
  }
  if (msg.cmd === 'save' && sender.tab) {
    save(sender.tab.id, { format: msg.format }).then((v) => sendResponse({ value: v }),
      (err) => sendResponse({ error: String(err.message || err) }));
    return true;
  }
  return false;
});

// ---- user entry points ----
const report = (err) => console.warn('readwell:', err && err.message ? err.message : err);
chrome.action.onClicked.addListener((tab) => { reader(tab.id).catch(report); });
chrome.commands.onCommand.addListener(async (command, tab) => {
  const t = tab || (await chrome.tabs.query({ active: true, currentWindow: true }))[0];
  if (!t) return;
  if (command === 'toggle-reader') reader(t.id).catch(report);
  if (command === 'toggle-overlay') overlay(t.id).catch(report);
});
chrome.runtime.onInstalled.addListener(() => {
  chrome.contextMenus.removeAll(() => {
    const contexts = ['page', 'selection', 'link', 'image'];
    chrome.contextMenus.create({ id: 'readwell-reader', title: 'Reader view', contexts });
    chrome.contextMenus.create({ id: 'readwell-save-md', title: 'Save article as Markdown', contexts });
    chrome.contextMenus.create({ id: 'readwell-save-html', title: 'Save article as HTML', contexts });
    chrome.contextMenus.create({ id: 'readwell-overlay', title: 'Debug overlay', contexts });
  });
});
chrome.contextMenus.onClicked.addListener((info, tab) => {
  if (!tab) return;
  const id = info.menuItemId;
  if (id === 'readwell-reader') reader(tab.id).catch(report);
  else if (id === 'readwell-save-md') save(tab.id, { format: 'markdown' }).catch(report);
  else if (id === 'readwell-save-html') save(tab.id, { format: 'html' }).catch(report);
  else if (id === 'readwell-overlay') overlay(tab.id).catch(report);
});
