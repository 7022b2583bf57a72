// Options page: the file name and front matter templates of saves and copies (with a preview on a sample
// article), the remembered content roots (list, edit the path prefix, delete). Built with DOM APIs only.
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

  // A sample clip for the preview: the templates are tried on it as they are typed.
  const SAMPLE = { title: 'Counting otters: a "field" guide', url: 'https://example.org/notes/otters',
    byline: 'Ann Example and Bo Example', published: '2026-05-01', site_name: 'River Notes',
    excerpt: 'How otters are counted.', lead_image: 'https://example.org/img/otter.jpg',
    markdown: 'Otters are counted from their spraints along the bank…\n' };
  const SAMPLE_META = { keywords: ['otters, rivers'], articleTags: ['wildlife'] };
  const DEFAULT_TEMPLATE = ['title', 'url', 'author', 'published', 'site', 'description', 'image', 'tags',
    'created'].map((k) => `${k}: {{${k}}}`).join('\n');

  function preview() {
    const savedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const stem = RW.clip.fileStem(document.getElementById('clipFilename').value.trim(), SAMPLE, savedAt,
      SAMPLE_META);
    const template = document.getElementById('clipTemplate').value;
    const head = RW.clip.frontMatter(SAMPLE, SAMPLE_META, savedAt, template);
    document.getElementById('preview').textContent = `${stem}.md\n\n${head}${SAMPLE.markdown}`;
  }

  async function clipFields() {
    const input = document.getElementById('clipFilename');
    const area = document.getElementById('clipTemplate');
    const got = await chrome.storage.local.get(['clipFilename', 'clipTemplate']).catch(() => ({}));
    input.value = got.clipFilename || '';
    area.value = got.clipTemplate || '';
    area.placeholder = DEFAULT_TEMPLATE;
    input.addEventListener('input', preview);
    area.addEventListener('input', preview);
    input.addEventListener('change', async () => {
      const v = input.value.trim();
      if (v) await chrome.storage.local.set({ clipFilename: v });
      else await chrome.storage.local.remove('clipFilename');
      status(v ? `Files will be named ${v}` : 'Files will be named after the title');
    });
    const saveTemplate = async (v) => {
      if (v.trim()) await chrome.storage.local.set({ clipTemplate: v });
      else await chrome.storage.local.remove('clipTemplate');
      status(v.trim() ? 'Front matter template saved' : 'Front matter: the default');
      preview();
    };
    document.getElementById('saveTemplate').addEventListener('click', () => saveTemplate(area.value));
    document.getElementById('resetTemplate').addEventListener('click', () => {
      area.value = '';
      saveTemplate('');
    });
    preview();
  }

  drawRoots();
  clipFields();
  RW.options = { drawRoots };
})();
