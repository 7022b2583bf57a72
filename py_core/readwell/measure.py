"""One bottom-up pass that measures every element: text units, link text units, clause marks, paragraphs.

Why a pass instead of per-element ``text()`` calls: scoring asks these questions for every ancestor of every
paragraph; recomputing subtree text each time is quadratic on big pages. Stages that change the tree call
``measure`` again (one linear pass).
"""

from __future__ import annotations

from dataclasses import dataclass

from .dom import NON_TEXT, Element, Text
from .textstats import clause_marks, text_units


@dataclass(slots=True)
class Stat:
    units: int = 0
    link_units: float = 0.0
    marks: int = 0
    paragraphs: int = 0
    images: int = 0
    list_items: int = 0
    inputs: int = 0
    headings: int = 0
    embeds: int = 0

    @property
    def link_density(self) -> float:
        return min(1.0, self.link_units / self.units) if self.units else 0.0


def measure(root: Element) -> dict[int, Stat]:
    """Stats for ``root`` and every element below it, keyed by node id."""
    stats: dict[int, Stat] = {}
    order: list[Element] = list(root.iter())
    for el in reversed(order):  # children before parents
        s = Stat()
        in_link = el.tag == "a" and bool(el.attrs.get("href"))
        if el.tag in NON_TEXT:
            stats[el.nid] = s  # code, not text: contributes nothing to its ancestors
            continue
        for c in el.children:
            if isinstance(c, Text):
                u = text_units(c.data)
                s.units += u
                s.marks += clause_marks(c.data)
                if in_link:
                    s.link_units += u * (0.3 if el.attrs["href"].startswith("#") else 1.0)
            elif isinstance(c, Element):
                cs = stats[c.nid]
                s.units += cs.units
                s.marks += cs.marks
                s.paragraphs += cs.paragraphs
                s.images += cs.images
                s.list_items += cs.list_items
                s.inputs += cs.inputs
                s.headings += cs.headings
                s.embeds += cs.embeds
                if in_link:
                    # nested links count once: the whole child text is link text
                    s.link_units += cs.units * (0.3 if el.attrs["href"].startswith("#") else 1.0)
                else:
                    s.link_units += cs.link_units
        t = el.tag
        if t == "p":
            s.paragraphs += 1
        elif t == "img":
            s.images += 1
        elif t == "li":
            s.list_items += 1
        elif t in ("input", "select", "textarea", "button"):
            s.inputs += 1
        elif t in ("h1", "h2", "h3", "h4", "h5", "h6"):
            s.headings += 1
        elif t in ("iframe", "embed", "object", "video", "audio"):
            s.embeds += 1
        stats[el.nid] = s
    return stats
