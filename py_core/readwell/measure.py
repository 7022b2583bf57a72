"""One bottom-up pass that measures every element: text units, link text units, clause marks, paragraphs.

Why a pass instead of per-element ``text()`` calls: scoring asks these questions for every ancestor of every
paragraph; recomputing subtree text each time is quadratic on big pages. Stages that change the tree call
``measure`` again (one linear pass).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import deadline
from .dom import INTERNAL_ATTR_PREFIX, NON_TEXT, Element, Text
from .textstats import clause_marks, text_units

# Our mark on the paragraph standing for a video player while the stages run (``video``): ``data-readwell-*``
# cannot come from the page (every parser drops it), so measures and the sanitizer can trust it. The
# sanitizer writes the public ``data-embed="video"`` from it and drops a page-written ``data-embed``.
VIDEO_MARK = INTERNAL_ATTR_PREFIX + "embed"


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
    videos: int = 0  # video players already turned into a link paragraph (normalize_structures)

    @property
    def link_density(self) -> float:
        return min(1.0, self.link_units / self.units) if self.units else 0.0


# Text measures by text: one extraction measures the same text nodes up to five times (readerable, root
# selection, removal stages, the final check), and pages repeat short strings. Only strings up to
# _MEMO_MAX_CHARS are kept, and the table is emptied when it holds _MEMO_MAX_ENTRIES strings or
# _MEMO_BUDGET characters, so memory stays bounded in a long-running server (at most 32 million characters,
# less than the 100 million that 50,000 entries of 2,000 characters allowed before). The limits are set so
# that one very large page (70,000 paragraphs, 20 MB) fits: when the table was emptied in the middle of a
# page, every later measuring pass over it missed every text.
_TEXT_MEMO: dict[str, tuple[int, int]] = {}
_MEMO_MAX_ENTRIES = 200_000
_MEMO_MAX_CHARS = 2_000
_MEMO_BUDGET = 32_000_000  # characters of all kept strings
_memo_chars = 0


def text_measures(s: str) -> tuple[int, int]:
    """``(text_units(s), clause_marks(s))``, remembered for short strings."""
    global _memo_chars
    found = _TEXT_MEMO.get(s)
    if found is None:
        found = (text_units(s), clause_marks(s))
        if len(s) <= _MEMO_MAX_CHARS:
            if len(_TEXT_MEMO) >= _MEMO_MAX_ENTRIES or _memo_chars >= _MEMO_BUDGET:
                _TEXT_MEMO.clear()
                _memo_chars = 0
            _TEXT_MEMO[s] = found
            _memo_chars += len(s)
    return found


# Which count an element adds to itself (and so to its ancestors), by tag: see ``stat_of``.
_PARAGRAPH, _IMAGE, _LIST_ITEM, _INPUT, _HEADING, _EMBED = range(6)
_OWN_COUNT: dict[str, int] = {
    "p": _PARAGRAPH,
    "img": _IMAGE,
    "li": _LIST_ITEM,
    **dict.fromkeys(("input", "select", "textarea", "button"), _INPUT),
    **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), _HEADING),
    **dict.fromkeys(("iframe", "embed", "object", "video", "audio"), _EMBED),
}


def units_of(s: str) -> int:
    """``text_units(s)``, from the memo when ``s`` was measured (a text of the page ``measure`` went over)."""
    found = _TEXT_MEMO.get(s)
    return text_units(s) if found is None else found[0]


def measure(root: Element) -> dict[int, Stat]:
    """Stats for ``root`` and every element below it, keyed by node id.

    The same sums as ``stat_of`` on every element, children before parents, in the same order (so the float
    link units are the same to the last bit), written as one loop: every extraction measures whole pages
    several times and this is its hottest loop."""
    dl = deadline.current()
    order: list[Element] = []
    stack: list[Element] = [root]
    pop = stack.pop
    while stack:
        el = pop()
        order.append(el)  # (``x.append``, not a bound ``append``: see ``Element.iter``)
        for c in el.children:
            if c.__class__ is Element:
                stack.append(c)
    if dl is not None:
        dl.tick(len(order))
    stats: dict[int, Stat] = {}
    memo = _TEXT_MEMO
    own_count = _OWN_COUNT
    non_text = NON_TEXT
    new_stat = Stat.__new__
    for el in reversed(order):  # every element after all of its descendants
        tag = el.tag
        if tag in non_text:
            stats[el.nid] = Stat()  # code, not text: contributes nothing to its ancestors
            continue
        attrs = el.attrs
        if attrs and attrs.get(VIDEO_MARK) == "video":
            stats[el.nid] = Stat(videos=1)  # a player, not text (see ``stat_of``)
            continue
        units = marks = paragraphs = images = list_items = inputs = headings = embeds = videos = 0
        link = 0.0
        href = attrs.get("href") if tag == "a" else None
        weight = (0.3 if href.startswith("#") else 1.0) if href else 0.0
        for c in el.children:
            if c.__class__ is Element:
                cs = stats[c.nid]
                units += cs.units
                marks += cs.marks
                paragraphs += cs.paragraphs
                images += cs.images
                list_items += cs.list_items
                inputs += cs.inputs
                headings += cs.headings
                embeds += cs.embeds
                videos += cs.videos
                if href:
                    link += cs.units * weight  # nested links count once: all child text is link text
                else:
                    link += cs.link_units
            else:
                data = c.data  # type: ignore[attr-defined]
                found = memo.get(data)
                if found is None:
                    found = text_measures(data)
                units += found[0]
                marks += found[1]
                if href:
                    link += found[0] * weight
        kind = own_count.get(tag)
        if kind is not None:
            if kind == _PARAGRAPH:
                paragraphs += 1
            elif kind == _IMAGE:
                images += 1
            elif kind == _LIST_ITEM:
                list_items += 1
            elif kind == _INPUT:
                inputs += 1
            elif kind == _HEADING:
                headings += 1
            else:
                embeds = 1  # players inside a player are one player (<object><embed> of old embed code)
        # ``Stat(units, link, ...)`` without the call into its generated ``__init__`` (every slot is set
        # here, in field order): about a third of the cost of making a Stat, for every element of the page
        s = new_stat(Stat)
        s.units = units
        s.link_units = link
        s.marks = marks
        s.paragraphs = paragraphs
        s.images = images
        s.list_items = list_items
        s.inputs = inputs
        s.headings = headings
        s.embeds = embeds
        s.videos = videos
        stats[el.nid] = s
    return stats


def remeasure(stats: dict[int, Stat], changed: list[Element], root: Element) -> None:
    """Bring ``stats`` (``measure(root)``) up to date after the children of ``changed`` elements changed
    (e.g. removals): those and their ancestors up to ``root`` are measured again, deepest first, each once;
    the result equals a fresh ``measure(root)`` for every element still under ``root``."""
    depth: dict[int, int] = {id(root): 0}
    todo: dict[int, Element] = {}
    for el in changed:
        chain: list[Element] = []
        cur: Element | None = el
        while cur is not None and id(cur) not in depth:
            chain.append(cur)
            cur = cur.parent
        if cur is None:
            continue  # no longer under root
        d = depth[id(cur)]
        for e in reversed(chain):
            d += 1
            depth[id(e)] = d
            todo[id(e)] = e
        up: Element | None = el
        while up is not None:
            todo[id(up)] = up
            if up is root:
                break
            up = up.parent
    for el in sorted(todo.values(), key=lambda e: depth[id(e)], reverse=True):
        stats[el.nid] = stat_of(el, stats)


def stat_of(el: Element, stats: dict[int, Stat]) -> Stat:
    """The stats of ``el`` from its text children and its element children's ``stats``."""
    s = Stat()
    if el.tag in NON_TEXT:
        return s  # code, not text: contributes nothing to its ancestors
    if el.attrs.get(VIDEO_MARK) == "video":
        s.videos = 1  # a player, not text: its title link must not read as a link list to its wrapper
        return s
    in_link = el.tag == "a" and bool(el.attrs.get("href"))
    for c in el.children:
        if isinstance(c, Text):
            u, marks = text_measures(c.data)
            s.units += u
            s.marks += marks
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
            s.videos += cs.videos
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
        s.embeds = 1  # players inside a player are one player (see ``measure``)
    return s
