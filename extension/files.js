// Saved-file helpers for the service worker: names that are safe on Windows, macOS and Linux, and data: URLs
// (the service worker has no URL.createObjectURL).
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/** A file name from the page title: no path separators (the usual ones become '-'), reserved characters,
 * control characters, trailing dots or spaces, Windows device names; at most ~120 characters; never empty. */
export function safeFilename(title, ext) {
  let name = String(title || '')
    .normalize('NFC')
    .replace(/[\p{Cc}\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/gu, '') // \p{Cc}: U+0000-001F, U+007F-009F
    // punctuation keeps its role where a safe character can play it: "A: B" -> "A - B", "10:30" -> "10-30",
    // "and/or" -> "and-or", quotes -> apostrophes; the rest of <>:"/\\|?*~ goes
    .replace(/\s*:\s+/g, ' - ')
    .replace(/[:/\\|]/g, '-')
    .replace(/"/g, "'")
    .replace(/[<>?*~]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+|[.\s]+$/g, '');
  // Cut on a code point boundary, then trim again (a cut may leave a trailing dot or space).
  const cps = Array.from(name);
  if (cps.length > 120) name = cps.slice(0, 120).join('').replace(/[.\s]+$/g, '');
  if (!name || RESERVED.test(name.split('.')[0])) name = name ? `${name} article` : 'article';
  return `${name}.${ext}`;
}

export function dataUrl(text, mime) {
  return bytesDataUrl(new TextEncoder().encode(text), `${mime};charset=utf-8`);
}

export function bytesDataUrl(bytes, mime) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return `data:${mime};base64,${btoa(bin)}`;
}
