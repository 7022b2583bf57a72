// Options page: the saved file name template, the remembered content roots (list, edit the path prefix,
// delete). Built with DOM APIs only.
(() => {
  const RW = globalThis.__readwell;
  const el = (...args) => RW.safeDom.el(...args);
  const status = (text) => { document.getElementById('status').textContent = text; };

  async function drawRoots() {
    const all = await RW.siteRoots.loadAll();
    const body = document.querySelector('#roots tbody');
    body.replaceChildren();
    const rows = Object.entries(all).flatMap(([host, list]) => list.map((e) => [host, e]))
      .sort((a, b) => (a[0] + a[1].prefix).localeCompare(b[0] + b[1].prefix));
    for (const [host, e] of rows) {
      const prefix = el('input', { type: 'text', value: e.prefix, 'aria-label': `Path prefix for ${host}`,
        onchange: async (ev) => {
          const p = await RW.siteRoots.rescope(host, e.prefix, ev.target.value);
          status(`Root for ${host} now applies under ${p}`);
          drawRoots();
        } });
      const what = el('td', {}, el('code', { text: e.selector }),
        e.label ? el('div', { class: 'muted',
          text: `${e.label}${e.words ? ` · ${e.words} words when saved` : ''}` }) : null);
      body.appendChild(el('tr', { 'data-host': host, 'data-prefix': e.prefix },
        el('td', { text: host }), el('td', {}, prefix), what,
        el('td', {}, el('button', { type: 'button', text: 'Delete',
          'aria-label': `Delete the root for ${host}${e.prefix}`,
          onclick: async () => {
            await RW.siteRoots.forget(host, e.prefix);
            status(`Deleted the root for ${host}${e.prefix}`);
            drawRoots();
          } }))));
    }
    document.getElementById('empty').hidden = rows.length > 0;
  }

  async function fileNameField() {
    const input = document.getElementById('clipFilename');
    const got = await chrome.storage.local.get('clipFilename').catch(() => ({}));
    input.value = got.clipFilename || '';
    input.addEventListener('change', async () => {
      const v = input.value.trim();
      if (v) await chrome.storage.local.set({ clipFilename: v });
      else await chrome.storage.local.remove('clipFilename');
      status(v ? `Files will be named ${v}` : 'Files will be named after the title');
    });
  }

  drawRoots();
  fileNameField();
  RW.options = { drawRoots };
})();
