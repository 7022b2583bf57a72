// Debug overlay (content script): the chosen root outlined, every removed element boxed and coloured by stage
// (tooltip: stage, rule, reason, text), a panel grouped by stage with counts and timings, per-stage switches
// that rerun without that stage and show gained/lost text, and click-to-choose root (remembered per site).
// One zero-size absolutely positioned host on <html>: no layout shift; closing removes it and every listener.
(() => {
  const RW = (globalThis.__readwell = globalThis.__readwell || {});
  if (RW.overlay) return;

  const COLORS = ['#e8710a', '#1a73e8', '#188038', '#d01884', '#9334e6', '#c5221f', '#12b5cb', '#f9ab00',
    '#5f6368', '#7cb342', '#795548', '#ff5722', '#3949ab'];
  const CSS = `
    :host { all: initial; }
    .box { position: absolute; box-sizing: border-box; border: 2px dashed var(--c); background: color-mix(in srgb, var(--c) 12%, transparent); pointer-events: auto; }
    .box[data-empty] { display: none; }
    .root { position: absolute; box-sizing: border-box; outline: 3px dashed #111; outline-offset: 2px;
      box-shadow: 0 0 0 5px #fff; pointer-events: none; }
    .box[data-flash] { animation: flash .5s ease-in-out 3; z-index: 1; }
    @keyframes flash { 50% { background: color-mix(in srgb, var(--c, #d01884) 60%, transparent); outline: 4px solid var(--c, #d01884); } }
    .head { display: flex; align-items: center; gap: 6px; cursor: move; user-select: none; margin: -2px 0 4px; }
    .head h2 { flex: 1; margin: 0; }
    .panel[data-collapsed] { width: auto; }
    .sw.rootsw { background: #fff; outline: 2px dashed #111; }
    li[data-node-id] { cursor: pointer; }
    .pick { position: absolute; box-sizing: border-box; border: 2px solid #d01884; background: rgba(208,24,132,.08); pointer-events: none; }
    .pick-label { position: absolute; left: -2px; bottom: 100%; background: #d01884; color: #fff; font: 12px/1.5 system-ui, sans-serif;
      padding: 0 6px; border-radius: 3px 3px 0 0; white-space: nowrap; }
    .notice { background: #fef7e0; border-left: 3px solid #f9ab00; padding: 4px 6px; margin: 4px 0; }
    .confirm { border: 1px solid #d01884; border-radius: 6px; padding: 6px; margin: 4px 0; }
    .confirm input { font: inherit; width: 12em; }
    .picking .box { pointer-events: none; }
    .panel { position: fixed; right: 12px; bottom: 12px; width: 380px; max-height: 62vh; overflow: auto; pointer-events: auto;
      background: #fff; color: #202124; border: 1px solid #dadce0; border-radius: 8px; box-shadow: 0 4px 16px rgba(0,0,0,.2);
      font: 12px/1.4 system-ui, sans-serif; padding: 8px 10px; z-index: 2; }
    .panel h2 { font-size: 13px; margin: 0 0 6px; }
    .panel button { font: inherit; padding: 2px 8px; margin: 0 4px 4px 0; cursor: pointer; }
    .row { display: flex; gap: 6px; align-items: center; }
    .sw { width: 10px; height: 10px; border-radius: 2px; background: var(--c); flex: none; }
    .row .n { margin-left: auto; color: #5f6368; font-variant-numeric: tabular-nums; }
    details { margin: 2px 0 2px 22px; }
    summary { cursor: pointer; color: #5f6368; }
    li { margin: 2px 0; word-break: break-word; }
    .diff { border-top: 1px solid #dadce0; margin-top: 6px; padding-top: 6px; }
    .gain { color: #188038; } .lost { color: #c5221f; }
    .muted { color: #5f6368; }
    :focus-visible { outline: 2px solid #1a73e8; }
  `;
  let state = null;

  const mk = (...args) => RW.safeDom.el(...args);

  function docRect(el) {
    const r = el.getBoundingClientRect();
    let x = r.left, y = r.top;
    // an element inside a same-origin iframe (snapshot.js serializes those): add each frame's viewport offset
    let fe = null;
    try { fe = el.ownerDocument !== document ? el.ownerDocument.defaultView.frameElement : null; } catch { fe = null; }
    for (let hops = 0; fe && hops < 4; hops++) {
      const fr = fe.getBoundingClientRect();
      const cs = fe.ownerDocument.defaultView.getComputedStyle(fe);
      x += fr.left + fe.clientLeft + (parseFloat(cs.paddingLeft) || 0);
      y += fr.top + fe.clientTop + (parseFloat(cs.paddingTop) || 0);
      try { fe = fe.ownerDocument !== document ? fe.ownerDocument.defaultView.frameElement : null; } catch { fe = null; }
    }
    return { x: x + window.scrollX, y: y + window.scrollY, w: r.width, h: r.height };
  }

  /** A CSS selector that finds `el` again on this page (id, else a nth-of-type path). */
  function selectorFor(el) {
    const parts = [];
    let cur = el;
    while (cur && cur.nodeType === 1 && cur !== document.documentElement) {
      // ids as [id="..."]: readwell's selector engine has no CSS escapes; skip ids it could not express
      if (cur.id && !/["\\\n]/.test(cur.id)) {
        const byId = `[id="${cur.id}"]`;
        if (document.querySelectorAll(byId).length === 1) {
          parts.unshift(byId);
          return parts.join(' > ');
        }
      }
      let seg = cur.localName;
      const parent = cur.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.localName === cur.localName);
        if (same.length > 1) seg += `:nth-of-type(${same.indexOf(cur) + 1})`;
      }
      parts.unshift(seg);
      cur = parent;
    }
    parts.unshift('html');
    return parts.join(' > ');
  }

  /** The pipeline's stages (from the engine), then any other step that logged removals (e.g. sanitize). */
  function stageNames(result, stages) {
    const names = [...(stages || [])];
    for (const r of result.removals || []) if (!names.includes(r.stage)) names.push(r.stage);
    return names;
  }

  function lines(text) {
    return new Set((text || '').split(/\n+/).map((s) => s.trim()).filter(Boolean));
  }

  /** Removed elements that are not inside another removed element: one box each (a removed <div> with 80
   * removed descendants is one box, not 81 nested ones); the inner ones are counted on it. */
  function outermost(result, nodes) {
    const removed = new Map();
    for (const r of result.removals || []) {
      const t = nodes.get(r.node_id);
      if (t && t.isConnected && t.nodeType === 1 && !removed.has(t)) removed.set(t, r);
    }
    const outer = new Map();
    for (const [t] of removed) {
      let top = t;
      for (let a = t.parentElement; a; a = a.parentElement) if (removed.has(a)) top = a;
      const entry = outer.get(top) || { r: removed.get(top), inner: 0 };
      if (top !== t) entry.inner++;
      outer.set(top, entry);
    }
    return outer;
  }

  const placeAt = (n, b) => {
    n.style.left = `${b.x}px`; n.style.top = `${b.y}px`; n.style.width = `${b.w}px`; n.style.height = `${b.h}px`;
  };

  function draw() {
    const { layer, result, nodes, names } = state;
    layer.replaceChildren();
    const color = (stage) => COLORS[Math.max(0, names.indexOf(stage)) % COLORS.length];
    state.boxes = new Map();
    for (const [target, { r, inner }] of outermost(result, nodes)) {
      const b = docRect(target);
      const box = mk('div', { class: 'box', 'data-readwell-removal': r.stage, 'data-node-id': String(r.node_id),
        title: `${r.stage} · ${r.kind}${r.rule ? ` · ${r.rule}` : ''}\n${r.reason || ''}${r.text ? `\n“${r.text}”` : ''}`
          + (inner ? `\n(+${inner} removed inside)` : '') });
      box.style.setProperty('--c', color(r.stage));
      if (b.w === 0 && b.h === 0) box.setAttribute('data-empty', '');
      placeAt(box, b);
      layer.appendChild(box);
      state.boxes.set(target, box);
    }
    let rootEl = null;
    try { rootEl = result.root ? document.querySelector(result.root) : null; } catch { rootEl = null; }
    if (rootEl) {
      const o = mk('div', { class: 'root', 'data-readwell-root': result.root });
      placeAt(o, docRect(rootEl));
      layer.appendChild(o);
    }
    drawPanel(color);
  }

  /** Panel entry → its element: scrolled into view, its box (or the box it is collapsed into) flashes. */
  function reveal(r) {
    const t = state.nodes.get(r.node_id);
    if (!t || !t.isConnected || t.nodeType !== 1) return;
    t.scrollIntoView({ block: 'center', behavior: 'instant' });
    let box = null;
    for (let a = t; a && !box; a = a.parentElement) box = state.boxes.get(a) || null;
    const flash = box || mk('div', { class: 'box flash-only' });
    if (!box) { placeAt(flash, docRect(t)); state.layer.appendChild(flash); }
    flash.setAttribute('data-flash', '');
    setTimeout(() => { flash.removeAttribute('data-flash'); if (!box) flash.remove(); }, 1500);
  }

  /** Drag the panel by its title bar (pointer events; stays within the window). */
  function makeMovable(panel, handle) {
    handle.addEventListener('pointerdown', (e) => {
      if (e.target.closest('button')) return;
      const r = panel.getBoundingClientRect();
      const dx = e.clientX - r.left, dy = e.clientY - r.top;
      handle.setPointerCapture(e.pointerId);
      const move = (ev) => {
        state.panelPos = { x: Math.max(0, Math.min(innerWidth - 60, ev.clientX - dx)),
          y: Math.max(0, Math.min(innerHeight - 30, ev.clientY - dy)) };
        placePanel(panel);
      };
      const up = () => { handle.removeEventListener('pointermove', move); handle.removeEventListener('pointerup', up); };
      handle.addEventListener('pointermove', move);
      handle.addEventListener('pointerup', up);
    });
  }
  function placePanel(panel) {
    if (!state.panelPos) return;
    panel.style.left = `${state.panelPos.x}px`; panel.style.top = `${state.panelPos.y}px`;
    panel.style.right = 'auto'; panel.style.bottom = 'auto';
  }

  function drawPanel(color) {
    const { panel, result, names, disabled, base } = state;
    panel.replaceChildren();
    const byStage = new Map(names.map((n) => [n, []]));
    for (const r of result.removals || []) byStage.get(r.stage)?.push(r);
    const head = mk('div', { class: 'head', title: 'Drag to move' }, mk('h2', { text: 'Readwell debug' }),
      mk('button', { type: 'button', class: 'collapse', 'aria-expanded': String(!state.collapsed),
        'aria-label': state.collapsed ? 'Expand the panel' : 'Collapse the panel', text: state.collapsed ? '+' : '−',
        onclick: () => { state.collapsed = !state.collapsed; redrawPanel(); } }));
    panel.appendChild(head);
    makeMovable(panel, head);
    placePanel(panel);
    panel.toggleAttribute('data-collapsed', !!state.collapsed);
    if (state.collapsed) return;
    panel.appendChild(mk('div', { class: 'row legend' }, mk('span', { class: 'sw rootsw' }),
      mk('span', { text: 'content root (outline); boxes: removed, coloured by stage' })));
    panel.appendChild(mk('div', { class: 'muted', text: result.found ? `root: ${result.root || '(none)'}` : 'no article found' }));
    if (state.siteRoot) {
      panel.appendChild(mk('div', { class: 'muted', 'data-readwell-site-root': state.siteRoot.prefix,
        text: `remembered root for ${location.host}${state.siteRoot.prefix}*: ${state.siteRoot.label || state.siteRoot.selector}` }));
    }
    if (state.notice) panel.appendChild(mk('div', { class: 'notice', role: 'status', text: state.notice }));
    if (state.candidate) {
      panel.appendChild(confirmBox());
    } else {
      panel.appendChild(mk('div', {},
        mk('button', { type: 'button', text: state.picking ? 'Picking… (Esc)' : 'Pick root', onclick: startPick }),
        state.siteRoot || state.notice
          ? mk('button', { type: 'button', text: 'Forget site root', onclick: forgetRoot }) : null,
        mk('button', { type: 'button', text: 'Close', onclick: () => hide() })));
    }
    for (const name of names) {
      const entries = byStage.get(name) || [];
      const ms = result.timings && result.timings[name];
      const cb = mk('input', { type: 'checkbox', 'aria-label': `Run stage ${name}`, 'data-stage': name,
        onchange: (e) => toggleStage(name, e.target.checked) });
      cb.checked = !disabled.has(name);
      const row = mk('label', { class: 'row' }, cb, mk('span', { class: 'sw' }), mk('span', { text: name }),
        mk('span', { class: 'n', text: `${entries.length} · ${ms != null ? ms.toFixed(1) : '–'} ms` }));
      row.querySelector('.sw').style.setProperty('--c', color(name));
      panel.appendChild(row);
      if (entries.length) {
        const list = mk('ol');
        for (const r of entries.slice(0, 200)) {
          const t = state.nodes.get(r.node_id);
          const what = r.text ? ` “${r.text}”` : (t && t.nodeType === 1 ? ` ${labelOf(t)}` : '');
          list.appendChild(mk('li', { tabindex: '0', 'data-node-id': String(r.node_id),
            text: `${r.action} ${r.tag || ''} — ${r.kind}${r.rule ? ` ${r.rule}` : ''}: ${r.reason || ''}${what}`,
            onclick: () => reveal(r), onkeydown: (e) => { if (e.key === 'Enter') reveal(r); } }));
        }
        panel.appendChild(mk('details', {}, mk('summary', { text: `${entries.length} entries` }), list));
      }
    }
    if (disabled.size && base) {
      const before = lines(base.text), after = lines(result.text);
      const gained = [...after].filter((l) => !before.has(l));
      const lost = [...before].filter((l) => !after.has(l));
      const diff = mk('div', { class: 'diff', 'data-readwell-diff': '' },
        mk('div', { text: `Without ${[...disabled].join(', ')}: ${gained.length} lines gained, ${lost.length} lost` }));
      const ul = mk('ul');
      for (const l of gained.slice(0, 8)) ul.appendChild(mk('li', { class: 'gain', text: `+ ${l.slice(0, 160)}` }));
      for (const l of lost.slice(0, 8)) ul.appendChild(mk('li', { class: 'lost', text: `− ${l.slice(0, 160)}` }));
      diff.appendChild(ul);
      panel.appendChild(diff);
    }
  }

  async function rerun() {
    const opts = { ...(state.options || {}), debug: true, disable: [...state.disabled] };
    const { result, nodes, siteRoot, notice } = await state.extract(opts);
    if (!state) return;
    state.result = result;
    state.nodes = nodes;
    state.siteRoot = siteRoot;
    state.notice = notice;
    if (!state.disabled.size) state.base = result;
    draw();
  }

  function toggleStage(name, on) {
    if (on) state.disabled.delete(name); else state.disabled.add(name);
    rerun();
  }

  /** What the picker shows for an element: tag, id, first classes ("section#main.post"). */
  function labelOf(el) {
    let label = el.localName;
    if (el.id) label += `#${el.id}`;
    const classes = Array.from(el.classList || []).slice(0, 2);
    if (classes.length) label += `.${classes.join('.')}`;
    return label.length > 60 ? `${label.slice(0, 59)}…` : label;
  }
  const wordsOf = (el) => (el.textContent || '').split(/\s+/).filter(Boolean).length;

  function placeBox(box, el) {
    const b = docRect(el);
    box.style.left = `${b.x}px`; box.style.top = `${b.y}px`; box.style.width = `${b.w}px`; box.style.height = `${b.h}px`;
  }

  // Picking is two steps: hover + click proposes an element (outlined, labelled with its word count), then the
  // panel asks for confirmation; the proposal can be widened to its parent or narrowed back (buttons, or ↑/↓,
  // Enter to save, Escape to cancel) and the path prefix it applies to edited before anything is stored.
  function startPick() {
    state.picking = true;
    state.shadow.querySelector('.layer-wrap').classList.add('picking');
    const hl = mk('div', { class: 'pick' }, mk('span', { class: 'pick-label' }));
    state.layer.appendChild(hl);
    state.pickBox = hl;
    const under = (e) => {
      state.host.style.setProperty('display', 'none', 'important');
      const t = document.elementFromPoint(e.clientX, e.clientY);
      state.host.style.setProperty('display', 'block', 'important');
      return t && t !== document.documentElement ? t : null;
    };
    const move = (e) => {
      if (state.candidate) return;
      const t = under(e);
      if (t) showPick(t);
    };
    const click = (e) => {
      if (e.composedPath().includes(state.panel)) return;
      e.preventDefault(); e.stopPropagation();
      if (state.candidate) return;
      const t = under(e);
      if (!t) return;
      state.candidate = { el: t, trail: [], prefix: RW.siteRoots.defaultPrefix(location.href) };
      showPick(t);
      redrawPanel();
    };
    const key = (e) => {
      if (e.composedPath().some((n) => n.localName === 'input')) {
        if (e.key === 'Enter') { e.preventDefault(); e.stopPropagation(); saveCandidate(); }
        return;
      }
      if (e.key === 'Escape') { e.stopPropagation(); stopPick(); draw(); return; }
      if (!state.candidate) return;
      const act = { ArrowUp: widen, ArrowDown: narrow, Enter: saveCandidate }[e.key];
      if (act) { e.preventDefault(); e.stopPropagation(); act(); }
    };
    state.pickListeners = [['mousemove', move], ['click', click], ['keydown', key]];
    for (const [t, f] of state.pickListeners) window.addEventListener(t, f, true);
    redrawPanel();
  }

  function showPick(el) {
    placeBox(state.pickBox, el);
    state.pickBox.firstChild.textContent = `${labelOf(el)} · ${wordsOf(el)} words`;
  }

  function widen() {
    const c = state.candidate;
    const up = c.el.parentElement;
    if (!up || up === document.documentElement) return;
    c.trail.push(c.el);
    c.el = up;
    showPick(up); redrawPanel();
  }

  /** Back down the way we widened; from the clicked element, into the child holding the most words. */
  function narrow() {
    const c = state.candidate;
    let down = c.trail.pop();
    if (!down) {
      const kids = Array.from(c.el.children).filter((k) => wordsOf(k) > 0);
      down = kids.sort((a, b) => wordsOf(b) - wordsOf(a))[0];
    }
    if (!down) return;
    c.el = down;
    showPick(down); redrawPanel();
  }

  async function saveCandidate() {
    const c = state.candidate;
    if (!c) return;
    const input = state.panel.querySelector('input[data-readwell-prefix]');
    const prefix = input ? input.value : c.prefix;
    stopPick();
    await choose(c.el, prefix);
  }

  function confirmBox() {
    const c = state.candidate;
    const prefix = mk('input', { type: 'text', value: c.prefix, 'data-readwell-prefix': '', 'aria-label': 'Path prefix',
      oninput: (e) => { c.prefix = e.target.value; } });
    return mk('div', { class: 'confirm', role: 'group', 'aria-label': 'Confirm the content root' },
      mk('div', { 'data-readwell-candidate': '', text: `Use ${labelOf(c.el)} (${wordsOf(c.el)} words) as the content root?` }),
      mk('label', { class: 'row' }, document.createTextNode(`for ${location.host}`), prefix,
        document.createTextNode('*')),
      mk('div', {},
        mk('button', { type: 'button', text: 'Wider ↑', 'data-readwell-widen': '', onclick: widen }),
        mk('button', { type: 'button', text: 'Narrower ↓', 'data-readwell-narrow': '', onclick: narrow }),
        mk('button', { type: 'button', text: 'Save root (Enter)', 'data-readwell-save-root': '', onclick: saveCandidate }),
        mk('button', { type: 'button', text: 'Cancel (Esc)', onclick: () => { stopPick(); draw(); } })));
  }

  const redrawPanel = () => drawPanel((s) => COLORS[Math.max(0, state.names.indexOf(s)) % COLORS.length]);

  function stopPick() {
    if (!state) return;
    for (const [t, f] of state.pickListeners || []) window.removeEventListener(t, f, true);
    state.pickListeners = [];
    state.picking = false;
    state.candidate = null;
    if (state.pickBox) state.pickBox.remove();
    state.pickBox = null;
    state.shadow.querySelector('.layer-wrap')?.classList.remove('picking');
  }

  async function choose(el, prefix) {
    await RW.siteRoots.remember(location.href, selectorFor(el), prefix, { label: labelOf(el), words: wordsOf(el) });
    await rerun();
  }

  /** Forget the remembered root in use here, or (when it was stale) the one that matched this URL. */
  async function forgetRoot() {
    const entry = state.siteRoot || await RW.siteRoots.forUrl(location.href);
    if (entry) await RW.siteRoots.forget(location.host, entry.prefix);
    await rerun();
  }

  /** Open the overlay. extract(options) -> { result, nodes, stages }; result is a debug extraction. */
  async function show(extract, options = {}) {
    hide();
    const host = document.createElement('readwell-overlay');
    for (const [k, v] of [['all', 'initial'], ['position', 'absolute'], ['top', '0'], ['left', '0'], ['width', '0'],
      ['height', '0'], ['overflow', 'visible'], ['z-index', '2147483646'], ['display', 'block'], ['pointer-events', 'none']]) {
      host.style.setProperty(k, v, 'important');
    }
    const shadow = host.attachShadow({ mode: 'open' });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    shadow.adoptedStyleSheets = [sheet];
    const wrap = mk('div', { class: 'layer-wrap' });
    const layer = mk('div', { class: 'layer' });
    const panel = mk('div', { class: 'panel', role: 'region', 'aria-label': 'Readwell debug overlay' });
    wrap.appendChild(layer);
    shadow.append(wrap, panel);
    state = { host, shadow, layer, panel, extract, options, disabled: new Set(), base: null, picking: false,
      siteRoot: null, notice: null, names: [] };
    const { result, nodes, stages, siteRoot, notice } = await extract({ ...options, debug: true });
    Object.assign(state, { result, base: result, nodes, siteRoot, notice });
    state.names = stageNames(result, stages);
    document.documentElement.appendChild(host);
    draw();
    return { open: true, found: result.found, removals: (result.removals || []).length,
      boxes: layer.querySelectorAll('[data-readwell-removal]').length };
  }

  function hide() {
    if (!state) return false;
    stopPick();
    state.host.remove();
    state = null;
    return true;
  }

  RW.overlay = { show, hide, isOpen: () => !!state, selectorFor };
})();
