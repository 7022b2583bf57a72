"""``is_probably_readerable``: a cheap verdict, separate from the full extraction.

Readability's predictor sums sqrt(len - 140) over single ``<p>``/``<pre>`` nodes of 140+ characters, which
misses articles written as list items, as many short paragraphs, or (with its default cut-offs) pages whose
text sits in one container of short blocks. Here text blocks (p, pre, li, blockquote, dd, div-as-p) with
low link density are grouped by their parent container, and each container's *total* prose counts:
sqrt(total - 140) summed. Navigation, footers, asides and unlikely class names are skipped, so a page of
links and four words stays below the threshold.

Two cases Readability's sum misses and the extraction finds (the two verdicts must agree): text written
directly in a container beside block children (``<div><h1>…</h1>Text…</div>``) counts as a block of that
container, and one container holding a paragraph of real prose (``ONE_BLOCK_UNITS``) is an article even when
the square-root sum stays under the threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .dom import Document, Element, Node, Text
from .measure import Stat, measure, text_measures
from .signals import SKIP_TAGS, UNLIKELY_BY_TAG, UNLIKELY_TAGS, is_unlikely
from .textstats import BLOCK_TAGS

BLOCKS = frozenset({"p", "pre", "li", "blockquote", "dd", "td", "article", "section", "div"})
THRESHOLD = 20.0
MIN_BLOCK_UNITS = 25
# One container with this much low-link prose is an article by itself (about three sentences: a short news
# item); Readability's sqrt(total - 140) >= 20 asks for 540 characters in one container.
ONE_BLOCK_UNITS = 400


@dataclass(frozen=True)
class Readerable:
    value: bool
    score: float

    def to_dict(self) -> dict[str, object]:
        return {"value": self.value, "score": self.score}

    def __bool__(self) -> bool:
        return self.value


def readerable_of(
    doc: Document, threshold: float = THRESHOLD, stats: dict[int, Stat] | None = None
) -> Readerable:
    """The verdict for ``doc``; ``stats`` is ``measure(doc.body)`` when the caller has it (extraction
    measures the body once and hands the measures on to root selection)."""
    body = doc.body
    if stats is None:
        stats = measure(body)
    body_units = stats[body.nid].units
    per_container: dict[int, int] = {}
    # Children are pushed whole (last first, as before) and text nodes skipped when popped: the same elements
    # in the same order, without a filtered list per element.
    stack: list[Node] = [body]
    while stack:
        el = stack.pop()
        if el.__class__ is not Element:
            continue
        tag = el.tag
        if tag in SKIP_TAGS or tag in UNLIKELY_TAGS:
            continue
        # (``is_unlikely`` answers None for an element without attributes or layout and not of
        # UNLIKELY_BY_TAG: most elements, not asked)
        if (
            el is not body
            and (el.attrs or el.layout is not None or tag in UNLIKELY_BY_TAG)
            and is_unlikely(el, stats, body_units)
        ):
            continue
        if el.tag in BLOCKS and _is_text_block(el):
            st = stats[el.nid]
            if st.units >= MIN_BLOCK_UNITS and st.link_density < 0.5 and (st.marks >= 1 or st.units >= 140):
                parent = el.parent
                key = parent.nid if parent is not None else el.nid
                per_container[key] = per_container.get(key, 0) + int(st.units * (1 - st.link_density))
            continue
        loose = _loose_text(el)
        if loose >= MIN_BLOCK_UNITS:
            per_container[el.nid] = per_container.get(el.nid, 0) + loose
        stack += el.children
    score = sum(math.sqrt(total - 140) for total in per_container.values() if total > 140)
    one_block = max(per_container.values(), default=0) >= ONE_BLOCK_UNITS
    return Readerable(score >= threshold or one_block, round(score, 2))


_NOT_LOOSE = BLOCK_TAGS | SKIP_TAGS | {"a"}


def _loose_text(el: Element) -> int:
    """Units of sentence text written directly in a container that also holds blocks (links not counted).

    Asked of every container the verdict's walk enters: most hold only blocks and white space between
    them, which has no units (``text_units`` of white space is 0), so that answer is not looked up."""
    parts: list[str] = []
    for c in el.children:
        if c.__class__ is Text:
            parts.append(c.data)
        elif (
            c.__class__ is Element
            and c.tag not in _NOT_LOOSE
            and not (c.children and any(e.tag in _NOT_LOOSE for e in c.iter(include_self=False)))
        ):
            parts.append(c.text())
    if not parts:
        return 0
    text = " ".join(parts)
    if text.isspace():
        return 0
    units, marks = text_measures(text)  # text_units and clause_marks, remembered for short strings
    return units if units and marks >= 1 else 0


def _is_text_block(el: Element) -> bool:
    """A block whose own content is inline (text, links, emphasis), not further blocks."""
    if el.tag in ("p", "pre", "blockquote", "dd", "li"):
        return not any(
            isinstance(c, Element) and c.tag in ("p", "div", "ul", "ol", "table", "section")
            for c in el.children
        )
    has_text = any(isinstance(c, Text) and c.data.strip() for c in el.children)
    return has_text and not any(isinstance(c, Element) and c.tag in _INNER_BLOCKS for c in el.children)


_INNER_BLOCKS = BLOCKS | {
    "ul",
    "ol",
    "table",
    "h1",
    "h2",
    "h3",
}  # children that make a block not a text block
