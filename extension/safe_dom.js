// Sanitized article HTML -> DOM nodes, without innerHTML: DOMParser gives an inert document (no scripts run,
// nothing loads), and only allow-listed elements and attributes are copied into the target document with
// createElement/createElementNS/setAttribute. Mirrors py_core/readwell/sanitize.py's allow-lists (HTML, and
// presentation MathML inside <math>): Python already sanitized the HTML; this is the extension's own defence,
// never the only one. Used by the reader view (content script) and by the saved-HTML builder (offscreen
// document).
(() => {
  const RW = (globalThis.__readwell = globalThis.__readwell || {});
  if (RW.safeDom) return;

  const ALLOWED = new Set(`a abbr b bdi bdo blockquote br caption cite code col colgroup dd del details
    dfn div dl dt em figcaption figure h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p picture pre q s
    samp small source span strong sub summary sup table tbody td tfoot th thead time tr u ul var
    wbr`.split(/\s+/));
  const DROP = new Set(`script style iframe object embed base meta form link frame frameset noscript
    template applet input button select textarea option optgroup svg canvas dialog head title noembed
    noframes xmp plaintext param portal fencedframe audio video track map area`.split(/\s+/));
  const GLOBAL = new Set(['lang', 'dir', 'title', 'data-callout', 'data-footnote', 'data-footnote-ref',
    'data-tex', 'data-display', 'data-footnotes', 'data-embed']);
  // Presentation MathML (sanitize.py MATHML_TAGS / MATHML_ATTRS), built with createElementNS inside a <math>.
  // Never copied: annotation and annotation-xml (an HTML integration point: encoding="text/html" would carry
  // markup), mglyph and malignmark (the parser's exceptions inside text integration points, the mutation-XSS
  // vectors), nor any other namespace. Unwrapped (text kept): maction (interactive), semantics, a nested
  // <math>, HTML elements, unknown MathML, and every element inside a token element (mi mn mo ms mtext: text
  // only).
  // Attributes: the layout list below with short plain values; never href, src, xlink:*, style or on*.
  const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';
  const HTML_NS = 'http://www.w3.org/1999/xhtml';
  const MATHML_TAGS = new Set(`math mi mn mo ms mtext mspace mrow mfrac msqrt mroot mstyle merror mpadded
    mphantom mfenced menclose msub msup msubsup munder mover munderover mmultiscripts mprescripts none
    mtable mtr mtd mlabeledtr`.split(/\s+/));
  const MATHML_TOKENS = new Set(['mi', 'mn', 'mo', 'ms', 'mtext']);
  const MATHML_DROP = new Set(['annotation', 'annotation-xml', 'mglyph', 'malignmark']);
  const MATHML_ATTRS = new Set(`display mathvariant displaystyle scriptlevel stretchy fence separator
    separators accent accentunder linethickness lspace rspace notation columnalign rowalign columnspan
    rowspan width height depth form largeop movablelimits symmetric minsize maxsize open close`.split(/\s+/));
  const MATHML_VALUE = /^[\p{L}\p{N}_\s.%+-]{0,40}$/u; // Python's [\w\s.%+-]{0,40} (\w is Unicode there)
  // Our own data-* attributes carry only what the core's stages write (sanitize.py _DATA_VALUES).
  const DATA_VALUES = {
    'data-callout': /^[A-Za-z]{1,20}$/, 'data-footnote': /^[\w-]{1,40}$/,
    'data-footnote-ref': /^[\w-]{1,40}$/, 'data-display': /^(block|inline)$/, 'data-footnotes': /^1$/,
    'data-embed': /^video$/,
  };
  const TAG_ATTRS = {
    a: ['href'], img: ['src', 'srcset', 'alt', 'width', 'height'], source: ['srcset', 'type', 'media'],
    td: ['colspan', 'rowspan'], th: ['colspan', 'rowspan', 'scope'], ol: ['start', 'reversed', 'type'],
    li: ['value'], code: ['class'], blockquote: ['cite'], q: ['cite'], del: ['cite', 'datetime'],
    ins: ['cite', 'datetime'], time: ['datetime'], col: ['span'], colgroup: ['span'], details: ['open'],
  };
  const URL_ATTRS = new Set(['href', 'src', 'cite']);
  // \p{Cc} is U+0000-001F and U+007F-009F; with the space and the other blanks a URL parser strips or ignores
  const CTRL = /[\p{Cc}\u0020\u00a0\u1680\u180e\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]+/gu;

  function safeUrl(value, allowDataImage) {
    const cleaned = value.replace(CTRL, '');
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(cleaned);
    if (!m) return !cleaned.split('/')[0].includes(':') || cleaned.startsWith('//');
    const scheme = m[1].toLowerCase();
    if (scheme === 'http' || scheme === 'https' || scheme === 'mailto') return true;
    return allowDataImage && scheme === 'data'
      && /^data:image\/(png|gif|jpe?g|webp|avif|bmp);/i.test(cleaned);
  }

  function cleanAttr(tag, name, value) {
    if (MATHML_TAGS.has(tag) && MATHML_ATTRS.has(name)) return MATHML_VALUE.test(value) ? value.trim() : null;
    if (!GLOBAL.has(name) && !(TAG_ATTRS[tag] || []).includes(name)) return null;
    if (name.startsWith('on') || name === 'style' || name === 'srcdoc') return null;
    if (URL_ATTRS.has(name)) return safeUrl(value, tag === 'img' && name === 'src') ? value.trim() : null;
    if (name === 'srcset') {
      const urls = value.split(',').map((p) => p.trim().split(/\s+/)[0]).filter(Boolean);
      return urls.length && urls.every((u) => safeUrl(u, true)) ? value.trim() : null;
    }
    if (name === 'class') {
      const kept = value.split(/\s+/).filter((c) => /^language-[a-z0-9+#.-]{1,30}$/.test(c));
      return kept.length ? kept.join(' ') : null;
    }
    if (DATA_VALUES[name]) return DATA_VALUES[name].test(value) ? value : null;
    if (name === 'dir') {
      return ['ltr', 'rtl', 'auto'].includes(value.toLowerCase()) ? value.toLowerCase() : null;
    }
    if (name === 'lang') return /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(value) ? value : null;
    if (['width', 'height', 'colspan', 'rowspan', 'start', 'value', 'span'].includes(name)) {
      return /^\d{1,5}%?$/.test(value.trim()) ? value.trim() : null;
    }
    return value;
  }

  /** Copy the sanitized `html` into a DocumentFragment of `targetDoc`. */
  function fragment(html, targetDoc = document) {
    const parsed = new DOMParser()
      .parseFromString(`<!DOCTYPE html><html><body>${html}</body></html>`, 'text/html');
    const frag = targetDoc.createDocumentFragment();
    copyChildren(parsed.body, frag, targetDoc, 0);
    return frag;
  }

  function copyChildren(src, dst, targetDoc, depth) {
    if (depth > 400) return;
    for (const n of Array.from(src.childNodes)) {
      if (n.nodeType === 3) { dst.appendChild(targetDoc.createTextNode(n.data)); continue; }
      if (n.nodeType !== 1) continue;
      const tag = n.localName;
      if (n.namespaceURI === MATHML_NS && tag === 'math') {
        const math = copyElement(n, targetDoc.createElementNS(MATHML_NS, 'math'));
        copyMath(n, math, targetDoc, depth + 1, false);
        if (math.textContent.trim()) dst.appendChild(math); // nothing left to show: nothing kept
        continue;
      }
      if (n.namespaceURI !== HTML_NS || DROP.has(tag)) continue;
      if (!ALLOWED.has(tag)) { copyChildren(n, dst, targetDoc, depth + 1); continue; } // unwrap
      const el = copyElement(n, targetDoc.createElement(tag));
      if (tag === 'a') el.setAttribute('rel', 'noopener noreferrer');
      dst.appendChild(el);
      copyChildren(n, el, targetDoc, depth + 1);
    }
  }

  /** The allowed attributes of `src` onto the new element `el` (same local name); returns `el`. */
  function copyElement(src, el) {
    for (const a of Array.from(src.attributes)) {
      if (a.namespaceURI) continue; // xlink:href, xml:*, xmlns:*: never
      const name = a.name.toLowerCase();
      const v = cleanAttr(src.localName, name, a.value);
      if (v !== null) el.setAttribute(name, v);
    }
    return el;
  }

  /** Children of a MathML element: presentation MathML only (see MATHML_TAGS above); inside a token element
   * (inToken) text only: a browser re-parsing the saved file meets no tag where it would switch to HTML. */
  function copyMath(src, dst, targetDoc, depth, inToken) {
    if (depth > 400) return;
    for (const n of Array.from(src.childNodes)) {
      if (n.nodeType === 3) { dst.appendChild(targetDoc.createTextNode(n.data)); continue; }
      if (n.nodeType !== 1) continue;
      const tag = n.localName;
      const ns = n.namespaceURI;
      if ((ns === MATHML_NS && MATHML_DROP.has(tag)) || (ns === HTML_NS && DROP.has(tag))) continue;
      if (ns !== MATHML_NS && ns !== HTML_NS) continue; // SVG inside MathML
      if (inToken || ns !== MATHML_NS || !MATHML_TAGS.has(tag) || tag === 'math') {
        copyMath(n, dst, targetDoc, depth + 1, inToken); // unwrap: its text stays
        continue;
      }
      const el = copyElement(n, targetDoc.createElementNS(MATHML_NS, tag));
      dst.appendChild(el);
      copyMath(n, el, targetDoc, depth + 1, MATHML_TOKENS.has(tag));
    }
  }

  // Element builder shared by the reader view and the overlay: properties become attributes or listeners,
  // text goes through textContent (never markup).
  const el = (tag, props = {}, ...kids) => {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (v == null) continue;
      if (k === 'text') n.textContent = v;
      else if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
      else n.setAttribute(k, v);
    }
    for (const c of kids) if (c) n.appendChild(c);
    return n;
  };

  RW.safeDom = { fragment, safeUrl, cleanAttr, el, MATHML_TAGS, MATHML_ATTRS };
})();
