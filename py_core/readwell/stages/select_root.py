"""select_root: choose the element that holds the article, and drop everything outside it.

After ``flatten_shadow`` and ``resolve_deferred``: shadow roots flattened and deferred content in place (both
can hold the article text), and before any removal inside the root (those stages only look inside it). An
explicit ``selector`` option bypasses scoring. Scoring follows Readability's paragraph-to-ancestor propagation
with language-neutral measures (text units, clause marks of every script), plus two fixes for its known
failures: siblings are joined only when they read as article text (a promotional box next to the article is
not), and a page whose best candidate is tiny or mostly links has no article (not "the navigation").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from .. import root_model, root_model_data
from ..context import BEST_SCORE_NOTE, ROOT_BEST, ROOT_PROSE, SCORE, SELECTOR, Context
from ..dom import Element, Node, Text, detach, nodes_after, normalize_space
from ..errors import InputError
from ..measure import Stat, measure, units_of
from ..metadata import normalize_date
from ..rules import (
    COMMENT_TOKENS,
    LINK_TAG,
    MAX_PATTERN_BLOCK,
    MAYBE_TOKENS,
    PROMO_TEXT,
    THREAD_CLOCK,
    THREAD_HEAD_AUTHOR,
    THREAD_HEAD_DATE,
    THREAD_HEAD_SEPARATOR,
    THREAD_HEADING,
    bio_headed,
    legal_notice,
    paragraph_worth,
    tokens_of,
)
from ..selectors import select
from ..signals import (
    SKIP_TAGS,
    UNLIKELY_BY_TAG,
    UNLIKELY_TAGS,
    article_holders,
    class_weight,
    hidden_reason,
    is_title_heading,
    is_unlikely,
    thread_start,
)
from ..textstats import SUBHEADINGS, text_units
from ..thresholds import (
    CELL_PARAGRAPH_RUN_UNITS,
    CHUNK_MIN_SHARE,
    CHUNK_PROSE_SHARE,
    CHUNK_PROSE_TEST_SHARE,
    CLIMB_FLOOR_DIVISOR,
    DIV_PARAGRAPH_DIRECT_UNITS,
    EXCERPT_FEED_ITEM_SHARE,
    EXCERPT_FEED_MAX_PAGE_SHARE,
    EXCERPT_FEED_MIN_ITEMS,
    LEAD_LABELS_SHARE,
    LEAD_PLAYER_LEVELS,
    LENGTH_BONUS_MAX,
    LENGTH_BONUS_UNITS,
    LINK_PENALTY,
    LIST_ITEM_MAX_LINK_DENSITY,
    LIST_ITEM_MIN_MARKS,
    MAX_PROPAGATION_LEVEL,
    MEDIA_MAX_LINK_DENSITY,
    MOST_OF_PAGE,
    NAMED_CANDIDATE_MIN_UNITS,
    PARAGRAPH_MIN_UNITS,
    POST_TITLE_MIN_WORDS,
    PROMO_MAX_UNITS,
    PROSE_MAX_LINK_DENSITY,
    PROSE_MIN_MARKS,
    PROSE_MIN_UNITS,
    PROSE_SHARE_TO_CLIMB,
    RETRY_MIN_CHARS_FACTOR,
    RETRY_RUNNER_SCORE_SHARE,
    SAME_CLASS_BONUS,
    SIBLING_MAX_LINK_DENSITY,
    SIBLING_MIN_SCORE,
    SIBLING_PROSE_LINK_DENSITY,
    SIBLING_PROSE_MARKS,
    SIBLING_PROSE_UNITS,
    SIBLING_SCORE_SHARE,
    STRAY_TEXT_MAX,
    STRONG_MIN_COUNT,
    STRONG_RANKS,
    STRONG_SHARE,
    THREAD_AFTER_LINK_DENSITY,
    THREAD_HEAD_LEVELS,
    THREAD_LINE_MAX_CHARS,
    THREAD_NEST_LEVELS,
    THREAD_SHAPE_DATED_SHARE,
    THREAD_SHAPE_MAX_ITEM_SHARE,
    THREAD_SHAPE_MIN_ITEMS,
    TITLE_ANCHOR_LEVELS,
    TITLE_ANCHOR_PROSE_SHARE,
    TITLE_ANCHOR_SCORE_SHARE,
    TITLE_BLOCK_HEADINGS,
)
from ..video import PLAYER_TAGS

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("flatten_shadow", "resolve_deferred")

PARAGRAPH_TAGS = frozenset({"p", "pre", "td", "blockquote", "dd", "li", "figcaption"})
DIV_LIKE = frozenset({"div", "section", "article", "main", "span", "font", "center"})
EMPHASIS_TAGS = frozenset({"b", "strong", "em", "i"})
BLOCKISH = frozenset(
    "address article aside blockquote dl div figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p "
    "pre section table ul".split()
)


TAG_BASE = {
    "article": 10,
    "main": 8,
    "div": 5,
    "section": 3,
    "pre": 3,
    "td": 3,
    "blockquote": 3,
    "address": -3,
    "ol": -3,
    "ul": -3,
    "dl": -3,
    "dd": -3,
    "dt": -3,
    "li": -3,
    "form": -3,
    "h1": -5,
    "h2": -5,
    "h3": -5,
    "h4": -5,
    "h5": -5,
    "h6": -5,
    "th": -5,
}


@dataclass
class Scoring:
    """What scoring learned about the page, in one record (the refinements and the sibling step read it)."""

    scores: dict[int, float]  # candidate id → score (paragraph points propagated to ancestors)
    elements: dict[int, Element]  # candidate id → element
    stats: dict[int, Stat]  # every element's measures (text units, links, clause marks, ...)
    prose: dict[int, float]  # element id → paragraph text inside it, outside unlikely blocks, × (1 - links)
    # ``list(body.iter())`` when scored: the learned root's page facts read it instead of walking again
    # (select_root changes nothing in between; stale once the tree changes, so read it only there)
    body_elements: list[Element] | None = None
    # threads recognised by their shape inside the post's own block (find_root, ``_closes_post``): the
    # root is taken without them
    threads: tuple[Element, ...] = ()
    # threads recognised by their shape that the post outscored anyway, outside the best-scoring element
    # (the post's text) and not holding it: removed from the root when they close it (``_trailing_thread``)
    trailing: tuple[Element, ...] = ()
    # the best candidate set aside for one anchored to the page's title heading (``_title_anchored``): a box
    # beside the article, whose prose the sections climb does not count
    beside: tuple[Element, ...] = ()

    # title (space-normalized, lower case) → the title headings among ``body_elements`` (``title_headings``)
    _title_heads: dict[str, list[Element]] = field(default_factory=dict)

    def score(self, el: Element) -> float:
        return self.scores.get(el.nid, 0.0)

    def title_headings(self, title: str) -> list[Element]:
        """The elements of ``body_elements`` that are title headings (``is_title_heading``) of ``title``
        (space-normalized, lower case), in document order: one walk for ``_title_anchored`` and the learned
        root's page facts (``root_model.page_facts``)."""
        heads = self._title_heads.get(title)
        if heads is None:
            heads = [
                e
                for e in self.body_elements or ()
                if e.tag in TITLE_BLOCK_HEADINGS and is_title_heading(e, title)
            ]
            self._title_heads[title] = heads
        return heads

    def ranked(self) -> list[Element]:
        """Candidates, best first (ties keep document order of first scoring)."""
        return [self.elements[n] for n in sorted(self.scores, key=lambda n: self.scores[n], reverse=True)]


def score_candidates(
    body: Element, stats: dict[int, Stat] | None = None, title: str = "", skip: frozenset[int] = frozenset()
) -> Scoring:
    """Readability's paragraph-to-ancestor propagation, with prose units per element alongside; ``stats``
    is ``measure(body)`` when the caller has it, ``title`` the page's title (see ``_bio_box``); elements in
    ``skip`` are not scored (``_thread_runs``)."""
    title = normalize_space(title).lower()
    stats = measure(body) if stats is None else stats
    body_units = stats[body.nid].units
    body_paragraphs = stats[body.nid].paragraphs
    body_elements = list(body.iter())  # one walk for the landmarks here and the learned root's facts
    holders = article_holders(body, stats, body_elements)
    skip = skip | _tab_panels(body_elements, holders, stats, body_units)
    scores: dict[int, float] = {}
    elements: dict[int, Element] = {}
    prose: dict[int, float] = {}
    # Children are pushed whole and text nodes skipped when popped (the walk's order is the same); a
    # paragraph's ancestors are listed once, for its prose and its score.
    stack: list[Node] = [body]
    while stack:
        el = stack.pop()
        if el.__class__ is not Element:
            continue
        tag = el.tag
        if tag in SKIP_TAGS or el.nid in skip:
            continue
        if el is not body:
            if el.attrs or el.layout is not None or tag in UNLIKELY_BY_TAG:
                if is_unlikely(el, stats, body_units, holders, body_paragraphs) or (
                    el.nid not in holders and _comment_compound(el)
                ):
                    continue
            # (else neither can apply: ``is_unlikely`` answers None and ``_comment_compound`` False for an
            # element without attributes or layout and not of UNLIKELY_BY_TAG: most elements, not asked)
            if el.nid not in holders and _bio_box(el, title):
                continue
            if tag in _ITEM_LISTS and el.nid not in holders and _excerpt_feed(el):
                continue
        stack += el.children[::-1]
        if not _is_paragraph(el) and not (el.tag in SUBHEADINGS and _prose_heading(stats[el.nid])):
            continue
        st = stats[el.nid]
        if st.units < PARAGRAPH_MIN_UNITS:
            continue
        if _legal_notice(el, st):
            continue  # a copyright line is never the article's paragraph (it gave footers the points)
        if el.tag == "li" and (
            st.marks < LIST_ITEM_MIN_MARKS or st.link_density > LIST_ITEM_MAX_LINK_DENSITY
        ):
            continue  # a list of links or labels is not prose
        if el.tag == "td" and _has_block_child(el) and _longest_run(el) < CELL_PARAGRAPH_RUN_UNITS:
            continue  # layout cell: its paragraphs are scored themselves (a cell of direct prose is one)
        value = st.units * (1 - st.link_density)
        prose[el.nid] = prose.get(el.nid, 0.0) + value
        ancestors = list(el.ancestors())
        for anc in ancestors:
            prose[anc.nid] = prose.get(anc.nid, 0.0) + value
        content: float = 1 + st.marks + min(st.units // LENGTH_BONUS_UNITS, LENGTH_BONUS_MAX)
        content *= 1 - LINK_PENALTY * st.link_density
        level = 0
        # A block mixing a run of text with other blocks holds its paragraph itself (Readability would wrap
        # the run in a <p> inside it), so it is the first to receive the score.
        holds_run = el.tag in DIV_LIKE or el.tag == "td"
        chain = [el, *ancestors] if holds_run and _has_block_child(el) else ancestors
        for anc in chain:
            if anc.tag in ("#document", "html") or level > MAX_PROPAGATION_LEVEL:
                break
            if anc.nid not in scores:
                scores[anc.nid] = TAG_BASE.get(anc.tag, 0) + class_weight(anc)
                elements[anc.nid] = anc
            div = 1 if level == 0 else 2 if level == 1 else level * 3
            scores[anc.nid] += content / div
            level += 1
    for nid in scores:
        weight = class_weight(elements[nid])
        if weight > 0 and stats[nid].units < NAMED_CANDIDATE_MIN_UNITS:
            # A name says "article" (``field-content``, ``entry``), but a line of text cannot be the article
            # on its name alone: the bonus grows with the text, so a short post outscores a named line.
            scores[nid] -= weight * (1 - stats[nid].units / NAMED_CANDIDATE_MIN_UNITS)
        scores[nid] *= 1 - stats[nid].link_density
    return Scoring(scores, elements, stats, prose, body_elements)


def _tab_panels(
    elements: list[Element], holders: set[int], stats: dict[int, Stat], body_units: int
) -> frozenset[int]:
    """Ids of a tabbed box's panels, which scoring skips: a list of two or more links whose every address
    is an in-page anchor (``#id``) to an element, the elements siblings of one parent. One panel shows at a
    time and a click shows another, so a panel is a box beside the page (the magazine's "Most Viewed /
    Latest Issue" box in its page header, whose issue blurb in a ``content``-named block outscored a
    story), found by its shape when the header's name is unknown. Panels that together hold over
    ``MOST_OF_PAGE`` of the page's text are the article itself, shown in tabs (a guide and its notes) or
    in sections under a contents list ("Jump to ..."), and a panel inside the page's landmark
    (``article_holders``) is the article's: those are scored."""
    by_id: dict[str, Element] = {}
    for e in elements:
        ident = e.attrs.get("id") if e.attrs else None
        if ident:
            by_id.setdefault(ident, e)
    out: set[int] = set()
    for e in elements:
        if e.tag not in ("ul", "ol"):
            continue
        hrefs = _anchor_hrefs(e)
        if hrefs is None or len(hrefs) < 2:
            continue
        targets = [by_id.get(h[1:]) for h in hrefs]
        panels = [t for t in targets if t is not None]
        if len(panels) < len(targets) or len({id(t.parent) for t in panels}) != 1:
            continue
        if sum(stats[t.nid].units for t in panels) > MOST_OF_PAGE * body_units:
            continue  # the article in tabs or sections with a contents list (a guide and its notes)
        out.update(t.nid for t in panels if t.nid not in holders)
    return frozenset(out)


def _anchor_hrefs(e: Element) -> list[str] | None:
    """The addresses of the links in ``e`` when every one is an in-page anchor (``#id``), else None (the
    walk stops at the first other address: most lists are a menu of pages)."""
    hrefs: list[str] = []
    for a in e.iter():
        if a.tag == "a":
            h = a.get("href")
            if len(h) < 2 or not h.startswith("#"):
                return None
            hrefs.append(h)
    return hrefs


def _thread_runs(sc: Scoring) -> tuple[list[Element], frozenset[int]]:
    """Candidates that hold a comment thread by its shape, not its name, and the items to leave out of a
    second scoring: >= ``THREAD_SHAPE_MIN_ITEMS`` children that each open with a short dated line (a <time>,
    a date, a clock time: the commenter's line), making at least ``THREAD_SHAPE_DATED_SHARE`` of the
    children, with the prose spread over them (no child holds ``THREAD_SHAPE_MAX_ITEM_SHARE``). The children
    from the second dated one on are left out: the first dated item and what precedes it stay (a forum's
    opening post, a flat column's post before its comments; a <dl>'s first <dt> and <dd>). Only names kept a
    thread out of scoring before (``comment`` tokens): a theme naming it otherwise ("responses", numbered
    ids) let its dozens of paragraphs outscore the post."""
    holders: list[Element] = []
    skip: set[int] = set()
    for nid, el in sc.elements.items():
        total = sc.prose.get(nid, 0.0)
        if total <= 0 or nid in skip:
            continue
        kids = el.element_children
        if el.tag in _LIST_TAGS and kids:
            kids, own = _reply_tree(el, sc)  # a nested reply tree is one run
            if len(kids) > len(el.element_children):
                total = sc.stats[nid].units  # (an <li> scores as a paragraph: its prose holds its replies')
        elif len(kids) >= THREAD_SHAPE_MIN_ITEMS:
            own = [sc.prose.get(k.nid, 0.0) for k in kids]
        else:
            continue
        if len(kids) < THREAD_SHAPE_MIN_ITEMS or max(own) > THREAD_SHAPE_MAX_ITEM_SHARE * total:
            continue
        # a reply tree's share counts the items holding text: its empty items are placeholders (a hidden
        # reply, a "load more" stub) and its collapsed replies show a title line without the head; a flat
        # run's counts the children showing any text: an empty anchor before each comment (``<a
        # name="c12">``, a jump target) is no item, and halved the share of a thread of dated comments
        tree = len(kids) != len(el.element_children)
        counted = sum(1 for o in own if o > 0) if tree else sum(1 for k in kids if sc.stats[k.nid].units > 0)
        dated = _dated_items(kids, counted)
        if dated is None:
            continue
        holders.append(el)
        left = kids[dated[1] :]
        skip.update(k.nid for k in left)
        if tree and counted != len(kids):
            # a kept item holding left-out replies scores as a paragraph with all their text: left out too
            skip.update(k.nid for k in kids[: dated[1]] if any(r.within(k) for r in left))
    return holders, frozenset(skip)


def _dated_items(kids: list[Element], counted: int) -> list[int] | None:
    """The indexes of ``kids`` that are dated items (``_dated_head`` or ``_signed_foot``) when they are
    ``THREAD_SHAPE_MIN_ITEMS`` or more and ``THREAD_SHAPE_DATED_SHARE`` of ``counted`` or more, else None.
    Why the early stop: most candidates with enough children are an article's blocks, none of them dated, and
    the heads of all of them were read; once the items left cannot reach either floor the answer is None."""
    dated: list[int] = []
    left = len(kids)
    share = THREAD_SHAPE_DATED_SHARE * max(counted, 1)
    for i, k in enumerate(kids):
        if len(dated) + left < THREAD_SHAPE_MIN_ITEMS or len(dated) + left < share:
            return None
        left -= 1
        if _dated_head(k) or _signed_foot(k):
            dated.append(i)
    if len(dated) < THREAD_SHAPE_MIN_ITEMS or len(dated) < share:
        return None
    return dated


_LIST_TAGS = frozenset({"ul", "ol", "dl"})


_ITEM_LISTS = frozenset({"ul", "ol"})


def _other_reply_list(n: Element, el: Element) -> bool:
    """``n``, a list of the other item-list tag inside an item of ``el``, holds replies: a numbered thread
    whose replies are a plain list (``ol > li > ul > li``, a common blog theme's markup), told by a reply
    that opens with a commenter's head. A share bar (a ``ul`` of "Facebook", "Tweet") in each comment, or a
    changelog's list of changes under each dated version, is part of its item, not a level of the tree."""
    return (
        n.tag in _ITEM_LISTS
        and el.tag in _ITEM_LISTS
        and n.tag != el.tag
        and any(_dated_head(c) for c in n.element_children)
    )


def _reply_tree(el: Element, sc: Scoring) -> tuple[list[Element], list[float]]:
    """The items of the list ``el`` in document order, with the items of the lists of ``el``'s tag nested in
    them (a reply tree: ``ul > li > ul > li``, ``dl > dd > dl > dt``, within ``THREAD_NEST_LEVELS`` of an
    item; or a reply list of the other item-list tag, ``_other_reply_list``), and each item's own text units
    (without its nested replies; for a flat list, each item's prose, as the flat test reads it). Why: a
    threaded theme nests every reply under the comment it answers, so the top level has a few items, one of
    which holds most of the text: the flat test read that as one long dated article. An article's nested
    bullet list has items of a line each, without a commenter's head."""
    items: list[Element] = []
    own: list[float] = []
    lists = [el]
    while lists:
        lst = lists.pop(0)
        for k in lst.element_children:
            items.append(k)
            mine = float(sc.stats[k.nid].units)
            stack = [(c, 1) for c in k.element_children]
            while stack:
                n, d = stack.pop()
                if n.tag == el.tag or _other_reply_list(n, el):
                    lists.append(n)
                    mine -= sc.stats[n.nid].units
                elif d < THREAD_NEST_LEVELS:
                    stack.extend((c, d + 1) for c in n.element_children)
            own.append(mine)
    if len(items) == len(el.element_children):
        return items, [sc.prose.get(k.nid, 0.0) for k in items]  # a flat list: the flat test's measure
    order = {id(n): i for i, n in enumerate(el.iter())}
    pairs = sorted(zip(items, own, strict=True), key=lambda p: order[id(p[0])])
    return [p[0] for p in pairs], [p[1] for p in pairs]


_NOT_THREAD_ITEMS = frozenset({"p", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "figure"})
_HEAD_ENDS = frozenset({"p", "pre", "blockquote", "ul", "ol", "table", "figure"})


def _closes_post(holders: list[Element], first: Element, best: Element, sc: Scoring) -> bool:
    """The thread had taken the root (the first scoring's best is a thread or inside one) and, without its
    items, the best is the block holding the thread (the post's own block, the thread placed after its
    text: ``post > [headline, text, ol of comments]``, nothing after it: ``_last_prose``), not an item
    inside it. Why: a theme that puts the comments inside the post's block gave the whole thread as the
    article; a forum's opening post and a live blog's first entry are items of the run, so their best stays
    inside it and this does not apply."""
    if any(best.within(h) for h in holders):
        return False
    return any(first.within(h) and h.within(best) and _last_prose(h, best, sc) for h in holders)


def _last_prose(thread: Element, block: Element, sc: Scoring) -> bool:
    """No prose follows ``thread`` inside ``block`` (``sc.prose``, as scoring measured it) but the reply box
    and link lines (``_after_prose``): the run closes the block, as comments close a post. A dated, signed
    list in the middle of an article (a timeline, a list of quotes) is followed by the article's next
    paragraphs."""
    return not any(isinstance(s, Element) and _after_prose(s, sc) for s in nodes_after(thread, block))


def _after_prose(el: Element, sc: Scoring) -> bool:
    """``el``, after a thread, is prose that continues the block: it holds prose, is not the reply box
    (``_reply_box``) and is not mostly link text (``THREAD_AFTER_LINK_DENSITY``: the previous/next post
    line or a tag list after the comments is navigation, not the article's next paragraph)."""
    if sc.prose.get(el.nid, 0.0) <= 0 or _reply_box(el):
        return False
    st = sc.stats.get(el.nid)
    return st is None or st.link_density < THREAD_AFTER_LINK_DENSITY


_FORM_FIELDS = frozenset({"textarea"})
_BOX_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})


def _reply_box(el: Element) -> bool:
    """``el`` is the box for a new comment: it holds a text field (a search or newsletter form has none), or
    its first heading says so ("Leave a Reply", "Post a comment": ``rules.THREAD_HEADING``, read without
    its links, as "Cancel reply"). Why: a theme prints the box after the thread, and a logged-out page shows
    only its heading and a "you must be logged in" line, which scoring read as prose after the thread: the
    thread then did not close the post's block."""
    for n in el.iter():
        if n.tag in _FORM_FIELDS:
            return True
        if n.tag in _BOX_HEADINGS:
            words = (t for t in n.iter_nodes() if t.__class__ is Text and not t.under_tag(LINK_TAG, n))
            own = "".join(t.data for t in words)
            return bool(THREAD_HEADING.match(normalize_space(own).strip(" :")))
    return False


def _trailing_thread(thread: Element, root: Element, sc: Scoring) -> bool:
    """``thread`` (a run the post outscored) sits in ``root`` after the post's text and closes it: prose
    precedes it inside ``root`` and none follows (``_last_prose``). Why: the post won the scoring, but the
    root climbed to the block holding the post and its comments, and without a "comment" name nothing took
    them out. A dated list in the middle of an article is followed by more of its text, and one closing the
    article's text block (a changelog) is inside the best-scoring element: not a trailing thread."""
    if thread is root or not thread.within(root) or not _last_prose(thread, root, sc):
        return False
    cur = thread
    while cur is not root and cur.parent is not None:
        sibs = cur.parent.element_children
        if any(sc.prose.get(s.nid, 0.0) > 0 for s in sibs[: sibs.index(cur)]):
            return True
        cur = cur.parent
    return False


def _related(a: Element, b: Element) -> bool:
    """One of ``a`` and ``b`` holds the other (or they are the same element)."""
    return a.within(b) or b.within(a)


def _dated_head(item: Element) -> bool:
    """``item``, a block that is not a paragraph, opens (before its first paragraph or long text, within
    ``THREAD_HEAD_LEVELS``) with a commenter's head: a short dated line (a <time>, a date, a clock time) and
    other words beside it, the commenter's name ("Name  November 3, 2012 at 10:46 am", "Name says:"). A live
    blog's entry opens with its time alone; a paragraph that opens with its time ("11:05 AM - First round")
    is a diary's entry. A table holding the whole item is its layout and is read through (``_TABLE_ROWS``)."""
    if item.tag in _NOT_THREAD_ITEMS:
        return False
    dated = named = False
    stack: list[tuple[Node, int]] = [(c, 1) for c in reversed(item.children)]
    while stack:
        n, d = stack.pop()
        if n.__class__ is Text:
            own = normalize_space(n.data)
            if not own:
                continue
            if len(own) > THREAD_LINE_MAX_CHARS:
                break  # the comment's text: the head is over
            if any(map(str.isdigit, own)) and _dated_line(own):
                dated = True
                named = named or _name_beside_date(own)
            elif THREAD_HEAD_AUTHOR.search(own):
                dated = True  # (an author line stands for the date: "Name wrote:")
                named = named or any(map(str.isalpha, THREAD_HEAD_AUTHOR.sub("", own)))
            elif any(map(str.isalpha, own)):
                named = True
            continue
        assert isinstance(n, Element)
        layout = n.tag in _TABLE_ROWS or (n.tag == "table" and n.parent is item and _sole_content(n))
        if n.tag in _HEAD_ENDS and not layout and (dated or not _head_block(n)):
            break  # the comment's text (a <p> or a short list before the date is the head's line)
        if n.tag in SKIP_TAGS:
            continue
        if n.tag == "time":
            dated = True
        elif layout:
            stack += ((c, d) for c in reversed(n.children))  # (its levels are the layout's, not the head's)
        elif d < THREAD_HEAD_LEVELS:
            stack += ((c, d + 1) for c in reversed(n.children))
    return dated and named


# A table holding the whole item is its layout (a theme setting each comment in a table: the head's row with
# the picture, name and date, then the text's row): read through it, its rows adding no level. A table beside
# other content in the item is the comment's text (a quoted table) and ends the head as before.
_TABLE_ROWS = frozenset({"thead", "tbody", "tr"})


def _sole_content(el: Element) -> bool:
    """``el`` is its parent's only child showing anything (whitespace and scripts aside)."""
    parent = el.parent
    return parent is not None and all(
        c is el
        or (c.__class__ is Text and not c.data.strip())
        or (isinstance(c, Element) and c.tag in SKIP_TAGS)
        for c in parent.children
    )


def _signed_foot(item: Element) -> bool:
    """``item``, a block that is not a paragraph, closes with a commenter's signature instead of opening with
    a head: its last block (within ``THREAD_HEAD_LEVELS``) is a short line naming someone beside a date
    ("Posted by: Name | March 3, 2012 at 10:13 AM", ``_name_beside_date``), after the comment's text. Why:
    themes that sign each comment at its end had no dated items."""
    if item.tag in _NOT_THREAD_ITEMS:
        return False
    last = item
    for _ in range(THREAD_HEAD_LEVELS):
        kids = [c for c in last.element_children if c.tag not in SKIP_TAGS and c.shows_text()]
        if not kids:
            return False
        last = kids[-1]
        if len(kids) == 1:
            continue  # a wrapper: the signature follows the comment's text inside it
        line = normalize_space(last.text())
        if len(line) <= THREAD_LINE_MAX_CHARS:
            return any(map(str.isdigit, line)) and _dated_line(line) and _name_beside_date(line)
    return False


def _dated_line(line: str) -> bool:
    """A short line holding a date or a clock time: the forms ``normalize_date`` reads, a clock ``10:46``, or
    a head's date it does not read ("10. Jul, 2012", "11.06.12": ``THREAD_HEAD_DATE``)."""
    return bool(THREAD_CLOCK.search(line) or normalize_date(line) or THREAD_HEAD_DATE.search(line))


def _name_beside_date(line: str) -> bool:
    """A dated line that also names someone, in one string ("Name - August 8, 2012", "Name says: March 3,
    2012 at 4:12 pm"): a part between ``THREAD_HEAD_SEPARATOR``s holds letters and no date. Why: the head's
    name and date often share a text node, and the name test read only the other nodes. A live blog's
    "Updated March 3, 2012 at 4:12 pm" has no separator: a date alone."""
    parts = THREAD_HEAD_SEPARATOR.split(line)
    return len(parts) > 1 and any(
        any(map(str.isalpha, p)) and not (any(map(str.isdigit, p)) and _dated_line(p)) for p in parts
    )


def _head_block(el: Element) -> bool:
    """A block before a comment's date that is still its head: a <p> ("<p>Name <span>date"), or a short
    list of the head's facts (``<ul><li>8:26 am May 3</li><li>Name wrote:</li></ul>``, a theme's metadata
    list; a list of ``THREAD_LINE_MAX_CHARS`` at most)."""
    if el.tag == "p":
        return True
    return el.tag in _LIST_TAGS and len(normalize_space(el.text())) <= THREAD_LINE_MAX_CHARS


def _legal_notice(el: Element, st: Stat) -> bool:
    """``el`` is a site's legal notice ("Copyright (c) 2008 X. All rights reserved.", "This material may not
    be published, broadcast, rewritten or redistributed."): a page's footer line, scored like a paragraph,
    gave the page container or a footer cell the points that outscored a short story (and a footer cell's
    "text" class name, +25, did the rest). Only short blocks are read (``MAX_PATTERN_BLOCK``): the notice
    covers the whole block, and a longer one is prose that mentions copyright."""
    if st.units > MAX_PATTERN_BLOCK:
        return False
    return legal_notice(normalize_space(el.text()))


def _comment_compound(el: Element) -> bool:
    """A class or id that compounds "comment" with another word (``postcomments``, ``recentcomments``,
    ``commentsblock``) names a comment thread or a recent-comments widget just as ``comments`` does, but the
    token tables list only the plain words. Such a block is neither scored (a long thread can outscore a
    short post) nor joined as a sibling; an element that also has a plain comment token, or an article-ish
    one, is left to ``is_unlikely`` as before. ``commentary`` (opinion pieces) is not a comment."""
    attrs = el.attrs
    if not attrs:
        return False  # (asked of every element scoring walks: most have no attribute)
    value = attrs.get("class", "") + " " + attrs.get("id", "")
    if "omment" not in value and "OMMENT" not in value:
        return False
    toks = tokens_of(value)
    if toks & COMMENT_TOKENS or toks & MAYBE_TOKENS:
        return False
    return any("comment" in t and "commentar" not in t for t in toks)


def _excerpt_feed(el: Element) -> bool:
    """A list of excerpts pointing into other pages: at least ``EXCERPT_FEED_MIN_ITEMS`` items, most of
    them (``EXCERPT_FEED_ITEM_SHARE``) opening with a link of a few words (a post's title) to an anchor in
    another page (``/post/#c123``) followed by text of their own (the excerpt), and the pages repeat (at
    least two pages, fewer than ``EXCERPT_FEED_MAX_PAGE_SHARE`` of the items): a "recent comments" widget,
    whose items are "post title + the comment's first words", several on the same post. Its text outscored
    a short post when no class named it. An index of articles links each page once and without an anchor;
    a table of contents links into the page itself; a footnote's back-link closes its item."""
    items = el.element_children
    if len(items) < EXCERPT_FEED_MIN_ITEMS:
        return False
    pages: list[str] = []
    for li in items:
        if li.tag != "li":
            continue
        link: Element | None = None
        for node in li.iter_nodes():
            if isinstance(node, Text):
                if node.data.strip():
                    break  # text before any link: the item does not open with one
            elif isinstance(node, Element) and node.tag == "a":
                link = node
                break
        if link is None:
            continue
        page, hash_, frag = link.get("href").partition("#")
        words = len(normalize_space(link.text()).split())
        own = len(normalize_space(li.text())) - len(normalize_space(link.text()))
        if page and hash_ and frag and words >= POST_TITLE_MIN_WORDS and own > 0:
            pages.append(page)
    distinct = len(set(pages))
    return (
        len(pages) >= EXCERPT_FEED_ITEM_SHARE * len(items)
        and distinct >= 2
        and distinct < EXCERPT_FEED_MAX_PAGE_SHARE * len(pages)
    )


HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _bio_box(el: Element, title: str) -> bool:
    """A block headed "About me" / "About the author" is the author's box beside the article: a blogger's
    profile can be longer than a short post and outscore it. Not on the page that is about them (the
    heading is in the page's title: an "About me" page)."""
    return bio_headed(el, title, HEADING_TAGS)


def _has_block_child(el: Element) -> bool:
    return any(isinstance(c, Element) and c.tag in BLOCKISH for c in el.children)


def _direct_units(el: Element) -> int:
    """Text units of ``el``'s own text nodes (not its children's), read from the page's measure where it
    has them (``measure.units_of``: scoring asks this of every div)."""
    return sum(units_of(c.data) for c in el.children if isinstance(c, Text))


def _longest_run(el: Element) -> int:
    """Text units of ``el``'s longest own text node (one run between ``<br>``s or blocks)."""
    return max((text_units(c.data) for c in el.children if isinstance(c, Text)), default=0)


def _prose_heading(st: Stat) -> bool:
    """A subheading holding sentences of prose is a paragraph in heading markup (an intro or a standfirst
    styled by its tag); a heading, even a long headline, has a clause or two."""
    return (
        st.units >= PROSE_MIN_UNITS
        and st.marks >= PROSE_MIN_MARKS
        and st.link_density < PROSE_MAX_LINK_DENSITY
    )


def _is_paragraph(el: Element) -> bool:
    if el.tag in PARAGRAPH_TAGS:
        return True
    if el.tag in DIV_LIKE:
        # A div used as a paragraph: direct text and no block children (Readability's "div to p"), or a
        # substantial run of direct text beside blocks (old pages mixing text, <br> and empty blocks).
        direct = _direct_units(el)
        if not direct:
            return False
        return direct >= DIV_PARAGRAPH_DIRECT_UNITS or not any(
            isinstance(c, Element) and c.tag in BLOCKISH for c in el.children
        )
    return False


TOP_LEVEL = ("body", "html", "#document")
SENTENCE_END = ".!?。！？"
CLOSING_MARKS = "\"'”’»)]）」』"  # a sentence may end inside a quotation or a bracket


def _split_article(top: Element, sc: Scoring) -> Element:
    """Several strong candidates under one ancestor: the article is split; take their common ancestor."""
    ranked = sc.ranked()
    top_score = sc.score(top)
    strong = [
        e
        for e in ranked[1 : STRONG_RANKS + 1]
        if sc.score(e) >= STRONG_SHARE * top_score and not _item_of_other_list(e, top)
    ]
    if len(strong) >= STRONG_MIN_COUNT:
        for anc in top.ancestors():
            if anc.tag in TOP_LEVEL:
                break
            inside = sum(1 for s in strong if anc in set(s.ancestors()))
            if inside >= STRONG_MIN_COUNT:
                return anc
    return top


def _item_of_other_list(el: Element, top: Element) -> bool:
    """``el`` is, or is inside, an item of a list that does not hold ``top``: one teaser of a "Most viewed"
    or "Latest" list beside the article, not a part of the article split across blocks. Such items are
    alike and each has its sentence, so two of them, or one and the article's own wrapper, passed for
    strong runners-up, and the split climb took the common ancestor: the page's column with the list. Items
    of the list that holds ``top`` (a how-to's steps, one of which scored best) are the article's parts."""
    for a in (el, *el.ancestors()):
        if top.within(a):
            return False
        if a.tag == "li":
            lst = a.parent
            return lst is None or not top.within(lst)
    return False


def _parent_container(top: Element, sc: Scoring) -> Element:
    """Climb while the parent scores clearly higher (the article's real container)."""
    last = sc.score(top)
    threshold = last / CLIMB_FLOOR_DIVISOR
    parent = top.parent
    while parent is not None and parent.tag not in TOP_LEVEL:
        ps = sc.scores.get(parent.nid)
        if ps is None:
            parent = parent.parent
            continue
        if ps < threshold:
            break
        if ps > last:
            return parent
        last = ps
        parent = parent.parent
    return top


def _join_chunks(top: Element, sc: Scoring) -> Element:
    """Chunked articles repeat the body container's class for every chunk: take the common ancestor of the
    chunks that carry real text. Chunks repeat the class *and* sit under identical wrappers (cousins through
    the same structure); a teaser that reuses the class in another structure (a "next up" box) is not one.
    A chunk bringing ``CHUNK_PROSE_TEST_SHARE`` of the candidate's text or more must read as the article's
    text (``_reads_as_prose``): a template can name its header, its columns and its footer alike, and a
    side column of teasers and sponsor blurbs then passed for a chunk and the page's wrapper was taken."""
    cls = _chunk_class(top)
    if not cls:
        return top
    floor = CHUNK_MIN_SHARE * sc.score(top)
    units = sc.stats[top.nid].units
    common: Element | None = None
    for n, e in sc.elements.items():
        if e is top or e.tag != top.tag or _chunk_class(e) != cls or sc.scores[n] < floor:
            continue
        anc = _common_ancestor(top, e)
        if anc is None or anc.tag in TOP_LEVEL:
            continue
        if _signature_path(top, anc) != _signature_path(e, anc):
            continue
        if sc.stats[e.nid].units >= CHUNK_PROSE_TEST_SHARE * units and not _reads_as_prose(e, sc):
            continue
        if common is None or anc in set(common.ancestors()):
            common = anc
    return common if common is not None else top


def _reads_as_prose(el: Element, sc: Scoring) -> bool:
    """``el`` reads as an article's text: paragraphs of writing (``paragraph_worth``, few links) hold
    ``CHUNK_PROSE_SHARE`` of its text or more. A chunk of a split article is more of the article's
    paragraphs; a side column that repeats a template-wide class (one the header, each column and the footer
    carry) holds teasers, sponsor blurbs, labels and link lists, whose paragraphs are short lines or
    links. (Nested paragraphs are counted once: the outermost one that passes.)"""
    units = sc.stats[el.nid].units
    if not units:
        return False
    prose = 0
    stack = list(el.element_children)
    while stack:
        x = stack.pop()
        if _is_paragraph(x):
            st = sc.stats[x.nid]
            if paragraph_worth(st.units, st.marks) and st.link_density < SIBLING_PROSE_LINK_DENSITY:
                prose += st.units
                continue
        stack += x.element_children
    return prose >= CHUNK_PROSE_SHARE * units


_NUMBER = re.compile(r"\d+")


def _chunk_class(el: Element) -> str:
    """The class a chunk repeats, numbers aside: chunks are often numbered (``body body-1``, ``body-2``)."""
    return _NUMBER.sub("#", el.get("class").strip())


def _sections(top: Element, sc: Scoring) -> Element:
    """The article is split across sibling blocks (sections): climb while the candidate holds well under
    an ancestor's prose (without the prose of a box set aside for the title's block: ``Scoring.beside``)."""
    for anc in list(top.ancestors()):
        if anc.tag in TOP_LEVEL:
            break
        held = sc.prose.get(anc.nid, 0.0) - sum(sc.prose.get(b.nid, 0.0) for b in sc.beside if b.within(anc))
        if sc.prose.get(top.nid, 0.0) < PROSE_SHARE_TO_CLIMB * held:
            top = anc
    return top


def _lone_child(top: Element, sc: Scoring) -> Element:
    """A lone child says nothing: its parent is the same content."""
    while (
        top.parent is not None
        and top.parent.tag not in TOP_LEVEL
        and len(
            [
                c
                for c in top.parent.children
                if isinstance(c, Element) or (isinstance(c, Text) and c.data.strip())
            ]
        )
        == 1
    ):
        top = top.parent
    return top


Refine = Callable[[Element, Scoring], Element]


class Refinements(NamedTuple):
    """The steps from the best-scoring element to the root candidate, applied in this order (each may move
    the candidate to an ancestor; each move is noted on the context)."""

    split_article: Refine
    parent_container: Refine
    join_chunks: Refine
    sections: Refine
    lone_child: Refine


REFINEMENTS = Refinements(_split_article, _parent_container, _join_chunks, _sections, _lone_child)


def find_root(body: Element, ctx: Context | None = None) -> tuple[Element | None, Scoring, set[int]]:
    """Return (root candidate, scoring, ids of siblings to join); refinements are noted on ``ctx``."""
    title = ctx.meta.title or "" if ctx is not None else ""
    sc = score_candidates(body) if ctx is None else score_candidates(body, ctx.measure(body), title)
    if not sc.scores:
        return None, sc, set()
    threads: frozenset[int] = frozenset()
    left_out: list[Element] = []  # the threads' elements when left out of scoring
    holders, skip = _thread_runs(sc)
    if skip:
        # Scored again without the threads' items after their first: when the best then changes and is
        # outside every thread (a forum's opening post or a live blog's first entry, inside, keeps the whole
        # thread as before; a thread the post outscores anyway changes nothing), the thread is a blog's
        # comments, and none of it is scored, as a thread named so is not (its first item and its heading
        # would give the page wrapper the prose to be climbed to). A thread the post outscores anyway and
        # that lies outside the post's text is kept for ``run``: removed if it closes the chosen root.
        again = score_candidates(body, sc.stats, title, skip)
        best = again.ranked()[0] if again.scores else None
        first = sc.ranked()[0]
        if best is not None and (
            not any(_related(h, best) for h in holders) or _closes_post(holders, first, best, again)
        ):
            if best is not first:
                threads = frozenset(h.nid for h in holders)
                sc = score_candidates(body, sc.stats, title, threads)
                left_out = holders
                sc.threads = tuple(
                    h for h in holders if h is not best and h.within(best) and _last_prose(h, best, again)
                )
                if ctx is not None:
                    for h in holders:
                        ctx.note(
                            "thread-shape", h, "a run of dated look-alike items: a comment thread, not scored"
                        )
        if not left_out:
            sc.trailing = tuple(h for h in holders if not _related(h, first))
    anchored = _title_anchored(sc, title)
    if anchored is not None:
        first = sc.ranked()[0]
        # (the two swap places: the runner-up's score goes to the box, so the refinements and the learned
        # root see the same spread of scores as before)
        sc.scores[anchored.nid], sc.scores[first.nid] = sc.scores[first.nid], sc.scores[anchored.nid]
        sc.beside = (first,)
        if ctx is not None:
            ctx.note("title-anchor", anchored, f"anchored to the title heading, over {ctx.path_of(first)}")
    top = sc.ranked()[0]
    if ctx is not None:
        ctx.note(BEST_SCORE_NOTE, top, f"best-scoring candidate ({sc.score(top):.1f})")
    top = _refine(top, sc, ctx)
    joined = _siblings_to_join(top, sc) - threads  # a thread beside the post is not joined to it ...
    if joined and left_out and top.parent is not None:
        # ... nor is a block holding one (the thread's box around its list, with its count line and form: it
        # reads as prose, and joining it made the post's parent the root, comments and all)
        joined -= {s.nid for s in top.parent.element_children if any(h.within(s) for h in left_out)}
    return top, sc, joined


def _title_anchored(sc: Scoring, title: str) -> Element | None:
    """A candidate to take the best one's place, or None: the best scoring element is apart from every
    title heading (an h1-h3 whose text is in the page's <title>: it neither holds one nor follows one
    within ``TITLE_ANCHOR_LEVELS`` of it), and the highest-ranked candidate anchored to one, neither
    holding the best nor inside it, scores ``TITLE_ANCHOR_SCORE_SHARE`` of the best or more and holds
    ``TITLE_ANCHOR_PROSE_SHARE`` of its prose.

    Why: a post is written under its title. Without the post's name (``content``, ``entry``) a sidebar's
    text box, a sidebar list of recent reviews or teasers, or a footer's long copyright block outscored a
    short post (the names-masked probe). The prose share keeps an article body set in a block of its own
    below the headline's block (headline, dek, byline: anchored, but short) from giving way to it, and a
    sidebar list repeating the title as one of its headlines anchors only that list's items."""
    t = normalize_space(title).lower()
    if not t or not sc.body_elements or len(sc.scores) < 2:
        return None
    heads = sc.title_headings(t)
    if not heads:
        return None
    order = {e.nid: i for i, e in enumerate(sc.body_elements)}
    areas: list[tuple[Element, Element]] = []  # (title heading, its ancestor the anchored must be in)
    for head in heads:
        area = head
        for _ in range(TITLE_ANCHOR_LEVELS):
            if area.parent is None or area.parent.tag in TOP_LEVEL:
                break
            area = area.parent
        areas.append((head, area))

    def anchored(c: Element) -> bool:
        return any(h.within(c) or (c.within(a) and order.get(c.nid, -1) > order[h.nid]) for h, a in areas)

    ranked = sc.ranked()
    best = ranked[0]
    if anchored(best):
        return None
    floor = TITLE_ANCHOR_SCORE_SHARE * sc.score(best)

    def prose(e: Element) -> float:
        # (nested paragraphs count twice in ``prose``: an <li> holding <p>s; a list of teasers read
        # more prose than it has text)
        return min(sc.prose.get(e.nid, 0.0), float(sc.stats[e.nid].units))

    least = TITLE_ANCHOR_PROSE_SHARE * prose(best)
    for c in ranked[1:]:
        if sc.score(c) < floor:
            return None
        if anchored(c) and not _related(c, best) and prose(c) >= least:
            return c
    return None


def _refine(top: Element, sc: Scoring, ctx: Context | None) -> Element:
    """The refinements from the best-scoring element to the root candidate, each move noted on ``ctx``."""
    for name, refine in zip(Refinements._fields, REFINEMENTS, strict=True):
        new = refine(top, sc)
        if new is not top and ctx is not None:
            ctx.note(name, new, f"candidate moved up from {ctx.path_of(top)}")
            if name == "sections":
                ctx.sections_climb = (top, new)
        top = new
    return top


def _common_ancestor(a: Element, b: Element) -> Element | None:
    mine = {id(x) for x in a.ancestors()}
    return next((x for x in b.ancestors() if id(x) in mine), None)


def _signature_path(el: Element, stop: Element) -> list[tuple[str, str]]:
    path = []
    cur: Element | None = el
    while cur is not None and cur is not stop:
        path.append((cur.tag, _chunk_class(cur)))
        cur = cur.parent
    return path


def _siblings_to_join(top: Element, sc: Scoring) -> set[int]:
    """Siblings that continue the article (Readability's sibling step, minus its promo false positives)."""
    parent = top.parent
    if parent is None or parent.tag in ("html", "#document"):
        return set()
    scores, stats = sc.scores, sc.stats
    top_score = scores.get(top.nid, 0.0)
    threshold = max(SIBLING_MIN_SCORE, top_score * SIBLING_SCORE_SHARE)
    joined: set[int] = set()
    top_classes = top.get("class")
    sibs = [c for c in parent.children if isinstance(c, Element)]
    top_at = sibs.index(top)  # positions among the element siblings, read once for every test below
    for at, sib in enumerate(sibs):
        if sib is top or sib.tag in SKIP_TAGS:
            continue
        before = at < top_at
        st = stats.get(sib.nid)
        if st is None or st.units == 0:
            if sib.tag in ("figure", "picture", "img") or (
                st is not None and st.images and sib.tag not in ("a",)
            ):
                # media next to the article (lead image) belongs to it if it sits before or right after it
                # (anywhere before: only the sibling right before changes one scrapinghub page for the
                # worse, a caption-like line joins; kept until that page has a fixture)
                if (
                    st is not None
                    and st.images
                    and st.link_density < MEDIA_MAX_LINK_DENSITY
                    and (before or at == top_at + 1)
                ):
                    joined.add(sib.nid)
            continue
        if _never_joined(sib):
            continue
        if at == top_at + 1 and _split_by_parser(top, sib):
            joined.add(sib.nid)
            continue
        text = normalize_space(sib.text())
        if PROMO_TEXT.search(text) and st.units < PROMO_MAX_UNITS:
            continue  # promotional box beside the article (Readability joins it)
        bonus = top_score * SAME_CLASS_BONUS if top_classes and sib.get("class") == top_classes else 0
        s = scores.get(sib.nid)
        if s is not None and s + bonus >= threshold and st.link_density < SIBLING_MAX_LINK_DENSITY:
            joined.add(sib.nid)
            continue
        lead_header = sib.tag in ("header", "hgroup") and before
        right_before = at == top_at - 1
        if sib.tag in EMPHASIS_TAGS:
            # a standfirst set in bold straight beside the article's block (old templates: <strong>, <div>)
            if (
                st.units > SIBLING_PROSE_UNITS
                and st.link_density < SIBLING_PROSE_LINK_DENSITY
                and st.marks >= 1
                and right_before
                and _lead_sentence(sib, st, text)
            ):
                joined.add(sib.nid)
            continue
        if (
            sib.tag in ("p", "blockquote", "pre", "h2", "h3", "h4", "ul", "ol", "table", "figure")
            or sib.tag in DIV_LIKE
            or lead_header
        ):
            if sib.tag in DIV_LIKE and class_weight(sib) < 0:
                continue
            if (
                st.units > SIBLING_PROSE_UNITS
                and st.link_density < SIBLING_PROSE_LINK_DENSITY
                and st.marks
                >= (
                    1
                    if lead_header
                    or (right_before and _lead_sentence(sib, st, text))
                    or (before and _lead_line(sib, st))
                    else SIBLING_PROSE_MARKS
                )
            ):
                joined.add(sib.nid)
            elif (
                0 < st.units <= SIBLING_PROSE_UNITS
                and st.link_density == 0
                and text[-1:] in SENTENCE_END
                and sib.tag == "p"
            ):
                joined.add(sib.nid)
    _join_interludes(sibs, top, top_at, joined, stats)
    return joined


def _never_joined(sib: Element) -> bool:
    """A block beside the article that no joining test takes (the sibling step, its interludes, a lead
    player): hidden, an unlikely tag, or a comment box by its compound name."""
    return bool(hidden_reason(sib)) or sib.tag in UNLIKELY_TAGS or _comment_compound(sib)


def _join_interludes(
    sibs: list[Element], top: Element, top_at: int, joined: set[int], stats: dict[int, Stat]
) -> None:
    """Blocks after the article that the article resumes after: a sibling between the candidate (or a
    sibling joined after it) and a later joined sibling of the same tag, with a block's worth of text and
    few links, is part of the run (a data table set in its own wrapper between the text's blocks, its
    cells reading as one clause: the prose step wants a couple). Only a block with an element sibling of
    its own tag joined after it counts: the text goes on in the same kind of wrapper, so the block sits
    inside the article, not at its end (where the comments, related lists and footers are). Promotional
    boxes, negative names and link blocks stay out, as in the sibling step."""
    later = [at for at in range(top_at + 1, len(sibs)) if sibs[at].nid in joined]
    if not later:
        return
    last = later[-1]
    for at in range(top_at + 1, last):
        sib = sibs[at]
        if sib.nid in joined or sib.tag in SKIP_TAGS:
            continue
        st = stats.get(sib.nid)
        if (
            st is None
            or st.units <= SIBLING_PROSE_UNITS
            or st.link_density >= SIBLING_PROSE_LINK_DENSITY
            or _never_joined(sib)
            or (sib.tag in DIV_LIKE and class_weight(sib) < 0)
        ):
            continue
        if not any(sibs[n].tag == sib.tag for n in later if n > at):
            continue
        text = normalize_space(sib.text())
        if PROMO_TEXT.search(text) and st.units < PROMO_MAX_UNITS:
            continue
        joined.add(sib.nid)


# The HTML parser's formatting elements (the "list of active formatting elements"): an end tag of one of them
# with a block still open inside it moves that block out to be its sibling and reopens a copy of it inside.
FORMATTING_TAGS = frozenset("a b big code em font i nobr s small strike strong tt u".split())


def _split_by_parser(top: Element, sib: Element) -> bool:
    """``sib``, right after ``top``, is the rest of ``top`` that the parser moved out: ``top`` is a formatting
    element and ``sib`` opens with a copy of it (same tag, same attributes). Old templates set the story in a
    ``<font>`` around unclosed ``<p>``s; at ``</font>`` the last paragraph is still open, so the adoption
    agency algorithm makes it the font's sibling with a new ``<font>`` inside, and the story's last paragraph
    sat outside a ``<font>`` root."""
    if top.tag not in FORMATTING_TAGS:
        return False
    first = next(
        (c for c in sib.children if isinstance(c, Element) or (isinstance(c, Text) and c.data.strip())), None
    )
    return isinstance(first, Element) and first.tag == top.tag and first.attrs == top.attrs


def _lead_sentence(sib: Element, st: Stat, text: str) -> bool:
    """``sib`` (the caller checks it is right before the article) is its standfirst: one run of text that
    ends a sentence, with no heading (a lead paragraph is often one long sentence, so it has a single clause
    mark and fails the sibling step's "couple of clauses"). A labelled block ("Highlights" + a line) has two
    runs of text."""
    if text[-1:] not in SENTENCE_END or st.headings or st.paragraphs > 1:
        return False
    runs = 0
    for e in sib.iter():
        if (e.tag in BLOCKISH or e.tag in DIV_LIKE) and any(
            isinstance(c, Text) and c.data.strip() for c in e.children
        ):
            runs += 1
            if runs > 1:
                return False
    return True


def _lead_line(sib: Element, st: Stat) -> bool:
    """``sib`` (the caller checks it is before the article) is its dek or standfirst: one line of text (a
    single text node outside the headings inside it, longer than a label) and no picture. A dek is often one
    clause without a full stop ("X's efforts are admirable, but Y is not a luxury everyone can afford"), set
    in an ``<h4>`` or in one block with the headline, so neither the sibling step's "couple of clauses" nor
    ``_lead_sentence`` (a sentence end, no heading) takes it. A labelled line ("Highlights" + a line) has two
    runs of text, a photo caption has its picture, and a line after the article (a "contributed to this
    report" credit) is no lead."""
    if st.images:
        return False
    runs = 0
    longest = 0
    for node in sib.iter_nodes():
        if isinstance(node, Text) and node.data.strip() and not _in_heading(node, sib):
            runs += 1
            longest = text_units(node.data)
            if runs > 1:
                return False
    return longest > SIBLING_PROSE_UNITS


def _in_heading(node: Text, stop: Element) -> bool:
    """``node`` sits in a heading inside ``stop`` (``stop`` itself may be one: its own text counts)."""
    for a in node.ancestors():
        if a is stop:
            return False
        if a.tag in HEADING_TAGS:
            return True
    return False


def run(ctx: Context) -> None:
    body = ctx.doc.body
    sel = ctx.options.selector
    if sel:
        matches = select(body, sel)
        if not matches:
            raise InputError(f"selector {sel!r} matched no element")
        root = matches[0]
        _prune_outside(ctx, root, f"outside the element chosen by selector {sel!r}", SELECTOR, "selector")
        ctx.root = root
        return
    top, sc, joined = find_root(body, ctx)
    if top is not None and ctx.root_choice == ROOT_BEST:
        best = sc.ranked()[0]
        ctx.note(
            "retry-best",
            best,
            f"retry of a declined page: scoring's best element instead of {ctx.path_of(top)}",
        )
        top, joined = best, set()
    elif top is not None and ctx.root_choice == ROOT_PROSE:
        top, joined = prose_runner_up(sc, RETRY_MIN_CHARS_FACTOR * ctx.options.min_article_chars), set()
        if top is not None:
            ctx.note("retry-prose", top, "retry of a declined page: the runner-up holding an article's prose")
    elif top is not None and ctx.options.root_model:
        top, joined = _learned_root(ctx, body, sc, top, joined)
    if ctx.sections_climb is not None and (top is None or not ctx.sections_climb[1].within(top)):
        ctx.sections_climb = None  # a retry or the learned model chose another root: no climb to trim
    stats = sc.stats
    if sc.scores:
        best = top if ctx.root_choice == ROOT_PROSE and top is not None else sc.ranked()[0]
        ctx.core = frozenset(e.nid for e in (best, *best.ancestors()))
    if top is None:
        ctx.take_facts(None)
        ctx.root = None
        return
    lead = _lead_player(top.parent if joined and top.parent is not None else top, sc)
    root = top.parent if joined and top.parent is not None else top
    final = lead[0] if lead is not None else root
    # The paths the log gives and the facts the result reads of the input page, before the first removal
    # (a run without the copy reads the input in its own tree: ``Context.take_facts``). Every removal below
    # is inside ``final``, so its path and the root's stay as they are here.
    root_path = ctx.path_of(root) if lead is not None else ""
    final_path = ctx.path_of(final)
    ctx.take_facts(final)
    if joined:
        parent = top.parent
        assert parent is not None
        for sib in list(parent.children):
            if sib is top:
                continue
            if isinstance(sib, Element) and sib.nid not in joined:
                reason = "sibling of the article that does not read as article text"
                if sib.tag not in SKIP_TAGS and stats.get(sib.nid) and PROMO_TEXT.search(sib.text()):
                    reason = "promotional block beside the article"
                ctx.remove(sib, SCORE, "sibling-not-joined", reason)
            elif isinstance(sib, Text) and sib.data.strip() and len(sib.data.strip()) < STRAY_TEXT_MAX:
                ctx.remove(sib, SCORE, "sibling-not-joined", "stray text beside the article")
    if lead is not None:
        holder, block = lead
        ctx.note("lead-player", block, f"lead player block joined to the article {root_path}")
        _prune_up_to(ctx, root, holder, block, f"outside the content root ({root_path})")
        ctx.lead = frozenset({block.nid})
    _prune_outside(ctx, final, "outside the content root", SCORE, "outside-root", final_path)
    for thread in sc.threads:
        if thread.within(final) and thread is not final:
            _remove_thread(ctx, thread, final, "a run of dated look-alike items after the post's text")
    for thread in sc.trailing:
        if _trailing_thread(thread, final, sc):
            _remove_thread(ctx, thread, final, "a run of dated look-alike items closing the article")
    ctx.root = final


def _remove_thread(ctx: Context, thread: Element, root: Element, why: str) -> None:
    """Remove a thread recognised by its shape from ``root``, with the heading just before it ("What readers
    said": the thread's own heading, a heading element right before it in its block) and the reply boxes
    after it (``_reply_box``: the box for a new comment belongs to the thread it closes). When one of them
    is a thread's start by ``signals.thread_start`` ("Comments"), none is removed here: the thread pattern
    (``remove_by_selector``) removes it and everything after it, a notice below the form included."""
    boxes = []
    if thread.parent is not None:
        sibs = thread.parent.element_children
        at = sibs.index(thread)
        if at > 0 and sibs[at - 1].tag in _BOX_HEADINGS:
            boxes.append(sibs[at - 1])
    boxes += [b for b in nodes_after(thread, root) if isinstance(b, Element) and _reply_box(b)]
    ctx.remove(thread, SCORE, "thread-shape", why)
    if any(thread_start(n) for b in boxes for n in b.iter()):
        return  # a heading saying "Comments" is left to the thread pattern, which takes what follows it too
    for box in boxes:
        ctx.remove(box, SCORE, "thread-shape", "the box for a new comment after a thread")


def prose_runner_up(sc: Scoring, least: float) -> Element | None:
    """For the last retry of a declined page (``extract._may_retry``): the highest-ranked candidate after
    the best that holds ``least`` units of paragraph prose and scores at least ``RETRY_RUNNER_SCORE_SHARE``
    of the best. The best element can be a short block that outscored the story on its name (a footer cell
    named "text" with a page-timing line) and is then declined as too short, while the story itself ranked
    right behind it; a sidebar module far down the ranking is not a story."""
    ranked = sc.ranked()
    floor = RETRY_RUNNER_SCORE_SHARE * sc.score(ranked[0])
    for e in ranked[1:]:
        if sc.score(e) < floor:
            return None
        if sc.prose.get(e.nid, 0.0) >= least:
            return e
    return None


def _lead_player(root: Element, sc: Scoring) -> tuple[Element, Element] | None:
    """(holder, block): a video player with its description right before the article, beside the root or
    beside the post wrapper holding it (whose other children are only labels), as (the common parent, the
    player's block); else None. A show's or a video blog's post opens with the clip and a paragraph saying
    what it shows, often above the text container, and that paragraph is the post's lead. Only a block
    holding a player qualifies: a lead photo's caption stays out (news golds leave captions out)."""
    stats = sc.stats
    units = stats[root.nid].units if root.nid in stats else 0
    cur = root
    for _ in range(LEAD_PLAYER_LEVELS):
        parent = cur.parent
        if parent is None or parent.tag in TOP_LEVEL:
            return None
        prev = _previous_content(cur, stats)
        if prev is not None and _is_lead_player(prev, stats, units):
            return parent, prev
        others = sum(stats[c.nid].units for c in parent.element_children if c is not cur and c.nid in stats)
        if others > LEAD_LABELS_SHARE * units:
            return None
        cur = parent
    return None


def _previous_content(el: Element, stats: dict[int, Stat]) -> Element | None:
    """The element sibling before ``el`` that shows something (text, an image or a player), skipping
    spacers and empty wrappers; None when loose text comes first."""
    sibs = el.parent.children if el.parent is not None else []
    for node in reversed(sibs[: sibs.index(el)]):
        if isinstance(node, Text):
            if node.data.strip():
                return None
            continue
        if not isinstance(node, Element) or node.tag in SKIP_TAGS and node.tag not in PLAYER_TAGS:
            continue
        st = stats.get(node.nid)
        if st is not None and (st.units or st.images or st.embeds):
            return node
    return None


def _is_lead_player(el: Element, stats: dict[int, Stat], root_units: int) -> bool:
    """A player and a description: a sentence or more outside links, shorter than the article, no heading,
    list or link block (a "more videos" strip has those; the player's poster is often a link holding its
    status line), not hidden, not a promotion or a comment widget."""
    st = stats.get(el.nid)
    if st is None or not any(e.tag in PLAYER_TAGS for e in el.iter()):
        return False
    if _never_joined(el):
        return False
    text = normalize_space(el.text())
    return (
        SIBLING_PROSE_UNITS < st.units - st.link_units
        and st.units < root_units
        and st.link_density < MEDIA_MAX_LINK_DENSITY
        and st.marks >= 1
        and st.headings == 0
        and st.list_items == 0
        and text.rstrip(CLOSING_MARKS)[-1:] in SENTENCE_END
        and not (PROMO_TEXT.search(text) and st.units < PROMO_MAX_UNITS)
    )


def _prune_up_to(ctx: Context, root: Element, holder: Element, keep: Element, reason: str) -> None:
    """Remove what lies between ``root`` and its ancestor ``holder`` except the path and ``keep``."""
    cur = root
    while cur is not holder and cur.parent is not None:
        for sib in list(cur.parent.children):
            if sib is cur or sib is keep:
                continue
            if isinstance(sib, Element) or (isinstance(sib, Text) and sib.data.strip()):
                ctx.remove(sib, SCORE, "outside-root", reason)
            else:
                detach(sib)
        cur = cur.parent


def _learned_root(
    ctx: Context, body: Element, sc: Scoring, top: Element, joined: set[int]
) -> tuple[Element, set[int]]:
    """The learned model's choice among the rules' root and its alternatives (``readwell.root_model``),
    noted on ``ctx`` with its predicted gain when it overrules the rules."""
    ranked = sc.ranked()
    cands = root_model.candidates(body, ranked, top, joined)
    if len(cands) < 2 or not root_model_data.TREES:
        return top, joined
    title = normalize_space(ctx.meta.title or "").lower()
    facts = root_model.page_facts(
        body,
        sc.stats,
        sc.scores,
        sc.prose,
        ranked,
        ctx.meta.title,
        sc.body_elements,
        sc.title_headings(title) if sc.body_elements is not None else None,
    )
    i, preds = root_model.choose(
        cands, facts, root_model_data.TREES, root_model_data.BASE, root_model_data.MARGIN
    )
    if i == 0:
        return top, joined
    c = cands[i]
    ctx.note(
        "root-model",
        c.top,
        f"learned model chose {c.kind} over the rules' root {ctx.path_of(top)} "
        f"(predicted F1 gain {preds[i] - preds[0]:+.3f})",
    )
    return c.top, set(c.joined)


def _prune_outside(
    ctx: Context, root: Element, reason: str, kind: str, rule: str, path: str | None = None
) -> None:
    """Remove, with one log entry per subtree, everything in <body> that is not the root or its ancestor
    (``path``: the root's, if already known)."""
    path = ctx.path_of(root) if path is None else path
    cur = root
    while cur.parent is not None and cur.tag != "body":
        parent = cur.parent
        for sib in list(parent.children):
            if sib is cur:
                continue
            if isinstance(sib, Element) or (isinstance(sib, Text) and sib.data.strip()):
                ctx.remove(sib, kind, rule, f"{reason} ({path})")
            else:
                detach(sib)  # whitespace carries no content: not worth a log entry
        cur = parent
