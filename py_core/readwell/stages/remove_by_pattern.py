"""remove_by_pattern: short blocks whose whole text is boilerplate ("Share this article", "Sign up for our
newsletter…", "Read more:", "All rights reserved"), and bylines/dates repeated in the body.

After ``remove_by_selector``, on what selectors left: a text pattern is the weakest evidence, so it only
judges short blocks (``MAX_PATTERN_BLOCK``) and the pattern must cover the whole block; the same words inside
a paragraph of prose never match.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ..context import TEXT, Context
from ..dom import NON_TEXT, Element, Node, Text, nodes_after, normalize_space
from ..metadata import normalize_date
from ..pattern_start import START_CHARS, may_match, start_test
from ..rules import (
    BYLINE_TEXT,
    FOLD_SPECIALS,
    INLINE_TAGS,
    MAX_PATTERN_BLOCK,
    SEE_ALSO_HEADING,
    TEASER_HEADING,
    TEXT_RULE_WORDS,
    TEXT_RULES,
    TEXT_RULES_BESIDE_MEDIA,
    Rule,
    legal_notice,
)
from ..textstats import BLOCK_TAGS as LAYOUT_BLOCKS
from ..textstats import HEADINGS, headed_by_link, led_by_link, text_units
from ..thresholds import (
    BYLINE_LINE_MAX_WORDS,
    NOTICE_MIN_BEFORE_UNITS,
    NOTICE_TAIL_MAX_UNITS,
    REPEATED_FLOW_MIN_PARAGRAPHS,
    START_LINES,
    START_PROSE_UNITS,
    TEASER_TAIL_LINK_DENSITY,
    TEASER_TAIL_MAX_SHARE,
    TEASER_TAIL_MIN_CARDS,
    TEASER_TAIL_MIN_LINKS,
)

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("remove_by_selector",)

BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "li",
        "span",
        "a",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "section",
        "aside",
        "small",
        "strong",
        "em",
        "b",
        "footer",
        "header",
        "figcaption",
        "ul",
        "dd",
        "dt",
        "button",
        # old table layouts put their date, byline and legal lines in a cell or a <font> (a data table's
        # cells are never reached: the walk skips protected tables whole)
        "td",
        "font",
    }
)


def _length_bounds(pattern: re.Pattern[str]) -> tuple[int, int | None]:
    """The shortest text ``pattern`` can match, and the longest when it is anchored at both ends (``^…$``,
    without MULTILINE; ``$`` also matches before a final newline, hence the +1), else None. A block outside
    the bounds cannot match, so its search is skipped: the same verdicts, and no rule scans a paragraph of
    prose (``^.{0,120}\\ball rights reserved`` tried 120 starts per paragraph) nor a one-word span. The
    widths come from the standard library's own parser (``re._parser``); where it is missing or changed,
    every rule is searched, as before."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(pattern.pattern, pattern.flags)
        items = list(parsed)
        at, begin, end = _parser.AT, _parser.AT_BEGINNING, _parser.AT_END
        anchored = len(items) >= 2 and items[0] == (at, begin) and items[-1] == (at, end)
        shortest, longest = (int(w) for w in parsed.getwidth())
        if not anchored or pattern.flags & re.MULTILINE or longest >= _parser.MAXREPEAT:
            return shortest, None
        return shortest, longest + 1
    except Exception:  # noqa: BLE001 - an optimisation only: no bounds, every rule is searched
        return 0, None


# Each text rule with the shortest and longest block it can match (None: no upper bound), a test of the
# block's first characters (``pattern_start``; None: any start) and the words it cannot match a block without
# (``TEXT_RULE_WORDS``), computed once.
_BOUNDED_RULES = tuple(
    (r, *_length_bounds(r.match), start_test(r.match, search=True), TEXT_RULE_WORDS.get(r.id, ()))
    for r in TEXT_RULES
)
_FOLD_SPECIAL = re.compile("[" + "".join(sorted(FOLD_SPECIALS)) + "]")


def match_boilerplate(text: str) -> Rule[re.Pattern[str]] | None:
    """The first text rule covering the whole of a short block's text. A rule is searched only on a block
    within its length bounds, starting the way a match can start (prose is not searched by rules that need
    "Share", "Follow" or a digit first) and, when the block has none of FOLD_SPECIALS, holding one of the
    rule's words (``TEXT_RULE_WORDS``: the costly rules' prefixes and lookaheads are not tried on prose)."""
    n = len(text)
    if not text or n > MAX_PATTERN_BLOCK:
        return None
    start = text[:START_CHARS]
    rules = _RULES_BY_START.get(start)
    if rules is None:
        if len(_RULES_BY_START) >= _RULES_BY_START_MAX:
            _RULES_BY_START.clear()
        rules = _RULES_BY_START[start] = tuple(b for b in _BOUNDED_RULES if may_match(b[3], start))
    low: str | None = None  # the lower-cased block, made once a rule has words; "": not usable (see above)
    for r, least, most, _, words in rules:
        if least > n or (most is not None and n > most):
            continue
        if words:
            if low is None:
                low = text.lower() if text.isascii() or _FOLD_SPECIAL.search(text) is None else ""
            if low and not any(w in low for w in words):
                continue
        if r.match.search(text):
            return r
    return None


# The rules a block starting with these characters can match, in TEXT_RULES order: blocks of prose start
# with a few common words, so the start tests run once per start, not once per block and rule. Bounded.
_RULES_BY_START: dict[
    str, tuple[tuple[Rule[re.Pattern[str]], int, int | None, re.Pattern[str] | None, tuple[str, ...]], ...]
] = {}
_RULES_BY_START_MAX = 20_000


_NAME_JOINERS = frozenset(
    {"and", "&", "de", "da", "van", "von", "der", "del", "la", "le", "di", "bin", "al", "y", "e"}
)


def looks_like_names(s: str) -> bool:
    """'A. Writer and B. Author, Staff Reporters' yes; 'noon the tap had run dry.' no: names are
    capitalized."""
    words = [w.strip(",;:|") for w in s.split() if w.strip(",;:|")]
    if (
        not words
        or len(words) > 9
        or s.rstrip().endswith((".", "!", "?"))
        and not s.rstrip()[-2:-1].isupper()
    ):
        return False
    return all(w[0].isupper() or w.lower() in _NAME_JOINERS or not w[0].isalpha() for w in words)


MEDIA_TAGS = frozenset({"img", "picture", "video", "figure", "svg", "iframe"})


def _below(root: Element) -> tuple[set[int], set[int], set[int]]:
    """Python ids of the elements with media below them, with an ``<img>`` below them, and with a block
    below them that makes them no leaf block (``LEAF_BREAKERS``; a wrapper repeats its child's text): one
    bottom-up pass instead of a subtree walk per block (quadratic in depth). The stage removes only after
    its walk, so they stay true."""
    media: set[int] = set()
    imgs: set[int] = set()
    breakers: set[int] = set()
    for el in reversed(list(root.iter())):
        has_media = has_img = has_breaker = False
        for c in el.children:
            if isinstance(c, Element):
                k, t = id(c), c.tag
                has_media = has_media or t in MEDIA_TAGS or k in media
                has_img = has_img or t == "img" or k in imgs
                has_breaker = has_breaker or t in LEAF_BREAKERS or k in breakers
        if has_media:
            media.add(id(el))
        if has_img:
            imgs.add(id(el))
        if has_breaker:
            breakers.add(id(el))
    return media, imgs, breakers


def _text_within(el: Element, cap: int) -> str:
    """``normalize_space(el.text())`` when that has at most ``cap`` characters, else a longer string: the
    walk stops once more than ``cap`` non-space characters are joined (patterns judge only short blocks,
    so a wrapper of a long article is not joined in full at every level of nesting)."""
    kids = el.children
    if len(kids) == 1 and kids[0].__class__ is Text and len(kids[0].data) <= cap:
        return normalize_space(kids[0].data)  # (a block of one short text)
    out: list[str] = []
    raw = solid = counted = 0
    stack: list[Node] = [el]
    while stack:
        n = stack.pop()
        if isinstance(n, Text):
            out.append(n.data)
            raw += len(n.data)
            if raw > cap:  # only then can more than ``cap`` characters be non-space: count them
                solid += sum(map(len, map("".join, map(str.split, out[counted:]))))
                counted = len(out)
                if solid > cap:
                    return "".join(out)  # longer than ``cap`` (normalizing it would not bring it below)
        elif isinstance(n, Element) and (n is el or n.tag not in NON_TEXT):
            stack += reversed(n.children)
    return normalize_space("".join(out))


def is_meta_line(text: str, byline: str | None) -> str | None:
    """A short line that only restates the byline or a date (the result carries them as metadata)."""
    if not text or len(text) > 140:
        return None
    t = text.strip(" |·•-–—,")
    if byline and len(byline) > 2:
        low = t.lower()
        b = byline.lower()
        if (
            low == b
            or low.startswith(("by " + b, b + ","))
            or (low.startswith("by ") and b in low and len(low) < len(b) + 80)
        ):
            return "byline repeated in the body"
    m = BYLINE_TEXT.match(t)
    if m and len(t) < 80 and looks_like_names(m.group(2)):
        return "byline line"
    # (every date format normalize_date reads has digits: the check skips its parsers on plain words)
    if len(t) < 80 and any(map(str.isdigit, t)) and normalize_date(t):  # (map: no frame per character)
        stripped = _DATE_WORDS.sub(" ", t)
        if len(_LONG_WORDS.findall(stripped)) <= 3:
            return "date line"
    return None


# The words and separators of a date line (is_meta_line: what is left must be at most three long words).
_DATE_WORDS = re.compile(
    r"(?i)\b(posted|published|updated|on|at|am|pm|[a-z]{3}|gmt|utc|edt|est|cst|pst|bst|cet)\b|[|·•,:]"
)
_LONG_WORDS = re.compile(r"[^\W\d]{4,}")


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    remove_trailing_teasers(
        ctx, root
    )  # first: the heading alone is also a "related" prompt for the rules below
    remove_closing_notice(ctx, root)  # before the block rules: they would take the notice but leave its tail
    found: list[tuple[Element, str, str]] = []
    byline = ctx.meta.byline
    seen: dict[str, Element] = {}
    media, imgs, breakers = _below(root)
    stack = [c for c in root.children if isinstance(c, Element)]
    stack.reverse()
    protected = ctx.protected_in_walk(root, except_kinds=FIGURE)  # (the walk descends into unprotected only)
    while stack:
        el = stack.pop()
        if protected(el) or el.tag in ("h1",):
            continue
        if el.tag == "p" and all_caps_link_line(el):
            found.append(
                (el, "all-caps-link-line", "related-story insert: a paragraph that is one all-caps link")
            )
            continue
        if el.tag in BLOCK_TAGS:
            text = _text_within(el, MAX_PATTERN_BLOCK)
            if not text and id(el) not in imgs:
                pass
            else:
                m = match_boilerplate(text)
                if m and id(el) in media and m.id not in TEXT_RULES_BESIDE_MEDIA:
                    m = None
                if m and el.tag in HEADINGS and SEE_ALSO_HEADING.match(text):
                    m = None  # the heading of the article's "See also" section, not a prompt
                if m and m.id == "media-credit" and spec_list_item(el):
                    m = None  # "Video: 4K at 30 fps" in a product's list of features, not a photo credit
                if m and _standalone(el):
                    found.append((el, m.id, m.reason))
                    continue
                # (a date and byline line in a cell or <font> stays: dragnet-dev's blog golds keep one, T115)
                meta_line = (
                    is_meta_line(text, byline)
                    if el.tag not in ("ul", "section", "aside", "td", "font")
                    else None
                )
                if meta_line and _standalone(el, by_line=False) and not _has_block_kids(el):
                    found.append((el, "byline-or-date-line", meta_line))
                    continue
                if len(text) >= 40 and el.tag in ("p", "figcaption", "div") and id(el) not in breakers:
                    if len(text) > MAX_PATTERN_BLOCK:
                        text = normalize_space(el.text())  # leaf blocks are disjoint: joined once each
                    first = seen.get(text)
                    if (
                        first is not None
                        and first.parent is not el.parent
                        and not same_item_slot(first, el)
                        # a caption's, dek's or quote's text printed again in the article's flow is read there
                        and not (_in_paragraph_flow(el) and not _in_paragraph_flow(first))
                    ):
                        # a slideshow repeats captions in separate slides; identical steps in one list stay
                        found.append(
                            (el, "repeated-block", "the same text already appears earlier in the article")
                        )
                        continue
                    seen.setdefault(text, el)
        stack += reversed([c for c in el.children if isinstance(c, Element)])
    for el, pattern, reason in found:
        ctx.remove(el, TEXT, pattern, reason)
    # The result's byline: <head>'s, else the one the metadata reader takes from the body near the root
    # (complete_metadata reads the same, of the input page: ``Context.facts_for``, read once).
    if byline is None and ctx.root is not None:
        byline = ctx.facts_for(root).byline()
    if byline:
        remove_byline_line_at_start(ctx, root, byline)
    remove_timestamp_lines_at_start(ctx, root)


def _in_paragraph_flow(el: Element) -> bool:
    """A ``<p>`` among its parent's paragraphs (``REPEATED_FLOW_MIN_PARAGRAPHS``): a paragraph of a text's
    flow, not a caption, a dek or a one-paragraph quote."""
    if el.tag != "p" or el.parent is None:
        return False
    paragraphs = 0
    for c in el.parent.children:
        if isinstance(c, Element) and c.tag == "p":
            paragraphs += 1
            if paragraphs >= REPEATED_FLOW_MIN_PARAGRAPHS:
                return True
    return False


_HEADING_LIKE = frozenset({"h2", "h3", "h4", "h5", "h6", "p", "div", "strong", "b", "span", "dt"})
TEASER_HEADING_MAX_CHARS = 60
_TEASER_START = start_test(TEASER_HEADING)


def remove_trailing_teasers(ctx: Context, root: Element) -> None:
    """A related-stories block closing the root: a heading saying so ("Related stories", "More from X",
    ``rules.TEASER_HEADING``) followed, to the end of the root, only by links (headlines), removed with
    the heading. An article's own closing list of sources or references has another heading and stays;
    so does a closing section with sentences (link density) or a large one (share of the root)."""
    heads = [
        e
        for e in root.iter(include_self=False)
        if e.tag in _HEADING_LIKE
        and may_match(_TEASER_START, e.text_start(START_CHARS))  # (its start: prose is not joined)
        and len(t := _text_within(e, TEASER_HEADING_MAX_CHARS)) <= TEASER_HEADING_MAX_CHARS
        and TEASER_HEADING.match(t)
    ]
    if not heads:
        return
    total = text_units(root.text())
    for head in heads:
        if head.parent is None:
            continue
        tail = nodes_after(head, root)
        els = [n for n in tail if isinstance(n, Element)]
        text = " ".join(
            n.text() if isinstance(n, Element) else n.data for n in tail if isinstance(n, Element | Text)
        )
        units = text_units(text)
        links = [a for e in els for a in e.iter() if a.tag == "a" and a.get("href")]
        link_units = sum(text_units(a.text()) for a in links)
        if (
            units == 0
            or len(links) < TEASER_TAIL_MIN_LINKS
            or link_units / units < TEASER_TAIL_LINK_DENSITY
            and not teaser_cards(els)
            or units > TEASER_TAIL_MAX_SHARE * total
        ):
            continue
        ctx.remove(
            head, TEXT, "trailing-teaser-block", "heading of a related-stories block ending the article"
        )
        for n in tail:
            if n.parent is not None and (isinstance(n, Element) or isinstance(n, Text) and n.data.strip()):
                ctx.remove(n, TEXT, "trailing-teaser-block", "related-stories links ending the article")
        return


def root_lines(root: Element) -> list[list[Text]]:
    """Every line of the root in document order: the text nodes of one run of inline content between block
    boundaries and ``<br>``s. The text of code and preformatted blocks is one line each."""
    return list(iter_lines(root))


def iter_lines(root: Element) -> Iterator[list[Text]]:
    """``root_lines``, one line at a time: a caller that needs the first few lines walks no further."""
    line: list[Text] = []
    stack: list[Node | None] = list(reversed(root.children))
    while stack:
        n = stack.pop()
        if n is None or isinstance(n, Element) and (n.tag in LAYOUT_BLOCKS or n.tag == "br"):
            if line:
                yield line
                line = []
            if isinstance(n, Element) and n.tag != "br":
                stack.append(None)  # the block's end is a boundary too
                if n.tag == "pre":
                    line.extend(t for t in n.iter_nodes() if isinstance(t, Text) and t.data.strip())
                    stack.append(None)
                else:
                    stack += reversed(n.children)
        elif isinstance(n, Text):
            if n.data.strip():
                line.append(n)
        elif isinstance(n, Element) and n.tag not in NON_TEXT:
            stack += reversed(n.children)
    if line:
        yield line


def iter_lines_from_end(root: Element) -> Iterator[list[Text]]:
    """``root_lines`` from the last line back (each line's nodes still in document order): the same walk
    mirrored, children taken last first, a block's start and end both boundaries, so a caller that needs
    the last few lines of a long article walks only those."""
    line: list[Text] = []  # the current line, last node first
    stack: list[Node | None] = list(root.children)
    while stack:
        n = stack.pop()
        if n is None or isinstance(n, Element) and (n.tag in LAYOUT_BLOCKS or n.tag == "br"):
            if line:
                line.reverse()
                yield line
                line = []
            if isinstance(n, Element) and n.tag != "br":
                stack.append(None)  # the block's start, reached after its children
                if n.tag == "pre":
                    pre = [t for t in n.iter_nodes() if isinstance(t, Text) and t.data.strip()]
                    if pre:
                        yield pre  # one line of its own (``line`` was just emptied at the boundary)
                else:
                    stack += n.children
        elif isinstance(n, Text):
            if n.data.strip():
                line.append(n)
        elif isinstance(n, Element) and n.tag not in NON_TEXT:
            stack += n.children
    if line:
        line.reverse()
        yield line


def remove_closing_notice(ctx: Context, root: Element) -> None:
    """A site's legal notice closing the article (``rules.LEGAL_NOTICE``: "Copyright 2008 X. All rights
    reserved.", "This material may not be published, broadcast, rewritten or redistributed.") and the little
    that follows it to the end of the root (the site's terms line, a page counter, a disclaimer).

    Old news templates print the notice in the article's own cell or ``<div>``, after a ``<br>``, where no
    block rule can take it without the article. Only a line after ``NOTICE_MIN_BEFORE_UNITS`` of text and
    with at most ``NOTICE_TAIL_MAX_UNITS`` after it: a copyright line at the top (a title's "© 2003 X") or
    one followed by a section of text stays, as does one in code or a data table.

    The same templates print the links to the neighbouring stories there too ("Previous story: X<br>Next
    story: Y" after the last paragraph, in the story's cell): a line of that tail matching the
    ``post-navigation`` text rule goes on its own, whether a notice follows or not.
    """
    texts: dict[int, str] = {}  # id of a line's first node -> the line's normalized text

    def units_of(line: list[Text]) -> int:
        texts[id(line[0])] = text = normalize_space(" ".join(t.data for t in line))
        return text_units(text)

    # Only a line with NOTICE_MIN_BEFORE_UNITS before it and at most NOTICE_TAIL_MAX_UNITS after it can be
    # the notice: the first lines and the last ones decide where such lines are, so a long article's lines
    # between them are never walked, joined or measured (the text before a line only grows, the text after
    # it only shrinks, line by line). Lines are disjoint, so a line is known by its first node.
    front: list[list[Text]] = []
    before = 0
    for line in iter_lines(root):
        front.append(line)
        before += units_of(line)
        if before >= NOTICE_MIN_BEFORE_UNITS:
            break
    if before < NOTICE_MIN_BEFORE_UNITS:
        return
    last_front = front[-1][0]
    tail_lines: list[list[Text]] = []  # from the first line with at most NOTICE_TAIL_MAX_UNITS after it
    after = 0
    for line in iter_lines_from_end(root):
        if after > NOTICE_TAIL_MAX_UNITS or line[0] is last_front:
            break
        tail_lines.append(line)
        after += units_of(line)
    tail_lines.reverse()
    navigation: list[list[Text]] = []
    for line in tail_lines:
        text = texts[id(line[0])]
        if len(text) > MAX_PATTERN_BLOCK:
            continue
        notice = legal_notice(text)
        if not notice and not POST_NAVIGATION.match(text):
            continue
        if any(ctx.is_protected(t.parent) for t in line if t.parent is not None):
            continue
        if notice:
            _remove_navigation(ctx, root, navigation)
            last = _line_top(line[-1], root, {id(t) for t in line})
            tail = nodes_after(last, root)  # type: ignore[arg-type]  # (a Text's siblings are as good)
            _remove_line(ctx, root, line, "closing-legal-notice", "legal notice ending the article")
            for node in tail:
                if node.parent is not None and (
                    isinstance(node, Element) or isinstance(node, Text) and node.data.strip()
                ):
                    ctx.remove(node, TEXT, "closing-legal-notice", "page footer after the legal notice")
            return
        navigation.append(line)
    _remove_navigation(ctx, root, navigation)


# The text rule for links to the neighbouring stories, asked of the closing lines one by one
POST_NAVIGATION = next(r for r in TEXT_RULES if r.id == "post-navigation").match


def _remove_navigation(ctx: Context, root: Element, lines: list[list[Text]]) -> None:
    for line in lines:
        _remove_line(ctx, root, line, "post-navigation-line", "links to the previous and next stories")


def teaser_cards(els: list[Element]) -> bool:
    """The elements after a related-stories heading are cards, each a headline link with a line of summary
    (sentences lower their link density, so density alone keeps them): at least ``TEASER_TAIL_MIN_CARDS``
    items, every one led by a link or headed by a linked heading. A lone wrapper is looked into."""
    items = [e for e in els if e.shows_text()]
    while len(items) == 1:
        items = [e for e in items[0].element_children if e.shows_text()]
    return len(items) >= TEASER_TAIL_MIN_CARDS and all(led_by_link(e) or headed_by_link(e) for e in items)


def start_lines(root: Element) -> list[list[Node]]:
    """The first lines of the root, each the nodes of one run of inline content (text nodes and ``<br>``
    between block boundaries and line breaks), up to the first line of prose or ``START_LINES`` lines."""
    lines: list[list[Node]] = [[]]
    stack: list[Node | None] = [c for c in reversed(root.children)]
    while stack and len(lines) <= START_LINES:
        n = stack.pop()
        if n is None or (isinstance(n, Element) and (n.tag in LAYOUT_BLOCKS or n.tag == "br")):
            if lines[-1]:
                if (
                    text_units(" ".join(t.data for t in lines[-1] if isinstance(t, Text)))
                    >= START_PROSE_UNITS
                ):
                    lines.pop()
                    break
                lines.append([])
            if isinstance(n, Element) and n.tag != "br":
                stack.append(None)  # the block's end is a boundary too
                stack += reversed(n.children)
            elif isinstance(n, Element) and lines[-1] == [] and len(lines) > 1:
                lines[-2].append(n)  # the <br> ending a line goes with it
            continue
        if isinstance(n, Text):
            if n.data.strip():
                lines[-1].append(n)
        elif isinstance(n, Element) and n.tag not in NON_TEXT:
            stack += reversed(n.children)
    return [ln for ln in lines if any(isinstance(t, Text) for t in ln)]


def byline_line(text: str, byline: str) -> bool:
    """``text`` is "By" and the byline with a few words (a role, an agency, a date), not a sentence.

    Only a line starting "By" (``rules.BYLINE_TEXT``): "Posted by X" lines of blog posts are kept by the
    dragnet-dev gold (taking them too cost that set F1 0.0008 while l3s-gn1 gained 0.0005)."""
    low, b = text.lower(), byline.lower().strip()
    if len(b) < 3 or b not in low or len(text) > 160 or not BYLINE_TEXT.match(text):
        return False
    rest = low.replace(b, " ", 1)
    return len(re.findall(r"[^\W\d_]+", rest)) <= BYLINE_LINE_MAX_WORDS


def remove_byline_line_at_start(ctx: Context, root: Element, byline: str) -> None:
    """The byline line at the top of the root, when it sits inside a larger block (a line ended by ``<br>``,
    or the text before the first paragraph), which the block rules above cannot take without the block.

    Only before the first line of prose, only a line that shares its block with other text (a block of its
    own is the block rules' to judge), and only "By" + the extracted byline with a few words around it: a
    sentence naming the author, or the byline further down, stays.
    """
    for line in start_lines(root):
        texts = [t for t in line if isinstance(t, Text)]
        if not byline_line(normalize_space(" ".join(t.data for t in texts)), byline):
            continue
        ids = {id(t) for t in texts}
        block = next((a for a in texts[0].ancestors() if a is root or a.tag in LAYOUT_BLOCKS), root)
        if all(id(t) in ids for t in block.iter_nodes() if isinstance(t, Text) and t.data.strip()):
            return  # a block of its own: the block rules above judge it
        _remove_line(ctx, root, line, "byline-line-at-start", "the byline repeated at the top of the article")
        return


# A clock time (10:46, 11:31:01, 7.40pm, 1530 Hrs) and a relative time ("1 hour, 40 minutes ago"): what a
# page's template stamps, which an author does not write above the story.
_CLOCK = re.compile(r"\b\d{1,2}:\d\d\b|\b\d{1,2}\.\d\d\s*([ap]\.?m\b)|\b\d{4} hrs\b", re.I)
_DAY = re.compile(
    r"\b\d{1,4}[/.-]\d{1,2}([/.-]\d{2,4})?\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b\.?",
    re.I,
)
# a byline with its time ("Posted by X - Friday, October 26, 2012 at 5:15:00 PM"): dragnet-dev's blog golds
# keep these (the "ago" form above is the wire services', which l3s-gn1's golds drop)
_BY = re.compile(r"\bby\b", re.I)
STAMP_MAX_WORDS = 2  # "The Associated Press"; "The meeting starts at 10:30 on ..." has three
_AGO = re.compile(r"^.{0,70}\b\d+ (minutes?|hours?|mins?|hrs?)(,? \d+ (minutes?|mins?))? ago$", re.I)
_STAMP_WORDS = re.compile(
    r"(?i)\b(posted|online|published|updated|created|on|at|am|pm|a\.m|p\.m|hrs|[a-z]{2,3}|\d+(st|nd|rd|th)|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|"
    r"september|october|november|december)\b|[|·•,:.\-–—]"
)


def timestamp_line(text: str) -> bool:
    """A date with a time of day ("Posted on: December 28, 2007 10:57 PST", "2007-12-30 14:49:00.0",
    "1/14/2008, 8:34 a.m. EST") with at most three other long words, or a line ending in a relative time
    ("By X, Staff Writer 42 minutes ago").

    A date alone ("Monday, November 1, 2012", "For Immediate Release: Nov. 6, 2012") is not one: dragnet-dev's
    and readability-dev's golds keep such lines above blog posts and press releases, l3s-gn1's drop them."""
    t = text.strip(" |·•-–—,")
    if not t or len(t) > 90:
        return False
    if _AGO.match(t):
        return True
    if not _CLOCK.search(t) or not _DAY.search(t) or _BY.search(t):
        return False
    return len(_LONG_WORDS.findall(_STAMP_WORDS.sub(" ", t))) <= STAMP_MAX_WORDS


def remove_timestamp_lines_at_start(ctx: Context, root: Element) -> None:
    """Timestamp lines (``timestamp_line``) among the first lines of the root, before its first line of
    prose: a block of their own in a table cell or ``<font>`` (which the date-line rule leaves) or a line
    of a larger block, ended by ``<br>``. A stamp is plain text: a line with a link in it ("... 9:04 PM /
    <a>News</a>", a section or author link) is a meta row, which dragnet-dev's golds keep."""
    for line in start_lines(root):
        texts = [t for t in line if isinstance(t, Text)]
        if (
            timestamp_line(normalize_space(" ".join(t.data for t in texts)))
            and not any(ctx.is_protected(t.parent) for t in texts if t.parent is not None)
            and not any(_in_link(t, root) for t in texts)
        ):
            _remove_line(
                ctx, root, line, "timestamp-line-at-start", "the page's time stamp above the article"
            )


def _in_link(node: Node, root: Element) -> bool:
    """``node`` is inside an ``<a>`` below ``root``."""
    for a in node.ancestors():
        if a is root:
            return False
        if a.tag == "a":
            return True
    return False


def _remove_line(ctx: Context, root: Element, line: Sequence[Node], rule: str, reason: str) -> None:
    """Remove one line of ``start_lines``: its nodes and the inline elements holding only them."""
    ids = {id(t) for t in line if isinstance(t, Text)}
    for node in line:
        if node.parent is None:
            continue
        ctx.remove(_line_top(node, root, ids), TEXT, rule, reason)


def _line_top(node: Node, root: Element, ids: set[int]) -> Node:
    """``node``'s highest inline ancestor below ``root`` holding only text of the line (``ids``)."""
    top = node
    while (
        top.parent is not None
        and top.parent is not root
        and top.parent.tag not in LAYOUT_BLOCKS
        and all(id(t) in ids for t in top.parent.iter_nodes() if isinstance(t, Text) and t.data.strip())
    ):
        top = top.parent
    return top


LEAF_BREAKERS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "ul",
        "ol",
        "li",
        "table",
        "blockquote",
        "pre",
        "figure",
        "figcaption",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "footer",
        "main",
        "aside",
        "dl",
    }
)


FIGURE = frozenset({"figure"})


def all_caps_link_line(el: Element) -> bool:
    """A paragraph made of one link to another page whose text is in capitals (inline related story)."""
    if any(c.__class__ is Text and c.data.strip() for c in el.children):
        return False  # words of its own, outside any link: its text is not a link's text
    links = [
        a
        for a in el.iter(include_self=False)
        if a.tag == "a" and a.get("href") and not a.get("href").startswith("#")
    ]
    if len(links) != 1:
        return False
    text = normalize_space(el.text())
    if normalize_space(links[0].text()) != text or len(text.split()) < 3:
        return False
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and sum(ch.isupper() for ch in letters) / len(letters) >= 0.8


def same_item_slot(first: Element, el: Element) -> bool:
    """``el`` repeats ``first`` at the same place in a sibling item of a repeated structure: the same question
    in each interview of a roundup, the same closing line in each product of a listicle.

    The two parents look alike (tag and classes) and the block sits at the same position in each, but the
    items say different things: that is a template's fixed line, part of every item. A slideshow repeating a
    caption in a thumbnail strip (a different container) or a cloned slide (the same item twice) is not.
    """
    a, b = first.parent, el.parent
    if a is None or b is None or a.tag != b.tag or sorted(a.classes) != sorted(b.classes):
        return False
    if _element_index(first, a) != _element_index(el, b):
        return False
    return normalize_space(a.text()) != normalize_space(b.text())


def _element_index(el: Element, parent: Element) -> int:
    """Position among element siblings (whitespace between tags varies from item to item)."""
    return next(i for i, c in enumerate(parent.element_children) if c is el)


def _has_block_kids(el: Element) -> bool:
    return any(
        isinstance(c, Element) and c.tag in ("p", "div", "ul", "ol", "table", "section", "blockquote", "pre")
        for c in el.children
    )


def _line_of(el: Element, par: Element) -> str:
    """The text of ``el``'s line in ``par``: its run of ``par``'s children between ``<br>``s."""
    line: list[str] = []
    found = False
    for c in par.children:
        if isinstance(c, Element) and c.tag == "br":
            if found:
                break
            line = []
            continue
        if c is el:
            found = True
        line.append(c.text() if isinstance(c, Element) else c.data if isinstance(c, Text) else "")
    return normalize_space("".join(line)) if found else ""


# One entry of a list of specifications ("Processor: 1.2 GHz", "Graphics: integrated", "Video: 4K"): a
# "Label: value" line in a list of at least SPEC_LIST_MIN_ITEMS items, two thirds of them "Label: value"
# lines with different labels (a slideshow's items that each say "Photo: X" are credits).
_LABEL_VALUE = re.compile(r"^([^:：]{1,40})[:：]\s*\S")
SPEC_LIST_MIN_ITEMS = 3


def spec_list_item(el: Element) -> bool:
    """``el`` is a ``<li>`` of a list of "Label: value" lines (a product's features, a camera's specs): the
    media-credit pattern's labels (Video, Graphic, Photo, Image, Source) are spec names there."""
    if el.tag != "li" or el.parent is None:
        return False
    items = [c for c in el.parent.children if isinstance(c, Element) and c.tag == "li"]
    if len(items) < SPEC_LIST_MIN_ITEMS:
        return False
    labels = [m.group(1).strip().lower() for li in items if (m := _LABEL_VALUE.match(li.text_start(80)))]
    return len(labels) * 3 >= len(items) * 2 and len(set(labels)) * 3 >= len(labels) * 2


def _standalone(el: Element, by_line: bool = True) -> bool:
    """An inline element matches only if it is the whole text of its block, or (``by_line``, the text rules)
    of its line there between ``<br>``s: not a phrase in prose. Inline wrappers of the same text
    (``<em><em>Join the ...</em></em>`` at the end of a sentence) are climbed first: the block they sit in
    decides. Byline and date lines are judged on the whole block (by line, "29 November 2018 | 20 January
    2019" under an exhibition's title went, which scrapinghub's gold keeps)."""
    if el.tag in ("span", "a", "strong", "em", "b", "small", "font"):
        own = normalize_space(el.text())
        top = el
        while (
            top.parent is not None
            and top.parent.tag in INLINE_TAGS
            and normalize_space(top.parent.text()) == own
        ):
            top = top.parent
        par = top.parent
        if par is None:
            return False
        if normalize_space(par.text()) == own or (by_line and _line_of(top, par) == own):
            return True
        # A label between blocks (a gallery counter beside an image and a caption), not a phrase in prose:
        # the parent has no text of its own and holds blocks.
        own_text = any(isinstance(c, Text) and c.data.strip() for c in par.children)
        return not own_text and _has_block_kids(par)
    return True
