"""Readers of the document head: ``<meta>`` values, ``<link rel>`` targets, the ``<title>`` element."""

from __future__ import annotations

import html as html_lib
import re

from ..dom import Document, Element, normalize_space

_ENTITY = re.compile(r"&(#\d{2,7}|#x[0-9a-fA-F]{2,6}|[a-zA-Z]{2,10});")
META_KEYS = ("property", "name", "itemprop", "http-equiv")  # attributes that name a <meta> value


def unescape_once(s: str) -> str:
    """Meta values are often double-escaped (``&amp;#163;``): decode one more level. Values stay plain
    strings and are escaped again wherever they are rendered."""
    return html_lib.unescape(s) if _ENTITY.search(s) else s


def elements_by_tag(
    doc: Document, tags: frozenset[str], elements: list[Element] | None = None
) -> dict[str, list[Element]]:
    """Every element of the document whose tag is in ``tags``, by tag, in document order: one walk serves
    the head readers that would each walk the whole page (``meta_map``, ``jsonld_objects``, headings).
    ``elements``: ``list(doc.root.iter())`` when the caller has it."""
    found: dict[str, list[Element]] = {t: [] for t in tags}
    for e in doc.root.iter() if elements is None else elements:
        if e.tag in tags:
            found[e.tag].append(e)
    return found


def meta_map(doc: Document, metas: list[Element] | None = None) -> dict[str, str]:
    """First value of each ``<meta>`` keyed by lower-cased property/name/itemprop/http-equiv.

    ``metas``: the document's ``<meta>`` elements when the caller has them (``elements_by_tag``)."""
    out: dict[str, str] = {}
    for m in doc.root.iter() if metas is None else metas:
        if m.tag != "meta":
            continue
        content = m.get("content")
        if not content.strip():
            continue
        for key in META_KEYS:
            k = m.get(key).strip().lower()
            if k and k not in out:
                out[k] = normalize_space(unescape_once(content))
    return out


def link_hrefs(doc: Document, rels: frozenset[str]) -> list[str]:
    """``href`` of every head ``<link>`` whose ``rel`` names one of ``rels``, in document order."""
    return [
        link.get("href")
        for link in doc.head.iter()
        if link.tag == "link" and rels & set(link.get("rel").lower().split())
    ]


def title_text(doc: Document) -> str:
    """Text of the head's ``<title>``."""
    el = next((e for e in doc.head.iter() if e.tag == "title"), None)
    return normalize_space(el.text()) if el is not None else ""
