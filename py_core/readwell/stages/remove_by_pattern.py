"""remove_by_pattern: short blocks whose whole text is boilerplate ("Share this article", "Sign up for our
newsletter…", "Read more:", "All rights reserved"), and bylines/dates repeated in the body.

Late, on what selectors left: a text pattern is the weakest evidence, so it only judges short blocks
(``MAX_PATTERN_BLOCK``) and the pattern must cover the whole block; the same words inside a paragraph of
prose never match.
"""

from __future__ import annotations

import re

from ..context import TEXT, Context
from ..dom import Element, normalize_space
from ..metadata import normalize_date
from ..rules import BOILERPLATE_TEXT, BYLINE_TEXT, MAX_PATTERN_BLOCK

BLOCK_TAGS = frozenset({"p", "div", "li", "span", "a", "h2", "h3", "h4", "h5", "h6", "section", "aside", "small",
                        "strong", "em", "b", "footer", "header", "figcaption", "ul", "dd", "dt", "button"})


def match_boilerplate(text: str) -> tuple[str, str] | None:
    if not text or len(text) > MAX_PATTERN_BLOCK:
        return None
    for rx, reason in BOILERPLATE_TEXT:
        if rx.search(text):
            return rx.pattern, reason
    return None


def is_meta_line(text: str, byline: str | None) -> str | None:
    """A short line that only restates the byline or a date (the result carries them as metadata)."""
    if not text or len(text) > 140:
        return None
    t = text.strip(" |·•-–—,")
    if byline and len(byline) > 2:
        low = t.lower()
        b = byline.lower()
        if low == b or low.startswith(("by " + b, b + ",")) or (low.startswith("by ") and b in low and len(low) < len(b) + 80):
            return "byline repeated in the body"
    if BYLINE_TEXT.match(t) and len(t) < 80 and t.count(".") <= 2:
        return "byline line"
    stripped = re.sub(r"(?i)\b(posted|published|updated|on|at|am|pm|[a-z]{3}|gmt|utc|edt|est|cst|pst|bst|cet)\b|[|·•,:]", " ", t)
    if len(t) < 80 and normalize_date(t) and len(re.findall(r"[^\W\d]{4,}", stripped)) <= 3:
        return "date line"
    return None


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    found: list[tuple[Element, str, str]] = []
    byline = ctx.meta.get("byline")
    seen: set[str] = set()
    stack = [c for c in root.children if isinstance(c, Element)]
    stack.reverse()
    while stack:
        el = stack.pop()
        if ctx.is_protected(el) or el.tag in ("h1",):
            continue
        if el.tag in BLOCK_TAGS:
            text = normalize_space(el.text())
            if not text and el.find("img") is None:
                pass
            else:
                m = match_boilerplate(text)
                if m and _standalone(el):
                    found.append((el, m[0], m[1]))
                    continue
                meta_line = is_meta_line(text, byline) if el.tag not in ("ul", "section", "aside") else None
                if meta_line and _standalone(el) and not _has_block_kids(el):
                    found.append((el, "byline-or-date-line", meta_line))
                    continue
                if len(text) >= 40 and el.tag in ("p", "figcaption", "li", "div") and _is_leaf_block(el):
                    if text in seen:
                        found.append((el, "repeated-block", "the same text already appears earlier in the article"))
                        continue
                    seen.add(text)
        stack.extend(reversed([c for c in el.children if isinstance(c, Element)]))
    for el, pattern, reason in found:
        ctx.remove(el, TEXT, pattern, reason)


LEAF_BREAKERS = frozenset({"p", "div", "section", "article", "ul", "ol", "li", "table", "blockquote", "pre", "figure",
                           "h1", "h2", "h3", "h4", "h5", "h6", "header", "footer", "main", "aside", "dl"})


def _is_leaf_block(el: Element) -> bool:
    """No block-level descendants: a paragraph-like unit (a wrapper repeats its child's text)."""
    return not any(e.tag in LEAF_BREAKERS for e in el.iter(include_self=False))


def _has_block_kids(el: Element) -> bool:
    return any(isinstance(c, Element) and c.tag in ("p", "div", "ul", "ol", "table", "section", "blockquote", "pre")
               for c in el.children)


def _standalone(el: Element) -> bool:
    """An inline element matches only if it is the whole text of its parent block (not a phrase in prose)."""
    if el.tag in ("span", "a", "strong", "em", "b", "small"):
        par = el.parent
        if par is None:
            return False
        return normalize_space(par.text()) == normalize_space(el.text())
    return True
