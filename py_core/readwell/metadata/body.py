"""Readers of the body, used once the root is chosen: bylines and ``<time>`` near the root, the root's
heading, the article's first paragraph and image.

Body values are taken only inside the chosen root or just before it in the same container, never from a
card that is another ``<article>``: related-post cards carry their own dates and authors.
"""

from __future__ import annotations

import re

from .. import deadline
from ..dom import NON_TEXT, Document, Element, Node, Text, normalize_space
from ..rules import BYLINE_TEXT, BYLINE_TOKENS, tokens_of
from .bylines import clean_byline
from .dates import normalize_date

# Containers that hold another item's values (a card, a sidebar), unless they also hold the root.
CARD_TAGS = frozenset({"article", "li", "aside", "nav", "footer"})
CARD_TOKENS = frozenset(
    {"related", "card", "teaser", "recirc", "sidebar", "promo", "more", "recommended", "trending"}
)
NEAR_LEVELS = 3  # a body value must share an ancestor with the root at most this many levels above it
MAX_BYLINE_CHARS = 100  # a longer "byline" element is a bio box or a paragraph
BYLINE_LINE_TAGS = frozenset({"p", "span", "div", "address", "a", "strong", "em", "small"})
# How a "By A. Writer" line (``BYLINE_TEXT``) must start: checked on the first characters of a candidate's
# text before its first 100 are read (most candidates fail here). A normalized text has no leading space, so
# the longest start ("door ") is within them; a test keeps this in step with ``BYLINE_TEXT``.
BYLINE_START = re.compile(r"(by|von|par|por|door|di|av)\s", re.I)
BYLINE_START_CHARS = 6
# The same question asked of a text node without normalizing it: after its leading white space, either a
# byline word and a space (group 1), or (group 2, the text cannot start with a byline word) a first character
# no byline word starts with, or BYLINE_START_CHARS other characters (a text starting with these characters
# normalizes to a text starting with them, white space runs aside). No match: white space only, or too short
# to tell.
BYLINE_WORDS = BYLINE_START.pattern[1 : BYLINE_START.pattern.index(")")].split("|")
_BYLINE_FIRSTS = "|".join(dict.fromkeys(w[0] for w in BYLINE_WORDS))
BYLINE_LEAD = re.compile(
    rf"\s*+(?:{BYLINE_START.pattern}|((?!{_BYLINE_FIRSTS})\S|\S.{{{BYLINE_START_CHARS - 1}}}))",
    BYLINE_START.flags | re.S,
)
MIN_EXCERPT_CHARS = 40  # a shorter first paragraph is a dateline or a caption, not the lede
MAX_EXCERPT_CHARS = 200


def near_root(el: Element, root: Element | None) -> bool:
    """Inside the root, or before it inside one of its ancestors, and not inside another article card."""
    if root is None:
        return True
    ancestors_of_el = list(el.ancestors())
    if root in ancestors_of_el or el is root:
        return True
    root_line = [root, *root.ancestors()]  # ``a`` holds the root when it is on this line
    for a in ancestors_of_el:
        if a.tag in CARD_TAGS and not any(r is a for r in root_line):
            return False
        if tokens_of(a.get("class") + " " + a.id) & CARD_TOKENS:
            return False
    # Must share a near ancestor with the root (same header/container).
    root_anc = [root, *list(root.ancestors())[:NEAR_LEVELS]]
    return any(a in ancestors_of_el for a in root_anc if a.tag not in ("body", "html", "#document"))


def body_byline(doc: Document, root: Element | None) -> str | None:
    """A byline element (``rel=author``, ``itemprop=author``, a byline class) near the root, else an
    unclassed "By A. Writer" line near it."""
    scope = doc.body
    for el in scope.iter():
        attrs = el.attrs
        if not attrs or el.tag in ("script", "style", "nav", "footer"):
            continue  # without attributes nothing below can name it a byline
        if not (
            attrs.get("rel") == "author"
            or attrs.get("itemprop") == "author"
            or not tokens_of(attrs.get("class", "") + " " + attrs.get("id", "")).isdisjoint(BYLINE_TOKENS)
        ):
            continue  # (the cheap questions first, and no set made for the answer)
        text = normalize_space(el.text())
        if not text or len(text) > MAX_BYLINE_CHARS or not near_root(el, root):
            continue
        name_el = next((e for e in el.iter() if e.get("itemprop") == "name"), None)
        if name_el is not None and normalize_space(name_el.text()):
            return normalize_space(name_el.text())
        return clean_byline(text)
    for el in _line_candidates(scope):
        if not BYLINE_START.match(el.text_start(BYLINE_START_CHARS)):
            continue  # cannot match BYLINE_TEXT below (asked first: it rules out nearly every block)
        if any(isinstance(c, Element) and c.tag in ("p", "div") for c in el.children):
            continue
        # The whole normalized text when it is shorter than the limit; a longer text is cut there (and then
        # fails the length test): a big block's text is never joined just to learn it is too long.
        text = el.text_start(MAX_BYLINE_CHARS)
        if 4 < len(text) < MAX_BYLINE_CHARS and BYLINE_TEXT.match(text) and near_root(el, root):
            return clean_byline(text)
    return None


def _line_candidates(scope: Element) -> list[Element]:
    """The ``BYLINE_LINE_TAGS`` elements below ``scope``, in document order, less those whose text cannot
    start with a byline word (a superset of the ones that do).

    Why: asking every block for its normalized first characters was the cost of ``body_byline`` on pages
    without a head byline (~1 us a block: most blocks start with a white-space text and the question walks
    on). An element's text starts with the first text node after its start tag that is not white space
    (script and style texts aside), so every block opened since the last such text shares it: one walk of
    the nodes, and one anchored match per text that some block starts with."""
    dl = deadline.current()
    out: list[Element] = []
    pending: list[Element] = []  # blocks opened since the last text that was not white space
    stack: list[Node] = scope.children[::-1]
    pop = stack.pop
    lead_of = BYLINE_LEAD.match
    while stack:
        n = pop()
        if n.__class__ is Text:
            if pending:
                data = n.data
                lead = lead_of(data)
                if lead is None:
                    if not data or data.isspace():
                        continue  # the blocks' text has not started yet
                elif lead[2] is not None:
                    pending.clear()  # none of them starts with a byline word
                    continue
                out += pending  # a byline word, or too short to tell: ask each block
                pending.clear()
            continue
        el: Element = n  # type: ignore[assignment]
        if dl is not None:
            dl.tick()
        if el.tag in NON_TEXT:  # (its texts are not its ancestors' text: ask whatever is open, and inside)
            out += pending
            pending.clear()
            out += (e for e in el.iter(include_self=False) if e.tag in BYLINE_LINE_TAGS)
            continue
        if el.tag in BYLINE_LINE_TAGS:
            pending.append(el)
        if el.children:
            stack += el.children[::-1]
    return out


_DATE_PROPS = ("datePublished", "dateModified")


def body_dates(doc: Document, root: Element | None) -> tuple[str | None, str | None]:
    """(published, modified) from ``<time>`` and ``itemprop=datePublished/dateModified`` near the root; a
    ``dateModified`` or a time with class ``updated`` is the modification date."""
    published = modified = None
    for el in doc.body.iter():
        if el.tag != "time" and (not el.attrs or el.attrs.get("itemprop") not in _DATE_PROPS):
            continue  # (read from the dict: most elements have no attributes, none of these)
        if not near_root(el, root):
            continue
        d = normalize_date(el.get("datetime") or el.get("content") or el.text())
        if not d:
            continue
        if el.get("itemprop") == "dateModified" or "updated" in tokens_of(el.get("class")):
            modified = modified or d
        else:
            published = published or d
    return published, modified


def root_heading(root: Element) -> str | None:
    """The first ``<h1>`` or ``<h2>`` inside the root."""
    h = next((e for e in root.iter() if e.tag in ("h1", "h2")), None)
    return (normalize_space(h.text()) or None) if h is not None else None


def first_paragraph(content: Element) -> str | None:
    """The article's first real paragraph, cut at a word near ``MAX_EXCERPT_CHARS``."""
    p = next(
        (e for e in content.iter() if e.tag == "p" and len(normalize_space(e.text())) > MIN_EXCERPT_CHARS),
        None,
    )
    if p is None:
        return None
    t = normalize_space(p.text())
    cut = MAX_EXCERPT_CHARS - 3
    return t if len(t) <= MAX_EXCERPT_CHARS else t[:cut].rsplit(" ", 1)[0] + "…"


def first_image(content: Element) -> str | None:
    """``src`` of the article's first image."""
    img = next((e for e in content.iter() if e.tag == "img" and e.get("src")), None)
    return img.get("src") if img is not None else None


def root_dir(root: Element | None) -> str | None:
    """The nearest ``dir`` (rtl/ltr) on the root or its ancestors."""
    for e in [root, *root.ancestors()] if root is not None else []:
        d = e.get("dir").lower()
        if d in ("rtl", "ltr"):
            return d
    return None
