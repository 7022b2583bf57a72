"""``is_probably_readerable``: a cheap verdict, separate from the full extraction.

Readability's predictor sums sqrt(len - 140) over single ``<p>``/``<pre>`` nodes of 140+ characters, which
misses articles written as list items, as many short paragraphs, or (with its default cut-offs) pages whose
text sits in one container of short blocks. Here text blocks (p, pre, li, blockquote, dd, div-as-p) with
low link density are grouped by their parent container, and each container's *total* prose counts:
sqrt(total - 140) summed. Navigation, footers, asides and unlikely class names are skipped, so a page of
links and four words stays below the threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .dom import Document, Element, Text
from .measure import measure
from .signals import SKIP_TAGS, UNLIKELY_TAGS, is_unlikely

BLOCKS = frozenset({"p", "pre", "li", "blockquote", "dd", "td", "article", "section", "div"})
THRESHOLD = 20.0
MIN_BLOCK_UNITS = 25


@dataclass(frozen=True)
class Readerable:
    value: bool
    score: float

    def to_dict(self) -> dict[str, object]:
        return {"value": self.value, "score": self.score}

    def __bool__(self) -> bool:
        return self.value


def readerable_of(doc: Document, threshold: float = THRESHOLD) -> Readerable:
    body = doc.body
    stats = measure(body)
    body_units = stats[body.nid].units
    per_container: dict[int, int] = {}
    stack: list[Element] = [body]
    while stack:
        el = stack.pop()
        if el.tag in SKIP_TAGS or el.tag in UNLIKELY_TAGS:
            continue
        if el is not body and is_unlikely(el, stats, body_units):
            continue
        kids = [c for c in el.children if isinstance(c, Element)]
        if el.tag in BLOCKS and _is_text_block(el):
            st = stats[el.nid]
            if st.units >= MIN_BLOCK_UNITS and st.link_density < 0.5 and (st.marks >= 1 or st.units >= 140):
                parent = el.parent
                key = parent.nid if parent is not None else el.nid
                per_container[key] = per_container.get(key, 0) + int(st.units * (1 - st.link_density))
            continue
        stack.extend(kids)
    score = sum(math.sqrt(total - 140) for total in per_container.values() if total > 140)
    return Readerable(score >= threshold, round(score, 2))


def _is_text_block(el: Element) -> bool:
    """A block whose own content is inline (text, links, emphasis), not further blocks."""
    if el.tag in ("p", "pre", "blockquote", "dd", "li"):
        return not any(
            isinstance(c, Element) and c.tag in ("p", "div", "ul", "ol", "table", "section")
            for c in el.children
        )
    has_text = any(isinstance(c, Text) and c.data.strip() for c in el.children)
    return has_text and not any(
        isinstance(c, Element) and c.tag in BLOCKS | {"ul", "ol", "table", "h1", "h2", "h3"}
        for c in el.children
    )
