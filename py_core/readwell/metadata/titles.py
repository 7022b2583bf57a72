"""The article title from a page title that often carries the site name (pure functions)."""

from __future__ import annotations

import re

from ..dom import normalize_space
from ..rules import TITLE_SEPARATORS

MIN_TITLE_WORDS = 3  # a part this long reads as an article title; site names are shorter
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")


def clean_title(raw: str, site_name: str | None, h1s: list[str]) -> str:
    """Drop the site-name part of a ``Title | Site`` title; keep colons and in-title dashes.

    In order: a part equal to one of the page's ``<h1>`` texts is the title; else the parts that are not
    (and do not contain) the site name; else the first or last part when it has several words and the other
    end has fewer; else the whole title.
    """
    title = normalize_space(raw)
    if not title:
        return ""
    parts = [p.strip() for p in TITLE_SEPARATORS.split(title) if p.strip()]
    if len(parts) < 2:
        return title
    low_h1 = {h.lower() for h in h1s}
    for p in parts:
        if p.lower() in low_h1:
            return p
    if site_name:
        sn = site_name.lower()
        rest = [p for p in parts if p.lower() != sn and sn not in p.lower()]
        if rest and len(rest) < len(parts):
            return _join_rest(title, rest)
    first, last = parts[0], parts[-1]
    if _words(first) >= MIN_TITLE_WORDS and _words(first) >= _words(last):
        return first
    if _words(last) >= MIN_TITLE_WORDS and _words(last) > _words(first):
        return last
    return title


def _join_rest(title: str, rest: list[str]) -> str:
    """The span of ``title`` from the first to the last kept part (separators inside it stay)."""
    if len(rest) == 1:
        return rest[0]
    start = title.find(rest[0])
    end = title.find(rest[-1]) + len(rest[-1])
    return title[start:end] if 0 <= start < end else rest[0]


def _words(s: str) -> int:
    """Words, counting two CJK characters as one (CJK titles have no spaces)."""
    return len(s.split()) + len(_CJK.findall(s)) // 2
