// Live-DOM adapter (content script): one read-only pass over the live document into the snapshot that
// readwell.adapters.from_snapshot builds the Python tree from. Elements get ids; `nodes` maps id -> live
// element so log entries (removals[].node_id) point back at the page. Never mutates the page.
(() => {
  const RW = (globalThis.__readwell = globalThis.__readwell || {});
  if (RW.snapshot) return;

  const NS = { 'http://www.w3.org/2000/svg': 'svg', 'http://www.w3.org/1998/Math/MathML': 'math' };
  const MARKS = new Set(['$?', '/$', '$', '$!']);
  // Elements whose computed style says nothing about visibility of content (never rendered by design).
  const NO_LAYOUT = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'title', 'base', 'head']);
  const MAX_DEPTH = 180; // py_core/readwell/dom.py MAX_DEPTH: deeper content goes to the ancestor at the cap
  const OUR_HOSTS = new Set(['readwell-reader', 'readwell-overlay']);
  // Same-origin iframes (http/https documents the content script can reach): their body goes into the snapshot
  // as <div data-readwell-iframe="src"> in place of the <iframe> (the Python side drops iframes). Nested up to
  // MAX_FRAME_DEPTH; an iframe document with more elements than the budget left is skipped (kept as an empty
  // <iframe>). about:blank / srcdoc frames are skipped: ad slots and widgets written by script, and their
  // markup is already page-controlled text the static parse sees as an attribute.
  const MAX_FRAME_DEPTH = 2;
  const MAX_FRAME_ELEMENTS = 20000;
  const FRAME_ATTRS = ['id', 'class', 'title', 'style', 'hidden', 'lang', 'dir', 'role', 'aria-hidden', 'aria-label'];

  // Only these elements and custom elements (a '-' in the name) can host an author shadow root (DOM standard,
  // "valid shadow host name": attachShadow and declarative <template shadowrootmode> both check it). Asking
  // chrome.dom about every other element cost ~40% of a warm snapshot (an extension API call per element).
  const SHADOW_HOSTS = new Set(['article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4',
    'h5', 'h6', 'header', 'main', 'nav', 'p', 'section', 'span']);

  function shadowOf(el, tag) {
    if (!SHADOW_HOSTS.has(tag) && !tag.includes('-')) return null;
    try {
      if (globalThis.chrome && chrome.dom && chrome.dom.openOrClosedShadowRoot) {
        return chrome.dom.openOrClosedShadowRoot(el) || null;
      }
    } catch { /* not a host */ }
    return el.shadowRoot || null;
  }

  /** The attributes as {name: value}, or null for none. getAttributeNames + getAttribute make no Attr node per attribute (what
   * el.attributes[i] does). What only setAttributeNS can make (two attributes with one qualified name, an
   * upper-case name on an HTML element, which getAttribute does not find) takes the el.attributes path, as
   * before (the last of equal names wins). */
  function attributesOf(el) {
    const names = el.getAttributeNames();
    if (names.length === 0) return null;
    const attrs = {};
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      const value = el.getAttribute(name);
      if (value === null || Object.hasOwn(attrs, name)) return attributesByNode(el);
      attrs[name] = value;
    }
    return attrs;
  }
  function attributesByNode(el) {
    const attrs = {};
    const list = el.attributes;
    for (let i = 0; i < list.length; i++) attrs[list[i].name] = list[i].value;
    return attrs;
  }

  /** A same-origin http(s) document inside an iframe element, or null. */
  function frameDocument(el) {
    let d = null;
    try { d = el.contentDocument; } catch { return null; }
    if (!d || !d.body || !d.defaultView) return null;
    try { return /^https?:$/.test(d.location.protocol) ? d : null; } catch { return null; }
  }

  // frame: { ox, oy, win } — page offset of the frame's viewport and its window (computed style)
  function layoutOf(el, frame) {
    const r = el.getBoundingClientRect();
    const cs = frame.win.getComputedStyle(el);
    return {
      x: Math.round(r.left + frame.ox), y: Math.round(r.top + frame.oy), w: Math.round(r.width), h: Math.round(r.height),
      display: cs.display, visibility: cs.visibility, opacity: parseFloat(cs.opacity),
      font_size: parseFloat(cs.fontSize) || 0, font_weight: parseInt(cs.fontWeight, 10) || 400,
    };
  }

  // Layout the core's rules read (layout: 'rules', the extension's reader): computed display, visibility and
  // opacity decide the hidden-element rules, the box size the tiny-media rules of <img> and <svg>
  // (py_core/readwell/rules.py HIDDEN_RULES, stages/remove_hidden_and_tiny_media.py). An element the browser
  // shows (checkVisibility: a box, visible, opacity not 0) matches none of those rules, so it costs one call
  // and carries no layout; only the others read computed style, with the same values layoutOf gives.
  const VISIBLE = { opacityProperty: true, visibilityProperty: true };
  const SIZED = new Set(['img', 'svg']);
  function ruleLayoutOf(el, tag, frame) {
    let l = null;
    if (!(el.checkVisibility && el.checkVisibility(VISIBLE))) { // (no checkVisibility: read every element)
      const cs = frame.win.getComputedStyle(el);
      l = { display: cs.display, visibility: cs.visibility, opacity: parseFloat(cs.opacity) };
    }
    if (SIZED.has(tag)) {
      const r = el.getBoundingClientRect();
      l = l || {};
      l.w = Math.round(r.width);
      l.h = Math.round(r.height);
    }
    return l;
  }

  /** Serialize the document. options.layout: 'rules' (default: only what the core's rules read, see
   * ruleLayoutOf), true (every element's box, computed display/visibility/opacity and font: render mode's
   * layout analysis) or false (none). Returns { json, nodes, count, frames, ms }. */
  function snapshot(options = {}) {
    const t0 = performance.now();
    const mode = options.layout === undefined ? 'rules' : options.layout;
    const withLayout = mode !== false;
    const fullLayout = mode === true;
    const layoutFor = (el, tag, frame) => (fullLayout ? layoutOf(el, frame) : ruleLayoutOf(el, tag, frame));
    const doc = document;
    const top0 = { ox: window.scrollX, oy: window.scrollY, win: window, depth: 0 };
    let frameBudget = MAX_FRAME_ELEMENTS;
    let frames = 0;
    const nodes = new Map();
    let nextId = 1;
    const rootEl = doc.documentElement;
    const top = { t: 'html', id: nextId++, a: {}, c: [] };
    // A recursive walk (one call per element, children by firstChild/nextSibling): no work item (array) per
    // node as the explicit stack had (~3,000-8,000 nodes on real pages). Recursion stops at MAX_DEPTH, below
    // which only text is kept (flatText, iterative), so a hostile nesting cannot overflow the JS stack. Ids are
    // given in the same order as before: an element, its shadow root's <template>, its light children, then
    // the shadow root's children.
    const visitFrame = (el, out, depth, layoutScope, isContent, frame) => {
      if (isContent || frame.depth >= MAX_FRAME_DEPTH) return false;
      const fd = frameDocument(el);
      if (!fd) return false;
      const count = fd.getElementsByTagName('*').length;
      if (count > frameBudget) return false;
      frameBudget -= count;
      frames++;
      const id = nextId++;
      nodes.set(id, el);
      const attrs = { 'data-readwell-iframe': el.getAttribute('src') || '' };
      for (const name of FRAME_ATTRS) if (el.hasAttribute(name)) attrs[name] = el.getAttribute(name);
      const node = { t: 'div', id, a: attrs };
      if (withLayout && layoutScope) {
        const l = layoutFor(el, 'div', frame);
        if (l) node.l = l;
      }
      addChild(out, node);
      const r = el.getBoundingClientRect();
      const cs = frame.win.getComputedStyle(el);
      const inner = { ox: frame.ox + r.left + el.clientLeft + (parseFloat(cs.paddingLeft) || 0),
        oy: frame.oy + r.top + el.clientTop + (parseFloat(cs.paddingTop) || 0), win: fd.defaultView,
        depth: frame.depth + 1 };
      visitChildren(fd.body, node, depth + 1, layoutScope, false, inner);
      return true;
    };
    const visitElement = (el, out, depth, layoutScope, isContent, frame) => {
      const tag = el.localName;
      const ns = NS[el.namespaceURI] || 'html';
      if (ns === 'html' && OUR_HOSTS.has(tag)) return; // our own reader/overlay hosts
      if (depth >= MAX_DEPTH) { // keep the text, not the pathological nesting
        flatText(el, out);
        return;
      }
      if (ns === 'html' && (tag === 'iframe' || tag === 'frame') && visitFrame(el, out, depth, layoutScope, isContent, frame)) {
        return;
      }
      const id = nextId++;
      nodes.set(id, el);
      const attrs = attributesOf(el);
      const node = { t: tag, id };
      if (attrs) node.a = attrs;
      if (ns !== 'html') node.ns = ns;
      if (withLayout && layoutScope && !isContent
        && (ns === 'html' ? !NO_LAYOUT.has(tag) : tag === 'svg' || tag === 'math')) {
        const l = layoutFor(el, tag, frame);
        if (l) node.l = l;
      }
      addChild(out, node);
      const sr = shadowOf(el, tag);
      let tpl = null;
      if (sr) {
        tpl = { t: 'template', id: nextId++, a: { shadowrootmode: 'open' } };
        addChild(node, tpl);
      }
      if (tag === 'template' && ns === 'html' && el.content) {
        visitChildren(el.content, node, depth + 1, false, true, frame);
      } else {
        // inside svg/math only the root carries layout
        visitChildren(el, node, depth + 1, layoutScope && ns === 'html' && tag !== 'head', isContent, frame);
      }
      if (sr) visitChildren(sr, tpl, depth + 1, layoutScope, isContent, frame);
    };
    // An element's "a" (attributes) and "c" (children) are left out when empty (from_snapshot reads a missing
    // key as empty): less JSON to make, send and parse, and no empty dict and list per element in Python.
    const addChild = (out, child) => {
      if (out.c) out.c.push(child); else out.c = [child];
    };
    const addText = (out, data) => {
      const c = out.c;
      if (c && typeof c[c.length - 1] === 'string') c[c.length - 1] += data;
      else addChild(out, data);
    };
    const addMark = (out, n) => {
      const mark = n.data.trim();
      if (MARKS.has(mark)) addChild(out, { t: 'rw-boundary', id: nextId++, a: { 'data-mark': mark } });
    };
    const visitChildren = (parent, out, depth, layoutScope, isContent, frame) => {
      for (let n = parent.firstChild; n; n = n.nextSibling) {
        switch (n.nodeType) {
          case 1: visitElement(n, out, depth, layoutScope, isContent, frame); break;
          case 3: case 4: addText(out, n.data); break;
          case 8: addMark(out, n); break;
          default: break;
        }
      }
    };
    // Below MAX_DEPTH: the text and boundary marks of el's descendants in document order, into out (our own
    // hosts left out), by a walk that needs no stack.
    const flatText = (el, out) => {
      let n = el.firstChild;
      while (n) {
        let down = false;
        if (n.nodeType === 3 || n.nodeType === 4) addText(out, n.data);
        else if (n.nodeType === 8) addMark(out, n);
        else if (n.nodeType === 1 && !(OUR_HOSTS.has(n.localName) && !NS[n.namespaceURI])) down = true;
        if (down && n.firstChild) { n = n.firstChild; continue; }
        while (n !== el && !n.nextSibling) n = n.parentNode;
        n = n === el ? null : n.nextSibling;
      }
    };
    // <html> itself
    nodes.set(top.id, rootEl);
    for (const a of Array.from(rootEl.attributes)) top.a[a.name] = a.value;
    visitChildren(rootEl, top, 1, true, false, top0);
    const json = JSON.stringify(top);
    return { json, nodes, count: nextId, frames, ms: performance.now() - t0 };
  }

  RW.snapshot = snapshot;
})();
