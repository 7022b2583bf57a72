"""URL helpers shared by stages, metadata and the sanitizer: the page's base URL and scheme safety.

Scheme checks run on the *decoded* value: entities are already decoded by the parser; here whitespace and
control characters are stripped and case folded, because browsers ignore them in a scheme
(``java\\tscript:``, `` JaVaScRiPt:``).
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

from .dom import Document

_CTRL = re.compile(r"[\x00-\x20\x7f-\x9f\u00a0\u1680\u180e\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]+")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})


def scheme_of(url: str) -> str | None:
    """The scheme a browser would see, lower-cased; None for relative URLs."""
    cleaned = _CTRL.sub("", url)
    m = _SCHEME.match(cleaned)
    return m.group(1).lower() if m else None


def is_safe_url(url: str, allow_data_image: bool = False) -> bool:
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
    """``srcset`` items as (url, descriptor). URLs may contain commas, descriptors never do."""
    items: list[tuple[str, str]] = []
    for m in re.finditer(r"\s*(\S+?)(?:\s+([^,]*))?\s*(?:,|$)", value):
        url, desc = m.group(1).rstrip(","), (m.group(2) or "").strip()
        if url:
            items.append((url, desc))
    return items


def srcset_urls(value: str) -> list[str]:
    return [u for u, _ in split_srcset(value)]
