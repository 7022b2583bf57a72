"""Class/id names masked in a page's HTML: the stand-in for a template whose names our lists do not know.

The held-out sets are pages whose templates we never saw, so their class and id vocabulary is the unknown.
Masking every class/id token that contains a word of a name family (``comment``, ``footer|header``, ...)
with ``x`` shows how much a result leans on those names. ``benchmarks/names_masked.py`` runs the extractor on
masked pages (the names-masked probe); ``readwell.bench.train`` trains the learned root model on masked
copies of the pages too, so that it does not learn to trust names a new template will not have.
"""

from __future__ import annotations

import random
import re

_ATTR = re.compile(rb"""(\s(?:class|id)\s*=\s*)("[^"]*"|'[^']*'|[^\s"'>]+)""", re.I)
_SPACE = re.compile(rb"(\s+)")

# The name families of the probes (benchmarks/README.md, "Names-masked probes beyond comments"): each is
# a pattern matched inside class/id tokens. A masked training copy of a page has one of them masked.
FAMILIES: tuple[str, ...] = (
    "comment",
    "share|social",
    "related|recommend|more",
    "sidebar|aside|widget",
    "nav|menu",
    "footer|header",
    "(^|[-_])ads?([-_]|$)|promo|sponsor",
    "byline|author",
    "caption|credit",
    "content|article|post|entry|story|body",
)


def mask(html: bytes, pattern: str) -> bytes:
    """``html`` with every class/id token containing ``pattern`` (case-insensitive) replaced by ``x``."""
    word = re.compile(pattern.encode(), re.I)

    def sub(m: re.Match[bytes]) -> bytes:
        v = m.group(2)
        q = v[:1] if v[:1] in (b'"', b"'") else b""
        inner = v[1:-1] if q else v
        toks = [b"x" if word.search(t) else t for t in _SPACE.split(inner)]
        return m.group(1) + q + b"".join(toks) + q

    return _ATTR.sub(sub, html)


def family_of(seed: int, set_name: str, page_id: str, families: tuple[str, ...] = FAMILIES) -> str:
    """The family masked in a page's training copy: a draw seeded by the page alone, so a page keeps its
    family whatever else is in the corpus."""
    return random.Random(f"{seed}:{set_name}:{page_id}").choice(families)
