// Clipping (Markdown saves): the YAML front matter and the file name, from readwell's result plus the page's
// own tags. The CLI's keys (title, url, author, published) and the properties Obsidian Web Clipper writes:
// author as a list, site, description, image, tags, and saved (the clip's creation time). A service-worker
// module.

/** YAML value: JSON's double-quoted strings and arrays are valid YAML flow scalars/sequences. */
const yaml = (v) => JSON.stringify(v);

/** Authors as a list: a byline "A, B and C" / "A & B" / "A; B" is three / two people. */
export function authors(byline) {
  if (!byline) return [];
  return String(byline).replace(/^by\s+/i, '').split(/\s*(?:,|;|&|\band\b|\bund\b|\bet\b|\by\b)\s*/i)
    .map((s) => s.trim()).filter((s) => s && s.length <= 100);
}

/** Tags from the page's <meta name="keywords"> and <meta property="article:tag">: unique
 * (case-insensitively), trimmed, at most 20. */
export function tags(pageMeta) {
  const seen = new Map();
  const all = [...(pageMeta.articleTags || []), ...(pageMeta.keywords || []).flatMap((k) => k.split(','))];
  for (const raw of all) {
    const t = String(raw).trim().replace(/\s+/g, ' ');
    if (t && t.length <= 60 && !seen.has(t.toLowerCase())) seen.set(t.toLowerCase(), t);
  }
  return [...seen.values()].slice(0, 20);
}

/** The front matter block for `result` saved at `savedAt` (ISO time). Empty fields are left out. */
export function frontMatter(result, pageMeta, savedAt) {
  const fields = [
    ['title', result.title],
    ['url', result.url],
    ['author', authors(result.byline)],
    ['published', result.published],
    ['site', result.site_name],
    ['description', result.excerpt],
    ['image', result.lead_image],
    ['tags', tags(pageMeta || {})],
    ['saved', savedAt],
  ];
  const lines = fields.filter(([, v]) => (Array.isArray(v) ? v.length : v))
    .map(([k, v]) => `${k}: ${yaml(v)}`);
  return `---\n${lines.join('\n')}\n---\n\n`;
}

/** The file name (without extension) from a template: {title}, {site}, {date} (YYYY-MM-DD of the save),
 * {published} (YYYY-MM-DD), {host}. The caller makes it safe for file systems. */
export function fileStem(template, result, savedAt) {
  const day = (s) => (s ? String(s).slice(0, 10) : '');
  let host = '';
  try { host = new URL(result.url).host; } catch { /* no URL */ }
  const vars = { title: result.title || '', site: result.site_name || host, date: day(savedAt),
    published: day(result.published), host };
  const out = String(template || '{title}').replace(/\{(\w+)\}/g, (m, k) => (k in vars ? vars[k] : m));
  return out.trim() || result.title || 'article';
}
