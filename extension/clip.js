// Clipping (Markdown saves and copies): the YAML front matter and the file name, from readwell's result plus
// the page's own tags, like Obsidian Web Clipper's properties. Without a template: the CLI's keys (title,
// url, author, published) and Obsidian's (author as a list, site, description, image, tags, created: the
// clip's time). With the options page's templates: {{title}}-style placeholders, every page value escaped for
// YAML (and the file name made safe by files.js). A classic script: the content script loads it (the reader's
// "Copy Markdown"), the module service worker imports it for its side effect (saves) and reads
// globalThis.__readwell.clip.
(() => {
  const RW = (globalThis.__readwell = globalThis.__readwell || {});
  if (RW.clip) return;

  // Characters YAML does not accept raw (C1 controls, U+FFFE/FFFF) or may read as line breaks (U+0085,
  // U+2028/2029 in YAML 1.1): escaped. JSON.stringify escapes the C0 controls, quotes and backslashes.
  const YAML_UNSAFE = /[\u007f-\u009f\u2028\u2029\ufffe\uffff]/g;
  const hex4 = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

  /** A YAML value: a double-quoted scalar (JSON's string escapes are YAML's) or a flow sequence of them. Lone
   * surrogates (not encodable) become U+FFFD. */
  function yaml(v) {
    if (Array.isArray(v)) return `[${v.map(yaml).join(',')}]`;
    return JSON.stringify(String(v ?? '').toWellFormed()).replace(YAML_UNSAFE, hex4);
  }

  /** Authors as a list: a byline "A, B and C" / "A & B" / "A; B" is three / two people. */
  function authors(byline) {
    if (!byline) return [];
    return String(byline).replace(/^by\s+/i, '').split(/\s*(?:,|;|&|\band\b|\bund\b|\bet\b|\by\b)\s*/i)
      .map((s) => s.trim()).filter((s) => s && s.length <= 100);
  }

  /** Tags from the page's <meta name="keywords"> and <meta property="article:tag">: unique
   * (case-insensitively), trimmed, at most 20. */
  function tags(pageMeta) {
    const seen = new Map();
    const all = [...(pageMeta.articleTags || []), ...(pageMeta.keywords || []).flatMap((k) => k.split(','))];
    for (const raw of all) {
      const t = String(raw).trim().replace(/\s+/g, ' ');
      if (t && t.length <= 60 && !seen.has(t.toLowerCase())) seen.set(t.toLowerCase(), t);
    }
    return [...seen.values()].slice(0, 20);
  }

  const day = (s) => (s ? String(s).slice(0, 10) : '');

  /** The placeholder values of a clip: strings, or lists (author, tags). `savedAt`: the clip's ISO time. */
  function values(result, pageMeta, savedAt) {
    let host = '';
    try { host = new URL(result.url).host; } catch { /* no URL */ }
    return {
      title: result.title || '', url: result.url || '', author: authors(result.byline),
      published: result.published || '', site: result.site_name || '', host,
      description: result.excerpt || '', image: result.lead_image || '', tags: tags(pageMeta || {}),
      created: savedAt || '', date: day(savedAt), time: String(savedAt || '').slice(11, 16),
    };
  }
  /** The names a template may use, for the options page's help. */
  const PLACEHOLDERS = Object.keys(values({}, {}, ''));

  // {{name}} (spaces allowed inside the braces); the file name also takes the first version's {name}
  const PLACEHOLDER = /\{\{\s*([a-z]+)\s*\}\}/g;
  const LEGACY = /\{\{\s*([a-z]+)\s*\}\}|\{([a-z]+)\}/g;
  const asText = (v) => (Array.isArray(v) ? v.join(', ') : v);
  /** `text` with every known placeholder replaced by its value as text (lists joined by ", "), in one pass:
   * a value that itself reads "{{title}}" stays as it is. Unknown names stay literal. */
  const fill = (text, vars, re = PLACEHOLDER) => text.replace(re, (m, a, b) => {
    const k = a || b;
    return Object.hasOwn(vars, k) ? asText(vars[k]) : m;
  });

  const MAX_TEMPLATE = 4000;
  // A front-matter line: optional indent, optional "- " (a list item), optional "key: " (a plain key, no
  // placeholder in it), then the value.
  const LINE = /^(\s*(?:-\s+)?(?:[\w.-][\w .-]*:(?=\s|$))?)\s*(.*)$/;

  /** One template line: no placeholder, kept as the user wrote it (their own YAML); else the value part
   * becomes one YAML value: a lone placeholder its typed value (a list stays a list), anything else one
   * quoted string (the user's own quotes around it dropped), so page text can never end the scalar or start a
   * new key. */
  function templateLine(line, vars) {
    if (!line.match(PLACEHOLDER)) return line;
    const [, lead, rest] = LINE.exec(line);
    const prefix = lead && !/\s$/.test(lead) ? `${lead} ` : lead;
    const lone = /^\{\{\s*([a-z]+)\s*\}\}$/.exec(rest.trim());
    if (lone && Object.hasOwn(vars, lone[1])) return prefix + yaml(vars[lone[1]]);
    const q = /^(["'])(.*)\1$/.exec(rest.trim());
    return prefix + yaml(fill(q ? q[2] : rest, vars));
  }

  /** The front matter for `result` saved at `savedAt` (ISO time). Without a template: the default keys, empty
   * fields left out. With one: its lines (fences optional) through templateLine. */
  function frontMatter(result, pageMeta, savedAt, template = '') {
    const vars = values(result, pageMeta, savedAt);
    let lines;
    if (String(template || '').trim()) {
      lines = String(template).slice(0, MAX_TEMPLATE).replace(/\r\n?/g, '\n').split('\n');
      while (lines.length && !lines[0].trim()) lines.shift();
      while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
      if (lines[0] === '---') lines.shift();
      if (lines[lines.length - 1] === '---') lines.pop();
      lines = lines.map((l) => templateLine(l, vars));
    } else {
      const keys = [['title', 'title'], ['url', 'url'], ['author', 'author'], ['published', 'published'],
        ['site', 'site'], ['description', 'description'], ['image', 'image'], ['tags', 'tags'],
        ['created', 'created']];
      lines = keys.filter(([, k]) => (Array.isArray(vars[k]) ? vars[k].length : vars[k]))
        .map(([key, k]) => `${key}: ${yaml(vars[k])}`);
    }
    return `---\n${lines.join('\n')}\n---\n\n`;
  }

  /** The file name (without extension) from a template: {{title}}, {{site}}, {{date}} (YYYY-MM-DD of the
   * save), {{published}}, {{host}}, {{author}}, ... (or the first version's {title}). The caller makes it
   * safe for file systems (files.js safeFilename). */
  function fileStem(template, result, savedAt, pageMeta = {}) {
    const vars = values(result, pageMeta, savedAt);
    vars.published = day(vars.published);
    vars.site ||= vars.host; // a file name wants some site name
    const out = fill(String(template || '{{title}}').slice(0, 500), vars, LEGACY);
    return out.trim() || result.title || 'article';
  }

  /** The whole clip as one Markdown text: front matter, then the article. */
  const note = (result, pageMeta, savedAt, template) => frontMatter(result, pageMeta, savedAt, template)
    + (result.markdown || '');

  RW.clip = { yaml, authors, tags, values, frontMatter, fileStem, note, PLACEHOLDERS };
})();
