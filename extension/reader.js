// Reader view (content script): an isolated surface (a shadow root on one host element appended to <html>),
// built with DOM APIs only. Opening adds exactly that host; closing removes it, so the page is restored
// exactly.
(() => {
  const RW = (globalThis.__readwell = globalThis.__readwell || {});
  if (RW.reader) return;

  const DEFAULTS = { theme: 'auto', fontSize: 19, width: 'medium', font: 'serif', lineHeight: '1.6' };
  let host = null;
  let previousFocus = null;

  const el = (...args) => RW.safeDom.el(...args);

  async function loadPrefs() {
    try {
      const got = await chrome.storage.local.get('readerPrefs');
      return { ...DEFAULTS, ...(got.readerPrefs || {}) };
    } catch { return { ...DEFAULTS }; }
  }
  // What show() needs before the article (the saved preferences, the parsed style sheet) is started by
  // prepare() when the command comes, so it is ready while the engine works instead of after it (reading
  // chrome.storage is a round trip to the browser process: 2-10 ms on 2 busy cores).
  let prepared = null;
  let sheetCache = { css: null, sheet: null };
  function sheetFor(css) {
    if (sheetCache.css !== css) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css || '');
      sheetCache = { css, sheet };
    }
    return sheetCache.sheet;
  }
  /** Start reading the preferences and parse `css` (the next show() uses both). */
  function prepare(css) {
    const prefs = loadPrefs();
    prepared = prefs;
    prefs.then(() => sheetFor(css));
  }
  const savePrefs = (prefs) => chrome.storage.local.set({ readerPrefs: prefs }).catch(() => {});

  const LINE_HEIGHTS = ['1.4', '1.6', '1.8', '2'];
  function applyPrefs(root, prefs) {
    root.dataset.theme = prefs.theme;
    root.dataset.font = prefs.font;
    root.dataset.width = prefs.width;
    root.style.setProperty('--rw-font-size', `${prefs.fontSize}px`);
    root.style.setProperty('--rw-line-height',
      LINE_HEIGHTS.includes(String(prefs.lineHeight)) ? prefs.lineHeight : '1.6');
    const size = root.querySelector('.rw-size');
    if (size) size.textContent = `${prefs.fontSize}px`;
  }

  function select(label, value, options, onchange) {
    const s = el('select', { 'aria-label': label, onchange: (e) => onchange(e.target.value) });
    for (const [v, text] of options) {
      const o = el('option', { value: v, text });
      if (v === value) o.selected = true;
      s.appendChild(o);
    }
    return el('label', {}, document.createTextNode(label), s);
  }

  // Scripts written right to left (ISO 639-1/-3 codes): the reader's own controls follow the browser's UI
  // language, never the page's dir (which `all: initial` does not reset: `all` leaves `direction` alone).
  const RTL_LANGS = new Set(['ar', 'he', 'iw', 'fa', 'ur', 'ps', 'yi', 'ji', 'dv', 'ckb', 'sd', 'ug', 'syr']);
  /** 'rtl' or 'ltr' for a BCP 47 language tag (the UI language by default). */
  function uiDir(lang) {
    let tag = lang;
    if (tag === undefined) {
      try { tag = chrome.i18n.getUILanguage(); } catch { tag = navigator.language; }
    }
    return RTL_LANGS.has(String(tag || '').toLowerCase().split(/[-_]/)[0]) ? 'rtl' : 'ltr';
  }

  function fmtDate(s) {
    if (!s) return null;
    const m = /^(\d{4}-\d{2}-\d{2})/.exec(s);
    return m ? m[1] : s;
  }

  // The page while the reader is open, as one constructed stylesheet adopted by the document (no element
  // added, removed on close). The host's own box lives here too, not in its style attribute, so that print
  // can change it. On screen the page underneath is hidden with its layout and scroll position kept, and
  // find-in-page and window.find skip it (only the article is found); in print it is display:none and the
  // host flows (position: static), so the article prints, on as many pages as it needs, and nothing else.
  // The body is hidden with `content-visibility: hidden` and its measured height (the browser skips the
  // style and layout of everything in it: 1-1.5 ms instead of restyling every element, 4-6 ms, CPU the
  // engine wants on two cores); every other child of html is visibility:hidden. If the document's scroll
  // size or position moves anyway (the body's own height set, margins that no longer collapse through it,
  // content that overflows sideways), the sheet falls back to visibility:hidden on everything (FULL_COVER).
  const BASE_CSS = `
    readwell-reader { all: initial !important; display: block !important; position: fixed !important;
      inset: 0 !important; z-index: 2147483647 !important; }
    @media print {
      html > :not(readwell-reader) { display: none !important; }
      html { background: #fff !important; }
      readwell-reader { position: static !important; inset: auto !important; }
    }`;
  const FULL_COVER = `
    html > :not(readwell-reader):not(readwell-overlay), html > :not(readwell-reader):not(readwell-overlay) * {
      visibility: hidden !important; }`;
  const bodyCover = (h) => `
    html > :not(readwell-reader):not(readwell-overlay):not(body),
    html > :not(readwell-reader):not(readwell-overlay):not(body) * { visibility: hidden !important; }
    html > body { visibility: hidden !important; content-visibility: hidden !important;
      contain-intrinsic-height: ${h}px !important; }`;
  const SPARE = 100000; // px
  let pageSheet = null;
  function adopt(on) {
    const others = Array.from(document.adoptedStyleSheets).filter((x) => x !== pageSheet);
    document.adoptedStyleSheets = on ? [...others, pageSheet] : others;
  }
  function coverPage(on) {
    if (!pageSheet) pageSheet = new CSSStyleSheet();
    if (!on) { adopt(false); return; }
    const body = document.body;
    if (!body || body.localName !== 'body') { pageSheet.replaceSync(BASE_CSS + FULL_COVER); adopt(true); return; }
    const doc = document.scrollingElement || document.documentElement;
    const size = () => [doc.scrollWidth, doc.scrollHeight, window.scrollX, window.scrollY];
    const before = size();
    const same = (a) => a.every((v, i) => v === before[i]);
    const cs = getComputedStyle(body);
    const px = (k) => parseFloat(cs[k]) || 0;
    // first with room to spare (the document only grows, so no scroll offset is clamped), then the height
    // that gives back the document's own: what differs (margins that collapsed through the body, a quirks-mode
    // body's minimum height) is read from the first layout, where only the body's box is laid out
    const h = body.getBoundingClientRect().height - px('paddingTop') - px('paddingBottom')
      - px('borderTopWidth') - px('borderBottomWidth') + SPARE;
    pageSheet.replaceSync(BASE_CSS + bodyCover(h));
    adopt(true);
    let after = size();
    if (after[0] === before[0] && h + before[1] - after[1] >= 0) {
      pageSheet.replaceSync(BASE_CSS + bodyCover(h + before[1] - after[1]));
      after = size();
    }
    if (!same(after)) {
      pageSheet.replaceSync(BASE_CSS + FULL_COVER);
      if (after[2] !== before[2] || after[3] !== before[3]) window.scrollTo(before[2], before[3]);
    }
  }

  /** Close the toolbar's open menus; true if one was open. */
  function closeMenus(root) {
    const open = Array.from(root.querySelectorAll('.rw-toolbar details[open]'));
    for (const d of open) d.open = false;
    return open.length > 0;
  }

  /** The toolbar slides away while the reader scrolls down and comes back on any scroll up (more room for the
   * article on a phone); it never hides near the top or while a menu is open. */
  function tuckOnScroll(root, toolbar) {
    let last = 0;
    root.addEventListener('scroll', () => {
      const y = root.scrollTop;
      if (y > last + 4 && y > 80 && !toolbar.querySelector('details[open]')) {
        toolbar.classList.add('rw-tucked');
      } else if (y < last - 4 || y <= 80) toolbar.classList.remove('rw-tucked');
      last = y;
    }, { passive: true });
    toolbar.addEventListener('focusin', () => toolbar.classList.remove('rw-tucked'));
  }

  /** fn() with the page uncovered, e.g. a snapshot taken while the reader is open (a save from the reader):
   * the snapshot reads computed visibility, and must see the page as the user does without the reader.
   * Synchronous, so nothing is painted in between. */
  function uncovered(fn) {
    if (!host) return fn();
    coverPage(false);
    try { return fn(); } finally { coverPage(true); }
  }

  function makeHost(css) {
    const h = document.createElement('readwell-reader');
    const shadow = h.attachShadow({ mode: 'open' });
    shadow.adoptedStyleSheets = [sheetFor(css)];
    return [h, shadow];
  }

  /** Put `text` in the reader's live region (role=status; kind 'error' makes it role=alert, read at once). */
  function announce(text, kind = 'info') {
    const box = host && host.shadowRoot.querySelector('.rw-status');
    if (!box) return false;
    box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    box.dataset.kind = kind;
    box.textContent = text;
    box.hidden = !text;
    return true;
  }

  /** The reader's selection (a Selection inside the shadow root), or null when the reader is closed. */
  function selection() {
    if (!host || typeof host.shadowRoot.getSelection !== 'function') return null;
    const sel = host.shadowRoot.getSelection();
    return sel && !sel.isCollapsed ? sel : null;
  }

  /** Put `text` on the clipboard: the async Clipboard API where the page is a secure context, else a textarea
   * in the reader selected and copied (execCommand('copy'), which a click's user activation allows). */
  async function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      try {
        await navigator.clipboard.writeText(text);
        return;
      } catch { /* not focused, or denied: fall back */ }
    }
    const box = host && host.shadowRoot.querySelector('.rw-root');
    if (!box) throw new Error('readwell: the clipboard is not available here');
    const before = host.shadowRoot.activeElement;
    const area = el('textarea', { class: 'rw-clip', 'aria-hidden': 'true', readonly: '', tabindex: '-1' });
    area.value = text;
    box.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } finally {
      area.remove();
      if (before && before.focus) before.focus({ preventScroll: true });
    }
    if (!ok) throw new Error('readwell: the browser refused to copy');
  }

  // Opening is two steps so that the page's side of it overlaps the engine's work (content.js): open() puts up
  // the reader's surface (host, toolbar, the covering sheet: the page-wide restyle that sheet causes, 4-6 ms
  // on real pages, and the reader's own style and layout) while the engine runs in its own process; fill()
  // adds the article when the result arrives. show() does both for a result at hand.
  let opening = null; // the pending open() (a token): hide() or a newer open() cancels it

  /** Put up the reader's surface with no article yet (aria-busy, an empty status line) and focus it.
   * actions: { save(format), copy(), overlay() }. Resolves with a handle for fill(), or null when the reader
   * was closed (or opened again) before the saved preferences arrived. */
  async function open(css, actions = {}) {
    hide();
    const token = {};
    opening = token;
    const prefs = await (prepared || loadPrefs());
    prepared = null;
    if (opening !== token) return null;
    opening = null;
    previousFocus = document.activeElement;
    const [h, shadow] = makeHost(css);
    const root = el('div', { class: 'rw-root', role: 'dialog', 'aria-modal': 'true',
      'aria-label': 'Reader view', 'aria-busy': 'true', tabindex: '-1', dir: uiDir() });
    applyPrefs(root, prefs);
    const update = (k, v) => { prefs[k] = v; applyPrefs(root, prefs); savePrefs(prefs); };
    // One row at any width (360 px phones included): the settings and the saves sit in two menus
    // (<details>: keyboard and screen-reader friendly without scripting), the close button stays visible.
    const debug = el('button', { type: 'button', text: 'Debug', title: 'Debug overlay',
      'aria-label': 'Debug overlay', onclick: () => { hide(); if (actions.overlay) actions.overlay(); } });
    const toolbar = el('div', { class: 'rw-toolbar', role: 'toolbar', 'aria-label': 'Reader settings' },
      menu('Aa', 'Text and theme',
        select('Theme', prefs.theme,
          [['auto', 'System'], ['light', 'Light'], ['dark', 'Dark'], ['sepia', 'Sepia']],
          (v) => update('theme', v)),
        el('div', { class: 'rw-row' },
          el('button', { type: 'button', 'aria-label': 'Smaller text', text: 'A−',
            onclick: () => update('fontSize', Math.max(12, prefs.fontSize - 1)) }),
          el('span', { class: 'rw-size', 'aria-label': 'Text size', text: `${prefs.fontSize}px` }),
          el('button', { type: 'button', 'aria-label': 'Larger text', text: 'A+',
            onclick: () => update('fontSize', Math.min(40, prefs.fontSize + 1)) })),
        select('Spacing', String(prefs.lineHeight), LINE_HEIGHTS.map((v) => [v, v]),
          (v) => update('lineHeight', v)),
        select('Width', prefs.width, [['narrow', 'Narrow'], ['medium', 'Medium'], ['wide', 'Wide']],
          (v) => update('width', v)),
        select('Font', prefs.font, [['serif', 'Serif'], ['sans', 'Sans']], (v) => update('font', v))),
      debug,
      el('span', { class: 'rw-spacer' }),
      el('button', { type: 'button', text: '✕', title: 'Close (Escape)',
        'aria-label': 'Close reader view (Escape)', onclick: hide }));
    // opening one menu closes the other; a click elsewhere closes both
    toolbar.addEventListener('toggle', (e) => {
      if (!e.target.open) return;
      for (const d of toolbar.querySelectorAll('details[open]')) if (d !== e.target) d.open = false;
    }, true);
    root.addEventListener('click', (e) => { if (!e.composedPath().includes(toolbar)) closeMenus(root); });
    tuckOnScroll(root, toolbar);
    root.appendChild(toolbar);
    // the live region exists before its text is set, so screen readers announce the change
    root.appendChild(el('div', { class: 'rw-status', role: 'status', 'aria-live': 'polite', hidden: '' }));
    root.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      if (!closeMenus(root)) hide(); // Escape closes an open menu first, then the reader
    });
    shadow.appendChild(root);
    coverPage(true);
    document.documentElement.appendChild(h);
    host = h;
    root.focus({ preventScroll: true });
    return { host: h, root, toolbar, debug, actions };
  }

  const menu = (label, title, ...items) => el('details', { class: 'rw-menu' },
    el('summary', { 'aria-label': title, title, text: label }), el('div', { class: 'rw-pop' }, ...items));

  /** Add the article for `result` (readwell JSON) to the surface open() put up; notice: a message shown (and
   * announced), e.g. why a remembered root was not used. { found, shown: false } when that surface was closed
   * in the meantime (the user toggled the reader off while the engine worked). */
  function fill(shell, result, notice = null) {
    const found = !!(result && result.found);
    if (!shell || host !== shell.host) return { found, shown: false };
    const { root, toolbar, debug, actions } = shell;
    if (found) {
      const save = (format) => () => { closeMenus(root); if (actions.save) actions.save(format); };
      toolbar.insertBefore(menu('Save', 'Save the article',
        el('button', { type: 'button', text: 'Save Markdown', onclick: save('markdown') }),
        el('button', { type: 'button', text: 'Save Markdown + images',
          'data-readwell-save': 'markdown-images',
          title: 'Markdown with the images in a folder beside it', onclick: save('markdown-images') }),
        el('button', { type: 'button', text: 'Save HTML', onclick: save('html') }),
        el('button', { type: 'button', text: 'Copy Markdown', 'data-readwell-copy': 'markdown',
          title: 'The article as Markdown with front matter, to the clipboard',
          onclick: () => { closeMenus(root); if (actions.copy) actions.copy(); } })), debug);
      root.appendChild(buildPage(result, document));
    } else {
      root.appendChild(el('div', { class: 'rw-empty', role: 'status' },
        el('h1', { text: 'No article found' }),
        el('p', { text: 'Readwell did not find a main article on this page. The debug overlay shows what was '
          + 'considered and why it was removed; you can also pick the content root by hand there.' }),
        el('button', { type: 'button', text: 'Show debug overlay',
          onclick: () => { hide(); if (actions.overlay) actions.overlay(); } })));
    }
    root.removeAttribute('aria-busy');
    // focus stays on the dialog (a click or the page's script may have moved it while the engine worked)
    root.focus({ preventScroll: true });
    if (notice) setTimeout(() => announce(notice, 'notice'), 50);
    return { found, shown: true };
  }

  /** Take down the surface open() put up (the extraction failed), unless another one replaced it. */
  function dismiss(shell) {
    if (shell && host === shell.host) hide();
  }

  /** Show the reader for `result` (readwell JSON) at once: open() then fill(). */
  async function show(result, css, actions = {}, notice = null) {
    return fill(await open(css, actions), result, notice);
  }

  /** The reader page (title, meta line, lead image, article) in `doc`; shared with the saved HTML. */
  function buildPage(result, doc) {
    const mk = (tag, props, ...kids) => {
      const n = doc.createElement(tag);
      for (const [k, v] of Object.entries(props || {})) {
        if (v == null) continue;
        if (k === 'text') n.textContent = v; else n.setAttribute(k, v);
      }
      for (const c of kids) if (c) n.appendChild(c);
      return n;
    };
    const lang = result.lang && /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(result.lang) ? result.lang : null;
    const rdir = (result.dir || '').toLowerCase();
    const dir = ['ltr', 'rtl', 'auto'].includes(rdir) ? rdir : null;
    const page = mk('main', { class: 'rw-page', lang, dir });
    const metaBits = [result.byline, result.site_name, fmtDate(result.published),
      result.reading_minutes ? `${result.reading_minutes} min read` : null].filter(Boolean);
    page.appendChild(mk('header', {},
      mk('h1', { class: 'rw-title', text: result.title || '' }),
      // each bit isolated (<bdi>): "2 min read" stays in that order inside a right-to-left article
      metaBits.length
        ? mk('p', { class: 'rw-meta' }, ...metaBits.map((t) => mk('bdi', { text: t }))) : null));
    const article = mk('article', { 'data-readwell': 'article', lang, dir });
    article.appendChild(RW.safeDom.fragment(result.content_html || '', doc));
    tidyBreaks(article);
    videoCards(article);
    const lead = result.lead_image;
    if (lead && /^https?:/i.test(lead) && RW.safeDom.safeUrl(lead, false) && wantsHero(lead, article)) {
      page.appendChild(mk('figure', { class: 'rw-lead' }, mk('img', { src: lead, alt: '' })));
    }
    page.appendChild(article);
    return page;
  }

  // The hero (og:image) is shown only when it adds a picture: not when the article already has the same image
  // at another size or crop, not when the article opens with an image of its own, never a logo.
  const SHOW_NODES = NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT;
  const LOGO = /(^|[/_.-])(logo|logos|brand|favicon|icon|sprite|avatar)([/_.-]|$)/i;
  /** The picture an image URL names, whatever size variant it is: the file name without query, extension and
   * size/crop suffixes ("photo-1200x800.jpg", "photo_w640.webp", "photo@2x.png", "photo-scaled.jpg" →
   * "photo"). */
  function pictureKey(url) {
    let file;
    try { file = new URL(url, 'https://x.invalid/').pathname.split('/').pop() || ''; } catch { return ''; }
    return decodeURIComponent(file).toLowerCase().replace(/\.[a-z0-9]{2,5}$/, '').replace(SIZE_SUFFIX, '');
  }
  const SIZE_SUFFIX = new RegExp('([-_.@](\\d{2,4}x\\d{2,4}|[wh]\\d{2,4}|\\d{2,4}[wh]|\\d(\\.\\d)?x|scaled'
    + '|large|medium|small|thumb(nail)?|crop(ped)?|resized?))+$');
  function wantsHero(lead, article) {
    if (LOGO.test(new URL(lead).pathname)) return false;
    const key = pictureKey(lead);
    for (const img of article.querySelectorAll('img')) {
      const srcs = [img.getAttribute('src') || '',
        ...(img.getAttribute('srcset') || '').split(',').map((p) => p.trim().split(/\s+/)[0])];
      if (srcs.some((u) => u && (u === lead || (key && pictureKey(u) === key)))) return false;
    }
    // the article's first content is already a picture (a figure or image before any text)
    const walker = article.ownerDocument.createTreeWalker(article, SHOW_NODES);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === 3) { if (n.data.trim()) return true; continue; }
      if (n.localName === 'img') return false;
    }
    return true;
  }

  /** The core's embedded video (`<p data-embed="video"><a href="WATCH_URL">TITLE</a></p>`, the contract in
   * extension/README.md) as a card: a play glyph, the title, the provider (the URL's host) and the URL, all
   * one link named by the title. Nothing is embedded and nothing loads. Only that exact shape becomes a card:
   * a page's own paragraph marked data-embed with more text than the link stays as it is. */
  function videoCards(article) {
    const doc = article.ownerDocument;
    const mk = (tag, cls, text) => {
      const n = doc.createElement(tag);
      n.className = cls;
      if (text) n.textContent = text;
      return n;
    };
    for (const p of Array.from(article.querySelectorAll('p[data-embed="video"]'))) {
      const links = p.querySelectorAll('a[href]');
      if (links.length !== 1 || p.textContent.trim() !== links[0].textContent.trim()) continue;
      let url;
      try { url = new URL(links[0].getAttribute('href')); } catch { continue; }
      if (!/^https?:$/.test(url.protocol)) continue;
      const title = links[0].textContent.replace(/\s+/g, ' ').trim() || 'Video';
      const provider = url.hostname.replace(/^www\./, '');
      const card = mk('a', 'rw-video-card');
      card.setAttribute('href', url.href);
      card.setAttribute('rel', 'noopener noreferrer');
      card.setAttribute('aria-label', `${title} (video on ${provider})`);
      const play = mk('span', 'rw-video-play', '▶');
      play.setAttribute('aria-hidden', 'true');
      const text = mk('span', 'rw-video-text');
      text.append(mk('span', 'rw-video-title', title), mk('span', 'rw-video-provider', provider),
        mk('span', 'rw-video-url', url.href));
      card.append(play, text);
      p.classList.add('rw-video');
      p.replaceChildren(card);
    }
  }

  /** Line breaks that only make blank space: none before the first text, at most two in a row. */
  function tidyBreaks(article) {
    const blank = (n) => n && ((n.nodeType === 3 && !n.data.trim()) || n.localName === 'br');
    for (;;) { // leading <br>s (also inside the first paragraph) open a gap above the article
      const walker = article.ownerDocument.createTreeWalker(article, SHOW_NODES);
      let n = walker.nextNode();
      const skip = (x) => (x.nodeType === 3 ? !x.data.trim() : x.localName !== 'br' && x.localName !== 'img');
      while (n && skip(n)) n = walker.nextNode();
      if (!n || n.localName !== 'br') break;
      n.remove();
    }
    for (const br of Array.from(article.querySelectorAll('br'))) {
      let run = 0;
      for (let p = br.previousSibling; blank(p); p = p.previousSibling) if (p.localName === 'br') run++;
      if (run >= 2 && br.isConnected) br.remove();
    }
  }

  function hide() {
    opening = null;
    if (!host) return false;
    host.remove();
    host = null;
    coverPage(false);
    if (previousFocus && previousFocus.isConnected && previousFocus.focus) {
      try { previousFocus.focus({ preventScroll: true }); } catch { /* ignore */ }
    }
    previousFocus = null;
    return true;
  }

  RW.reader = { prepare, open, fill, dismiss, show, hide, announce, uncovered, isOpen: () => !!host, buildPage, uiDir, selection,
    copyText };
})();
