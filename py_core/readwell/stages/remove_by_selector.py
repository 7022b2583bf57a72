"""remove_by_selector: exact selectors and partial class/id token patterns (``rules.py``), logged as such,
and a comment thread closing the root (``remove_trailing_thread``).

After ``remove_low_score``: most boilerplate is already gone by shape; these rules catch blocks that look
like prose (a newsletter ask, a comment thread) but are named as boilerplate. Partial patterns match whole
class/id tokens, and most carry a guard that keeps blocks reading as prose (``Related work`` sections).
"""

from __future__ import annotations

from ..context import EXACT, PARTIAL, Context
from ..dom import NON_TEXT, Element, Node, Text, nodes_after, normalize_space
from ..measure import Stat
from ..metadata import normalize_date
from ..pattern_start import START_CHARS, may_match, start_test
from ..rules import (
    COMMENT_TOKENS,
    THREAD_AUTHOR_LINE,
    THREAD_HEADING,
    THREAD_HEADING_BARE,
    THREAD_ITEM_TOKENS,
    THREAD_NAME_TOKENS,
    bio_headed,
    tokens_of,
)
from ..signals import match_exact, match_partial
from ..textstats import text_units
from ..thresholds import (
    BIO_BOX_MAX_UNITS,
    MOST_OF_ROOT_NAMED,
    THREAD_EMPTY_TAIL_UNITS,
    THREAD_HEADING_MAX_UNITS,
    THREAD_ITEM_SIBLINGS,
    THREAD_LINE_MAX_CHARS,
    THREAD_MIN_BEFORE_UNITS,
    THREAD_MIN_ITEMS,
)

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("remove_low_score",)


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    # First the thread (its start's "comments" name is also a token rule's), then the measures again: the
    # rules below weigh each block against the root's text without the thread.
    remove_trailing_thread(ctx, root, ctx.measure(root))
    stats = ctx.measure(root)
    found: list[tuple[Element, str, str, str]] = []
    root_units = stats[root.nid].units
    title = normalize_space(ctx.meta.title or "").lower()
    stack = [c for c in root.children if isinstance(c, Element)]
    stack.reverse()
    protected = ctx.protected_in_walk(root)  # (the walk below descends into unprotected elements only)
    while stack:
        el = stack.pop()
        if protected(el):
            continue
        toks = tokens_of(el.get("class") + " " + el.get("id"))
        most = el.nid in ctx.core or (root_units and stats[el.nid].units > MOST_OF_ROOT_NAMED * root_units)
        if most and not toks & COMMENT_TOKENS:
            # A wrapper holding most of the article (ASP.NET's page-wide <form>) or the paragraphs scoring
            # chose (a theme's "widget" column holding the post) is never boilerplate.
            stack.extend(reversed([c for c in el.children if isinstance(c, Element)]))
            continue
        exact = match_exact(el)
        partial = match_partial(el, stats[el.nid]) if exact is None else None
        if exact is not None:
            found.append((el, EXACT, exact.id, exact.reason))
            continue
        if partial is not None:
            found.append((el, PARTIAL, partial.id, partial.reason))
            continue
        if headed_bio_box(el, stats[el.nid], title):
            found.append((el, PARTIAL, "author-bio", "author bio box (by its heading)"))
            continue
        stack.extend(reversed([c for c in el.children if isinstance(c, Element)]))
    for el, kind, rule, reason in found:
        ctx.remove(el, kind, rule, reason)


def headed_bio_box(el: Element, st: Stat, title: str) -> bool:
    """A short block headed "About the author" / "About me" (``rules.BIO_HEADING``) inside the root: the
    author's box under the post, named by its heading where its class says nothing (``guestauthor``).
    Not on a page about them (the heading is in the title), and not a long block (an essay)."""
    if el.tag not in ("div", "section", "aside") or st.units > BIO_BOX_MAX_UNITS:
        return False
    return bio_headed(el, title, _HEADINGS)


# Elements that can be a thread's heading (an anchor's or a container's name counts whatever its tag).
_THREAD_HEADING_TAGS = frozenset({"h2", "h3", "h4", "h5", "h6", "p", "div", "strong", "b", "span", "dt"})
_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})
_NOT_EVIDENCE = NON_TEXT | {"pre", "code"}


def _link_units(el: Element) -> int:
    return sum(text_units(a.text()) for a in el.iter() if a.tag == "a" and a.get("href"))


_HEADING_STRIP = " :»›"
# A test of how THREAD_HEADING's text can start (``pattern_start``), and how many characters of a block are
# read for it (the heading's start comes after any of _HEADING_STRIP; when too few are left, the whole
# heading text is read)
_THREAD_START = start_test(THREAD_HEADING)
_LEAD_CHARS = START_CHARS + 8


def _heading_text(el: Element) -> str:
    return normalize_space(el.text()).strip(_HEADING_STRIP)


def thread_start(el: Element) -> str | None:
    """What makes ``el`` the start of a comment thread, or None: a heading whose whole text says so
    ("12 Comments", "Leave a reply"; ``rules.THREAD_HEADING``), or an id or anchor name with a comment
    token (``<a name="comments">``, ``<div id="comments">``). A link saying "3 Comments" in the byline row
    points at the thread and is not its start: link text never counts, nor does anything inside a link."""
    heading: str | None = None  # the heading's text, read once
    if not (el.get("id") or el.get("name")):
        # unnamed: only a heading saying so can start a thread (decided before the link counts)
        if el.tag not in _THREAD_HEADING_TAGS:
            return None
        raw = el.text_start(_LEAD_CHARS)
        lead = raw.lstrip(_HEADING_STRIP)  # the heading's start, when long enough or the whole text
        if (len(lead) >= START_CHARS or len(raw) < _LEAD_CHARS) and not may_match(_THREAD_START, lead):
            return None  # prose: its text is not joined to learn that it is no thread heading
        heading = _heading_text(el)
        if not THREAD_HEADING.match(heading):
            return None
    if el.tag == "a" and el.get("href") or any(a.tag == "a" and a.get("href") for a in el.ancestors()):
        return None
    units = text_units(el.text())
    if units and _link_units(el) * 2 >= units:
        return None
    names = tokens_of(el.get("id") + " " + el.get("name"))
    if names & THREAD_NAME_TOKENS:
        return "thread name"
    if names & COMMENT_TOKENS:
        return "name"
    if el.tag in _THREAD_HEADING_TAGS and units <= THREAD_HEADING_MAX_UNITS:
        t = heading if heading is not None else _heading_text(el)
        if THREAD_HEADING.match(t):
            return "bare heading" if THREAD_HEADING_BARE.match(t) else "heading"
    return None


def thread_evidence(tail: list[Node]) -> int:
    """Thread items in ``tail`` (counted up to ``THREAD_MIN_ITEMS``): elements named as comments or replies,
    ``<time>`` stamps, a comment form, and short lines of an item's own text that are an author line
    ("Posted by: X", "X says:"), speak of comments ("Comments are moderated") or hold a date."""
    n = 0
    for top in tail:
        if not isinstance(top, Element) or top.tag in _NOT_EVIDENCE:
            continue
        stack = [top]
        while stack:
            e = stack.pop()
            own = normalize_space(" ".join(c.data for c in e.children if isinstance(c, Text)))
            if (
                e.tag in ("time", "form", "textarea")
                or tokens_of(e.get("class") + " " + e.get("id")) & THREAD_ITEM_TOKENS
                or own
                and len(own) <= THREAD_LINE_MAX_CHARS
                and (THREAD_AUTHOR_LINE.search(own) or any(map(str.isdigit, own)) and normalize_date(own))
            ):
                n += 1
                if n >= THREAD_MIN_ITEMS:
                    return n
            stack.extend(c for c in e.element_children if c.tag not in _NOT_EVIDENCE)
    return n


def _units(n: Node, stats: dict[int, Stat]) -> int:
    if isinstance(n, Element):
        st = stats.get(n.nid)
        return st.units if st is not None else text_units(n.text())
    return text_units(n.data) if isinstance(n, Text) else 0


def _units_before(el: Element, root: Element, stats: dict[int, Stat]) -> int:
    """Text units of the root before ``el`` (the preceding siblings of ``el`` and of its ancestors)."""
    total = 0
    cur: Element = el
    while cur is not root and cur.parent is not None:
        kids = cur.parent.children
        total += sum(_units(n, stats) for n in kids[: kids.index(cur)])
        cur = cur.parent
    return total


def _one_of_many_items(top: Element, core: frozenset[int]) -> bool:
    """Along the best candidate's ancestors below ``top`` (``top`` included), one is an item of a list
    of look-alike siblings (same tag, a class in common): the best paragraphs are one long comment."""
    e: Element | None = top
    while e is not None:
        par = e.parent
        if par is not None and e.classes:
            mine = set(e.classes)
            alike = sum(1 for c in par.element_children if c.tag == e.tag and mine & set(c.classes))
            if alike >= THREAD_ITEM_SIBLINGS:
                return True
        e = next((c for c in e.element_children if c.nid in core), None)
    return False


def _sure_enough(start: Element, tail: list[Node], stats: dict[int, Stat]) -> bool:
    """A start that is not sure by itself: thread items follow, or too little text for an article section
    ("No comments yet", a form)."""
    units = sum(_units(n, stats) for n in tail) + _units(start, stats)
    if units < THREAD_EMPTY_TAIL_UNITS:
        return True
    inside = [c for c in start.children if c.__class__ is Element]
    return thread_evidence([*inside, *tail]) >= THREAD_MIN_ITEMS


def remove_trailing_thread(ctx: Context, root: Element, stats: dict[int, Stat]) -> None:
    """A comment thread closing the root: its start (``thread_start``) and everything after it to the end
    of the root, when the root also holds the article.

    Comments read as prose, so neither shape nor the "comments" token rule (whose guard keeps prose without
    thread markup) removes a thread written as plain paragraphs under a "Comments" heading. The first start
    in the root decides; it must come after an article (``THREAD_MIN_BEFORE_UNITS``: a byline row's "3
    Comments" does not) and hold no paragraphs scoring chose, unless those are one comment among look-alike
    items. Only a heading element saying so (``<h3>12 Comments</h3>``) or a thread's own name (``disqus``,
    ``commentlist``) is enough; a bare "Comments" heading or a "comments" id is also a section title (a style
    guide's "## Comments"), and the same words in a paragraph are a line of the text ("Leave a comment"):
    those need thread items after them (``thread_evidence``), or so little text that no article section
    can follow ("No comments yet" and a form).
    """
    for start, kind in ((e, k) for e in root.iter(include_self=False) if (k := thread_start(e))):
        if ctx.is_protected(start):
            continue
        if start.nid in ctx.core or _units_before(start, root, stats) < THREAD_MIN_BEFORE_UNITS:
            return
        tail = nodes_after(start, root)
        core = next((n for n in tail if isinstance(n, Element) and n.nid in ctx.core), None)
        if core is not None and not _one_of_many_items(core, ctx.core):
            return
        if (
            kind == "thread name"
            or kind == "heading"
            and start.tag in _HEADINGS
            or _sure_enough(start, tail, stats)
        ):
            break
    else:
        return
    why = f"comment thread: its {kind} and everything after it to the end of the article"
    ctx.remove(start, PARTIAL, "comment-thread", why)
    for n in tail:
        if n.parent is not None and (isinstance(n, Element) or isinstance(n, Text) and n.data.strip()):
            ctx.remove(n, PARTIAL, "comment-thread", why)
