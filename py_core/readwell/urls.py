"""URL helpers shared by stages, metadata and the sanitizer: the page's base URL and scheme safety.

Scheme checks run on the *decoded* value: entities are already decoded by the parser; here whitespace and
control characters are stripped and case folded, because browsers ignore them in a scheme
(``java\\tscript:``, `` JaVaScRiPt:``).
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from .dom import Document

_CTRL = re.compile(
    r"[\x00-\x20\x7f-\x9f\u00a0\u1680\u180e\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]+"
)
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_ASCII_WS = " \t\n\r\x0c"


def scheme_of(url: str) -> str | None:
    """The scheme a browser would see, lower-cased; None for relative URLs."""
    cleaned = _CTRL.sub("", url)
    m = _SCHEME.match(cleaned)
    return m.group(1).lower() if m else None


def is_safe_url(url: str, allow_data_image: bool = False) -> bool:
    """http, https, mailto, relative, and (``allow_data_image``) ``data:image/<raster>``. A URL Python cannot
    parse (``https://exam[ple.org`` raises "Invalid IPv6 URL") is refused too: bleach, the last defence, refuses
    it, and the two layers must agree (the tests check that bleach finds nothing left to remove)."""
    try:
        urlsplit(url)
    except ValueError:
        return False
    s = scheme_of(url)
    if s is None:
        cleaned = _CTRL.sub("", url)
        # "//host" is protocol-relative (fine); a colon before any slash would be a scheme in disguise
        return ":" not in cleaned.split("/")[0] or cleaned.startswith("//")
    if s in SAFE_SCHEMES:
        return True
    if allow_data_image and s == "data":
        return bool(re.match(r"^data:image/(png|gif|jpe?g|webp|avif|bmp);", _CTRL.sub("", url), re.I))
    return False


def base_url(doc: Document, page_url: str | None) -> str | None:
    """The document base: ``<base href>`` (http/https only) resolved against the page URL."""
    for el in doc.head.iter(include_self=False):
        if el.tag == "base" and el.get("href").strip():
            href = el.get("href").strip()
            try:
                cand = urljoin(page_url, href) if page_url else href
            except ValueError:
                break
            if scheme_of(cand) in ("http", "https"):
                return cand
            break
    return page_url


def split_srcset(value: str) -> list[tuple[str, str]]:
    """``srcset`` candidates as (url, descriptor), split the way a browser splits them (HTML "parse a srcset
    attribute"): only ASCII whitespace separates a URL from its descriptor, a URL ending in commas ends its
    candidate, a descriptor runs to the next comma outside parentheses. Why not ``\\s`` or ``str.split``: to
    Python ``\\x1c``-``\\x1f`` are whitespace, so ``\\x01\\x1fjavascript:x`` would look like the URL
    ``\\x01`` with a descriptor, while a browser reads one URL whose scheme, once control characters are
    stripped, is ``javascript``. Commas inside a URL (``data:image/png;base64,...``) stay in it."""
    items: list[tuple[str, str]] = []
    i, n = 0, len(value)
    while i < n:
        while i < n and (value[i] in _ASCII_WS or value[i] == ","):
            i += 1
        j = i
        while j < n and value[j] not in _ASCII_WS:
            j += 1
        url, desc = value[i:j], ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            k, depth = j, 0
            while k < n and (value[k] != "," or depth > 0):
                depth += 1 if value[k] == "(" else -1 if value[k] == ")" else 0
                k += 1
            desc, j = value[j:k].strip(_ASCII_WS), k
        if url:
            items.append((url, desc))
        i = j + 1 if j < n and value[j] == "," else j
    return items


def srcset_urls(value: str) -> list[str]:
    return [u for u, _ in split_srcset(value)]
