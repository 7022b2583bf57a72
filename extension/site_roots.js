// Remembered content roots ("pick root" in the overlay), scoped to a host and a path prefix the user sees and
// can edit (options page). One storage key, `siteRoots`: { [host]: [{prefix, selector, label, words, savedAt}] }.
// The first version stored one selector per host ({ [host]: "selector" }); it is read as prefix "/".
// A classic script: content scripts and the options page load it; it registers
// globalThis.__readwell.siteRoots.
(() => {
  const RW = (globalThis.__readwell = globalThis.__readwell || {});
  if (RW.siteRoots) return;

  const KEY = 'siteRoots';

  /** One host's entries as a list of {prefix, selector, ...}, whatever version stored them. */
  function entriesOf(value) {
    if (typeof value === 'string') return value ? [{ prefix: '/', selector: value }] : [];
    if (!Array.isArray(value)) return [];
    return value.filter((e) => e && typeof e.selector === 'string' && e.selector
      && typeof e.prefix === 'string');
  }

  /** A prefix always starts with "/" (what location.pathname starts with). */
  const cleanPrefix = (p) => {
    const s = String(p || '').trim();
    return s.startsWith('/') ? s : `/${s}`;
  };

  /** The default scope of a root picked on `url`: its first path directory ("/news/2024/a" → "/news/"),
   * because articles of one site section share a template; "/" for a page at the top. */
  function defaultPrefix(url) {
    const path = new URL(url).pathname;
    const m = /^\/[^/]+\//.exec(path);
    return m ? m[0] : '/';
  }

  async function loadAll() {
    try {
      const got = await chrome.storage.local.get(KEY);
      const all = {};
      for (const [host, value] of Object.entries(got[KEY] || {})) {
        const list = entriesOf(value);
        if (list.length) all[host] = list;
      }
      return all;
    } catch { return {}; }
  }
  const saveAll = (all) => chrome.storage.local.set({ [KEY]: all });

  /** The entry for `url`: the longest prefix of its path among its host's entries, or null. */
  async function forUrl(url) {
    const u = new URL(url);
    const list = (await loadAll())[u.host] || [];
    let best = null;
    for (const e of list) {
      if (u.pathname.startsWith(e.prefix) && (!best || e.prefix.length > best.prefix.length)) best = e;
    }
    return best;
  }

  /** Remember `selector` for pages of `url`'s host under `prefix` (replaces the entry with that prefix). */
  async function remember(url, selector, prefix, extra = {}) {
    const host = new URL(url).host;
    const all = await loadAll();
    const p = cleanPrefix(prefix);
    const list = (all[host] || []).filter((e) => e.prefix !== p);
    const entry = { ...extra, prefix: p, selector, savedAt: new Date().toISOString() };
    list.push(entry);
    all[host] = list;
    await saveAll(all);
    return entry;
  }

  /** Drop `host`'s entry with `prefix`. */
  async function forget(host, prefix) {
    const all = await loadAll();
    const list = (all[host] || []).filter((e) => e.prefix !== prefix);
    if (list.length) all[host] = list; else delete all[host];
    await saveAll(all);
  }

  /** Move `host`'s entry from `oldPrefix` to `newPrefix` (options page). */
  async function rescope(host, oldPrefix, newPrefix) {
    const all = await loadAll();
    const p = cleanPrefix(newPrefix);
    const list = all[host] || [];
    const entry = list.find((e) => e.prefix === oldPrefix);
    if (!entry) return null;
    all[host] = [...list.filter((e) => e !== entry && e.prefix !== p), { ...entry, prefix: p }];
    await saveAll(all);
    return p;
  }

  RW.siteRoots = { KEY, entriesOf, defaultPrefix, loadAll, forUrl, remember, forget, rescope };
})();
