// "Markdown with images beside it" for the service worker: find the image targets in readwell's Markdown,
// fetch them (http/https only, size cap, timeout, raster types only), name them safely and uniquely, and
// rewrite the Markdown to the relative paths. Images that fail keep their absolute URL.

export const IMAGE_LIMITS = { timeoutMs: 15000, maxBytes: 20 * 1024 * 1024, totalBytes: 100 * 1024 * 1024,
  maxImages: 300, parallel: 6 };

// Raster types only: an SVG file on disk opened in a browser runs its scripts (file:// origin).
const EXT_BY_TYPE = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/jpg': 'jpg', 'image/gif': 'gif',
  'image/webp': 'webp', 'image/avif': 'avif', 'image/bmp': 'bmp' };
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

// ![alt](target "title"): readwell escapes ] \ in alt with a backslash and percent-encodes spaces, parentheses
// and angle brackets in targets (render_markdown.esc_url), so a target is a run of non-space, non-")" bytes.
const IMAGE_RE = /(?<!\\)(!\[(?:\\.|[^\]\\\n])*\]\()([^\s)]+)((?:\s+"(?:\\.|[^"\\\n])*")?\))/g;
const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/;

/** Markdown target -> URL (readwell writes "\&" before an entity-like "&"). */
const targetUrl = (t) => t.replace(/\\&/g, '&');

/** Call fn(match, prefix, target, suffix) for image targets outside fenced code and inline code spans. */
function mapImages(markdown, fn) {
  const lines = markdown.split('\n');
  let fence = null;
  for (let i = 0; i < lines.length; i++) {
    const m = FENCE_RE.exec(lines[i]);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
      continue;
    }
    if (m) { fence = m[1]; continue; }
    // split off inline code spans (`...`, ``...``) and only touch the parts between them
    lines[i] = lines[i].split(/(`+[^`]*`+)/).map((part, j) => (j % 2 ? part : part.replace(IMAGE_RE, fn))).join('');
  }
  return lines.join('\n');
}

/** The distinct http(s) image URLs in readwell's Markdown, in order. */
export function imageUrls(markdown) {
  const seen = new Set();
  mapImages(markdown, (all, pre, target) => {
    const url = targetUrl(target);
    if (/^https?:\/\//i.test(url)) seen.add(url);
    return all;
  });
  return Array.from(seen);
}

/** Replace image targets found in `paths` (URL -> relative path, already URL-encoded). */
export function rewriteImages(markdown, paths) {
  return mapImages(markdown, (all, pre, target, post) => {
    const rel = paths.get(targetUrl(target));
    return rel ? `${pre}${rel}${post}` : all;
  });
}

/** A safe, unique (case-insensitively, within `taken`) file name for an image: [A-Za-z0-9_-] stem from the
 * URL's last path segment, extension from the content type. */
export function imageFileName(url, ext, taken) {
  let stem = '';
  try {
    const seg = new URL(url).pathname.split('/').filter(Boolean).pop() || '';
    let decoded = seg;
    try { decoded = decodeURIComponent(seg); } catch { /* keep as is */ }
    stem = decoded.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  } catch { /* not a URL */ }
  stem = stem.normalize('NFKD').replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[-_]+|[-_]+$/g, '').slice(0, 60)
    .replace(/[-_]+$/, '');
  if (!stem) stem = 'image';
  if (RESERVED.test(stem)) stem = `img-${stem}`;
  let name = `${stem}.${ext}`;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${stem}-${n}.${ext}`;
  taken.add(name.toLowerCase());
  return name;
}

function sniff(b) {
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) return 'image/gif';
  if (b.length >= 12 && b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57
      && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50) return 'image/webp';
  return null;
}

/** Fetch one image: { bytes, type, ext } or { error }. No cookies, no referrer; http/https only; aborts past
 * the time limit or the byte cap (per image and what is left of the total budget). */
export async function fetchImage(url, budget, limits = IMAGE_LIMITS) {
  if (!/^https?:\/\//i.test(url)) return { error: 'not http(s)' };
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), limits.timeoutMs);
  try {
    const res = await fetch(url, { signal: ctl.signal, credentials: 'omit', referrerPolicy: 'no-referrer',
      redirect: 'follow' });
    if (!res.ok) return { error: `HTTP ${res.status}` };
    if (!/^https?:/i.test(res.url || url)) return { error: 'redirected off http(s)' };
    const cap = Math.min(limits.maxBytes, budget.left);
    const declared = Number(res.headers.get('content-length') || 0);
    if (declared > cap) return { error: `too large (${declared} bytes)` };
    const reader = res.body.getReader();
    const chunks = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > cap) { ctl.abort(); return { error: 'too large' }; }
      chunks.push(value);
    }
    const bytes = new Uint8Array(size);
    let off = 0;
    for (const c of chunks) { bytes.set(c, off); off += c.length; }
    let type = (res.headers.get('content-type') || '').split(';')[0].trim().toLowerCase();
    if (!EXT_BY_TYPE[type]) type = /^(|application\/octet-stream|binary\/octet-stream)$/.test(type) ? sniff(bytes) : null;
    if (!type || !EXT_BY_TYPE[type]) return { error: 'not a raster image' };
    budget.left -= size;
    return { bytes, type, ext: EXT_BY_TYPE[type] };
  } catch (err) {
    return { error: ctl.signal.aborted ? 'timed out' : String((err && err.message) || err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Run fn over items with at most `n` at a time; results in order. */
export async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => { while (next < items.length) { const i = next++; out[i] = await fn(items[i], i); } };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}
