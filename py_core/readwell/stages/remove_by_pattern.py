"""remove_by_pattern: short blocks whose whole text is boilerplate ("Share this article", "Sign up for our
newsletter…", "Read more:", "All rights reserved"), and bylines/dates repeated in the body.

Late, on what selectors left: a text pattern is the weakest evidence, so it only judges short blocks
(``MAX_PATTERN_BLOCK``) and the pattern must cover the whole block; the same words inside a paragraph of
prose never match.
"""

from __future__ import annotations

from ..context import TEXT, Context
from ..dom import Element, normalize_space
from ..rules import BOILERPLATE_TEXT, MAX_PATTERN_BLOCK

BLOCK_TAGS = frozenset({"p", "div", "li", "span", "a", "h2", "h3", "h4", "h5", "h6", "section", "aside", "small",
                        "strong", "em", "b", "footer", "header", "figcaption", "ul", "dd", "dt", "button"})


def match_boilerplate(text: str) -> tuple[str, str] | None:
    if not text or len(text) > MAX_PATTERN_BLOCK:
        return None
    for rx, reason in BOILERPLATE_TEXT:
        if rx.search(text):
            return rx.pattern, reason
    return None


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    found: list[tuple[Element, str, str]] = []
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
        stack.extend(reversed([c for c in el.children if isinstance(c, Element)]))
    for el, pattern, reason in found:
        ctx.remove(el, TEXT, pattern, reason)


def _standalone(el: Element) -> bool:
    """An inline element matches only if it is the whole text of its parent block (not a phrase in prose)."""
    if el.tag in ("span", "a", "strong", "em", "b", "small"):
        par = el.parent
        if par is None:
            return False
        return normalize_space(par.text()) == normalize_space(el.text())
    return True
