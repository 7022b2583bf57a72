"""Shared judgements: what several stages (and the readerable check) ask of an element.

Why one module: a stage holds its ``run(ctx)`` and its own helpers; when two stages need the same verdict
(can this block hold the article? is it prose? is it named as boilerplate?) the verdict lives here, so
stages never import each other and a judgement is changed in one place. (The prose test and the thread test
are rule guards, so they live in ``rules.py`` beside the rules they guard; stages import them from there.)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .dom import NON_TEXT, Element, Node, Text, nodes_after, normalize_space
from .measure import Stat
from .metadata import normalize_date
from .pattern_start import START_CHARS, may_match, start_test
from .rules import (
    COMMENT_TOKENS,
    EXACT_RULES,
    HIDDEN_RULES,
    MAYBE_TOKENS,
    NEGATIVE_TOKENS,
    PARTIAL_RULES,
    POSITIVE_TOKENS,
    THREAD_AUTHOR_LINE,
    THREAD_FORM_FIELDS,
    THREAD_HEADING,
    THREAD_HEADING_BARE,
    THREAD_ITEM_TOKENS,
    THREAD_NAME_TOKENS,
    UNLIKELY_ROLES,
    UNLIKELY_TOKENS,
    Rule,
    phrase_in_prose,
    reads_as_prose,
    tokens_of,
)
from .selectors import Pred, SelectorIndex, compile_selector
from .textstats import SUBHEADINGS, text_units
from .thresholds import (
    ARTICLE_BODY_WEIGHT,
    ARTICLE_TAG_UNITS,
    CLASS_WEIGHT,
    FORM_PROSE_PARAGRAPHS,
    HEADER_MAX_PARAGRAPHS,
    MOST_OF_PAGE,
    THREAD_EMPTY_TAIL_UNITS,
    THREAD_HEADING_MAX_UNITS,
    THREAD_INTERFACE_MIN,
    THREAD_ITEM_SIBLINGS,
    THREAD_LINE_MAX_CHARS,
    THREAD_MIN_BEFORE_UNITS,
    THREAD_MIN_ITEMS,
    TITLE_BLOCK_HEADINGS,
    TITLE_HEADING_MIN_CHARS,
)

# Elements that never hold the article: not scored, not counted by the readerable check.
UNLIKELY_TAGS = frozenset({"nav", "footer", "aside", "menu", "form", "dialog", "button", "select"})
SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object"})


def class_weight(el: Element) -> int:
    """+25 for article-ish class/id tokens, -25 for boilerplate ones (Readability's weights)."""
    attrs = el.attrs
    if not attrs:
        return 0  # (asked of every candidate scoring makes)
    w = 0
    for value in (attrs.get("class"), attrs.get("id")):
        if not value:
            continue
        toks = tokens_of(value)
        if not toks.isdisjoint(NEGATIVE_TOKENS):
            w -= CLASS_WEIGHT
        if not toks.isdisjoint(POSITIVE_TOKENS):
            w += CLASS_WEIGHT
    if attrs.get("itemprop") == "articleBody":
        w += ARTICLE_BODY_WEIGHT
    return w


def article_holders(body: Element, stats: dict[int, Stat], elements: list[Element] | None = None) -> set[int]:
    """Ids of elements that contain the page's main landmark: ``<main>``, ``[role=main]``,
    ``[itemprop=articleBody]`` or an ``<article>`` with real text. Such a block is a wrapper, whatever its
    class says (themes name content wrappers "theiaStickySidebar" or "container penci_sidebar").
    ``elements``: ``list(body.iter())`` when the caller has it."""
    out: set[int] = set()
    for e in body.iter() if elements is None else elements:
        tag = e.tag
        attrs = e.attrs
        if (
            tag == "main"
            or (attrs and (attrs.get("role") == "main" or attrs.get("itemprop") == "articleBody"))
            or (tag == "article" and stats[e.nid].units >= ARTICLE_TAG_UNITS)
        ):
            out.update(a.nid for a in e.ancestors())
    return out


# The tags ``is_unlikely`` can judge on the tag alone: an element without attributes or layout and of
# another tag is never unlikely, so callers walking every element (scoring, readerable) ask only the rest.
UNLIKELY_BY_TAG = UNLIKELY_TAGS | {"header"}


def is_unlikely(
    el: Element,
    stats: dict[int, Stat],
    body_units: int,
    holders: set[int] | None = None,
    body_paragraphs: int = 0,
) -> str | None:
    """Why ``el`` cannot hold the article (skipped by scoring), or None. ``body_paragraphs`` (the page's
    paragraph count) lets a wrapper holding most paragraphs count as one even when menus and footers
    outweigh it in text."""
    tag = el.tag
    if tag in ("body", "html", "a"):
        return None
    if not el.attrs and el.layout is None and tag not in UNLIKELY_BY_TAG:
        return None  # nothing below can apply: not hidden, no role, no class or id, not an unlikely tag
    hidden = hidden_reason(el)
    if holders and el.nid in holders and not hidden:
        return None
    if hidden:
        return hidden
    attrs = el.attrs
    role = attrs.get("role", "")
    if tag == "dialog" or role in ("dialog", "alertdialog"):
        return "dialog"
    toks = tokens_of(attrs.get("class", "") + " " + attrs.get("id", ""))
    if (
        tag not in UNLIKELY_TAGS
        and tag != "header"
        and role not in UNLIKELY_ROLES
        and toks.isdisjoint(UNLIKELY_TOKENS)
    ):
        return None  # no reason below can apply (most elements asked): the measures need not be read
    st = stats[el.nid]
    # A wrapper holding most of the page's text, or most of its paragraphs, is never "unlikely" by its name
    # or by being a <form> (ASP.NET wraps whole pages in one form; themes name wrappers "page-header-wrap"
    # or "ad-skin-layer", and a long menu and footer can outweigh the article's text).
    most = (body_units and st.units > MOST_OF_PAGE * body_units) or (
        body_paragraphs and st.paragraphs > MOST_OF_PAGE * body_paragraphs
    )
    if most and (el.tag in ("form", "div", "section", "main") or not role) and not toks & COMMENT_TOKENS:
        return None  # (comment threads are the one boilerplate that often outweighs the article)
    if el.tag in UNLIKELY_TAGS and not (tag == "form" and _form_holds_prose(el, stats)):
        return f"<{el.tag}> element"
    if el.tag == "header" and st.paragraphs < HEADER_MAX_PARAGRAPHS:
        return "<header> element"
    if role in UNLIKELY_ROLES:
        return f"role={role}"
    bad = toks & UNLIKELY_TOKENS
    if bad and not toks & MAYBE_TOKENS:
        return f"unlikely class/id token {sorted(bad)[0]!r}"
    return None


def _form_holds_prose(form: Element, stats: dict[int, Stat]) -> bool:
    """``form`` holds paragraphs of prose (``FORM_PROSE_PARAGRAPHS``): it wraps a page section, not just
    controls. ASP.NET pages wrap a content column (article, "e-mail this story" box and all) in a ``<form>``
    that holds well under half of the page's text when the page has side columns and a long footer, so the
    "most of the page" test above does not spare it, and the article was skipped. A form of controls
    (search, login, comment, subscription, "report this comment") has at most one paragraph of
    instructions or rules."""
    found = 0
    for e in form.iter(include_self=False):
        if e.tag == "p" and reads_as_prose(stats[e.nid]):
            found += 1
            if found >= FORM_PROSE_PARAGRAPHS:
                return True
    return False


# Every HIDDEN_RULES matcher reads the live-DOM layout or one of these attributes (a test checks it): an
# element with neither matches none, and scoring and the readerable check ask this of every element.
HIDDEN_ATTRS = frozenset({"hidden", "style", "aria-hidden"})


def hidden_rule(el: Element) -> Rule[Callable[[Element], bool]] | None:
    """The first hidden-element rule ``el`` matches (what a reader never sees), or None."""
    if el.layout is None and HIDDEN_ATTRS.isdisjoint(el.attrs):
        return None
    for r in HIDDEN_RULES:
        if r.match(el):
            return r
    return None


def hidden_reason(el: Element) -> str | None:
    """Why ``el`` is not shown, or None."""
    rule = hidden_rule(el)
    return rule.reason if rule is not None else None


def _exact_index() -> SelectorIndex[Rule[Pred]]:
    """The exact rules bucketed by selector. A rule's id is its selector; a rule whose matcher is not that
    selector's compiled predicate is indexed under "*" (tested against every element), so the index can
    never skip a rule a full scan would have fired."""
    return SelectorIndex(
        [(r.id if compile_selector(r.id) is r.match else "*", r.match, r) for r in EXACT_RULES]
    )


_EXACT_INDEX = _exact_index()


def match_exact(el: Element) -> Rule[Pred] | None:
    """The first exact-selector rule matching ``el`` (in ``EXACT_RULES`` order; only the rules whose bucket
    ``el`` is in are tested)."""
    return _EXACT_INDEX.first(el)


_PARTIAL_TOKENS = frozenset().union(*(r.match for r in PARTIAL_RULES))
_ID_WORDS = re.compile(r"[^\W_]+")
ID_TEXT_MAX_CHARS = 200  # an anchor named after a heading's words: a heading is shorter than this


def id_spells_text(el: Element) -> bool:
    """``el``'s id is its own text's words (``id="Promotion_and_relegation"`` on a wiki section heading, a
    table of contents' anchor): the id names the words, not a kind of block. At least two words, so a box
    whose id and label are one word ("promotion") is still named by its id."""
    words = [w.lower() for w in _ID_WORDS.findall(el.get("id"))]
    if len(words) < 2:
        return False
    text = el.text_start(ID_TEXT_MAX_CHARS + 1)
    return len(text) <= ID_TEXT_MAX_CHARS and [w.lower() for w in _ID_WORDS.findall(text)] == words


def match_partial(el: Element, st: Stat) -> Rule[frozenset[str]] | None:
    """The first class/id token rule matching ``el`` whose guard does not spare it."""
    attrs = el.attrs
    if not attrs:
        return None  # no class or id (most elements asked)
    value = f"{attrs.get('class', '')} {attrs.get('id', '')}".strip()
    if not value:
        return None
    toks = tokens_of(value)
    if toks & _PARTIAL_TOKENS and id_spells_text(el):
        toks = tokens_of(el.get("class"))  # a heading's anchor: its id is its words, not a widget's name
    if not toks & _PARTIAL_TOKENS or phrase_in_prose(el):
        return None  # a phrase in a sentence is the sentence's, whatever its class says
    for rule in PARTIAL_RULES:
        if toks & rule.match and (rule.guard is None or not rule.guard(el, st)):
            return rule
    return None


# --- a comment thread closing the root (remove_by_selector, remove_low_score) -------------------------------
# Elements that can be a thread's heading (an anchor's or a container's name counts whatever its tag).
_THREAD_HEADING_TAGS = frozenset({"h2", "h3", "h4", "h5", "h6", "p", "div", "strong", "b", "span", "dt"})
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
    names = tokens_of(el.get("id") + " " + el.get("name"))
    # a named block whose names say nothing of a thread, and that is no heading, is no start whatever its
    # text: decided before its whole text and links are read (a page's named wrappers hold most of it)
    kind = "thread name" if names & THREAD_NAME_TOKENS else "name" if names & COMMENT_TOKENS else None
    if kind is None:
        if el.tag not in _THREAD_HEADING_TAGS:
            return None
        if heading is None:  # a named heading: its text says so, or it is no start
            heading = _heading_text(el)
            if not THREAD_HEADING.match(heading):
                return None
    if el.tag == "a" and el.get("href") or any(a.tag == "a" and a.get("href") for a in el.ancestors()):
        return None
    units = text_units(el.text())
    if units and _link_units(el) * 2 >= units:
        return None
    if kind is not None:
        return kind
    if units <= THREAD_HEADING_MAX_UNITS:  # (a heading whose text says so: ``heading`` is read)
        assert heading is not None
        return "bare heading" if THREAD_HEADING_BARE.match(heading) else "heading"
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
            stack += (c for c in e.element_children if c.tag not in _NOT_EVIDENCE)
    return n


def interface_evidence(tail: list[Node]) -> bool:
    """``tail`` holds ``THREAD_INTERFACE_MIN`` of a comment system's controls: form fields
    (``THREAD_FORM_FIELDS``) and short lines of an element's own text that speak of comments or are an
    author line (``THREAD_AUTHOR_LINE``: "Add your comment", "9 comments, sort by", "You must be logged in to
    report a comment"). Unlike ``thread_evidence``, dates and ``<time>`` stamps do not count: a dated list
    (a schedule, a timeline) is also an article's, while controls that speak of comments are the thread's."""
    n = 0
    for top in tail:
        if top.__class__ is not Element or top.tag in _NOT_EVIDENCE:
            continue
        assert isinstance(top, Element)
        stack = [top]
        while stack:
            e = stack.pop()
            if e.tag in THREAD_FORM_FIELDS:
                n += 1
            else:
                own = normalize_space(" ".join(c.data for c in e.children if isinstance(c, Text)))
                if own and len(own) <= THREAD_LINE_MAX_CHARS and THREAD_AUTHOR_LINE.search(own):
                    n += 1
            if n >= THREAD_INTERFACE_MIN:
                return True
            stack += (c for c in e.element_children if c.tag not in _NOT_EVIDENCE)
    return False


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


def trailing_thread(
    root: Element,
    stats: dict[int, Stat],
    core: frozenset[int],
    is_protected: Callable[[Element], bool],
) -> tuple[Element, str, list[Node]] | None:
    """A comment thread closing the root, as (its start, what made it one, the nodes after it to the end of
    the root), when the root also holds the article; else None. ``core``: ``Context.core`` (the paragraphs
    scoring chose); ``is_protected``: ``Context.is_protected``. remove_by_selector removes it
    (``remove_trailing_thread``), and remove_low_score's trim after a sections climb stops at it
    (``trim_after_climb``).

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
        if is_protected(start):
            continue
        if start.nid in core or _units_before(start, root, stats) < THREAD_MIN_BEFORE_UNITS:
            return None
        tail = nodes_after(start, root)
        best = next((n for n in tail if isinstance(n, Element) and n.nid in core), None)
        if best is not None and not _one_of_many_items(best, core):
            return None
        if (
            kind == "thread name"
            or kind == "heading"
            and start.tag in SUBHEADINGS
            or _sure_enough(start, tail, stats)
        ):
            return start, kind, tail
    return None


_WORDS = re.compile(r"\w+")


def is_title_heading(el: Element, title: str) -> bool:
    """``el`` is an h1-h3 (``TITLE_BLOCK_HEADINGS``) whose text, ``TITLE_HEADING_MIN_CHARS`` at least, is in
    ``title`` (the page's title, space-normalized and lower case): the article's own headline."""
    if el.tag not in TITLE_BLOCK_HEADINGS:
        return False
    words = normalize_space(el.text()).lower()
    return len(words) >= TITLE_HEADING_MIN_CHARS and words in title


def same_title(text: str, title: str) -> bool:
    """The heading restates the title: equal, one contains the other, or most words shared."""
    a, b = text.lower(), title.lower()
    if not a or len(a) > 300:
        return False
    if a == b or (len(a) > 15 and (a in b or b in a)):
        return True
    wa, wb = set(_WORDS.findall(a)), set(_WORDS.findall(b))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= 0.6
