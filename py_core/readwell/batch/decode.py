"""Bytes of a crawled page → text, and the checks that turn a bad record into a status instead of garbage.

Why not leave decoding to the parser: crawl records carry the server's charset (the HTTP header, often the
only truth for legacy pages, and sometimes wrong), and the parser's fallback for undeclared non-UTF-8 bytes
is windows-1252 whatever the language. The order here is the one WARC tools settled on (warcio #142,
cc-pyspark #22): byte-order mark, then the HTTP charset, then the page's own ``<meta>`` declaration, then
detection (valid UTF-8; else charset-normalizer when the ``batch`` extra is installed; else windows-1252).
A declared charset whose strict decode fails is skipped (servers mislabel pages), so the next candidate
decides; labels are resolved as browsers do (WHATWG: ``latin1`` means windows-1252).
"""

from __future__ import annotations

import codecs
import re

import webencodings

# A page's own declaration must sit in the first 1024 bytes by the HTML spec; real pages overrun that.
PRESCAN_BYTES = 4096
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))

# Not a web page at all: the first bytes of formats crawls are full of.
BINARY_MAGIC = (
    (b"%PDF-", "PDF"),
    (b"\x89PNG", "PNG image"),
    (b"GIF8", "GIF image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"RIFF", "RIFF media"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip data"),
    (b"\x00\x00\x01\x00", "icon"),
    (b"wOF", "web font"),
)
HTML_TYPES = ("text/html", "application/xhtml+xml", "application/xml", "text/xml", "text/plain")
# Share of U+FFFD and C0 control characters in the decoded head above which the bytes are not text in any
# encoding we tried (binary data, or an encoding beyond repair): decode_error instead of an empty article.
MAX_BAD_SHARE = 0.1
CHECK_CHARS = 20_000
_BAD_CHARS = re.compile("[\ufffd\x00-\x08\x0b\x0e-\x1f]")


def codec_name(label: str | None) -> str | None:
    """The Python codec of a charset label as browsers resolve it, or None for an unknown label."""
    if not label:
        return None
    enc = webencodings.lookup(label.strip().strip("\"'"))
    if enc is None or enc.name == "replacement":
        return None
    return enc.codec_info.name


def declared_in_page(data: bytes) -> str | None:
    """The charset a ``<meta charset>`` or ``<meta http-equiv=content-type>`` in the page's head declares."""
    m = _META_CHARSET.search(data[:PRESCAN_BYTES])
    return m.group(1).decode("ascii") if m else None


def detect(data: bytes) -> str:
    """Valid UTF-8, else charset-normalizer's best guess (optional), else windows-1252 (the web's default)."""
    try:
        data.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        import charset_normalizer
    except ImportError:
        return "cp1252"
    best = charset_normalizer.from_bytes(data[:200_000]).best()
    guess = codec_name(best.encoding) if best is not None else None
    return guess or "cp1252"


def decode(data: bytes, http_charset: str | None = None) -> tuple[str, str]:
    """(text, codec used). Never raises: the last candidate decodes with replacement characters."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(name, "replace"), name
    candidates = [codec_name(http_charset), codec_name(declared_in_page(data))]
    for cand in candidates:
        if cand is None:
            continue
        if cand.startswith("utf-16"):  # a page that declares UTF-16 in ASCII bytes is not UTF-16
            cand = "utf-8"
        try:
            return data.decode(cand), cand
        except UnicodeDecodeError:
            continue
    guess = detect(data)
    return data.decode(guess, "replace"), guess


def binary_kind(data: bytes) -> str | None:
    """What a non-HTML payload is (by its magic bytes), or None when it may be a page."""
    head = data[:16].lstrip()
    for magic, kind in BINARY_MAGIC:
        if head.startswith(magic):
            return kind
    return None


def is_html_type(content_type: str | None) -> bool:
    """A missing type may be HTML; a declared image, script or PDF is not."""
    if not content_type:
        return True
    return content_type.split(";")[0].strip().lower() in HTML_TYPES


def bad_share(text: str) -> float:
    """Share of replacement and control characters in the head of ``text`` (0 for empty text)."""
    head = text[:CHECK_CHARS]
    return len(_BAD_CHARS.findall(head)) / len(head) if head else 0.0
