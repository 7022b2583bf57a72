"""remove_by_selector: exact selectors and partial class/id token patterns (``rules.py``), logged as such.

After score-based removal: most boilerplate is already gone by shape; these rules catch blocks that look
like prose (a newsletter ask, a comment thread) but are named as boilerplate. Partial patterns match whole
class/id tokens, and most carry a guard that keeps blocks reading as prose (``Related work`` sections).
"""

from __future__ import annotations

from ..context import EXACT, PARTIAL, Context
from ..dom import Element
from ..measure import Stat, measure
from ..rules import COMMENT_TOKENS, EXACT_SELECTORS, PARTIAL_PATTERNS, tokens_of
from ..selectors import compile_selector

_EXACT = tuple((compile_selector(sel), sel, reason) for sel, reason in EXACT_SELECTORS)


def match_exact(el: Element) -> tuple[str, str] | None:
    """(selector, reason) of the first exact rule matching ``el``."""
    for pred, sel, reason in _EXACT:
        if pred(el):
            return sel, reason
    return None


def reads_as_prose(st: Stat) -> bool:
    """Several clauses, low link density and a real amount of text: a section of the article."""
    return (
        st.units >= 200
        and st.marks >= 4
        and st.link_density < 0.2
        and (st.paragraphs >= 1 or st.units >= 400)
    )


THREAD_TOKENS = frozenset({"comment", "comments", "reply", "replies", "avatar", "vcard", "says", "permalink"})


def looks_like_thread(el: Element) -> bool:
    """Two or more repeated items (li, article, comment-classed blocks) or reply/avatar markup."""
    items = 0
    for e in el.iter(include_self=False):
        toks = tokens_of(e.get("class") + " " + e.get("id"))
        if (
            toks & THREAD_TOKENS
            or e.tag in ("li", "article")
            and e.parent is not None
            and e.parent.tag != "ol"
        ):
            items += 1
        if e.tag in ("form", "textarea", "time"):
            items += 1
        if items >= 2:
            return True
    return False


def match_partial(el: Element, st: Stat) -> tuple[str, str] | None:
    value = f"{el.get('class')} {el.get('id')}".strip()
    if not value:
        return None
    toks = tokens_of(value)
    for pattern, guard, reason in PARTIAL_PATTERNS:
        hit = toks & pattern
        if not hit:
            continue
        if guard == "unless-prose" and reads_as_prose(st):
            continue
        if guard == "unless-prose-section" and reads_as_prose(st) and not looks_like_thread(el):
            continue  # "comment-on-method": a section of the article, not a comment thread
        if guard == "bio-box" and (st.units > 600 or el.tag in ("p", "span", "a", "address")):
            continue  # a byline span is metadata, not a bio box
        if guard == "outside-root-top" and el.tag not in ("header", "footer", "div", "section", "aside"):
            continue
        if guard == "outside-root-top" and (reads_as_prose(st) or st.headings and el.find("h1") is not None):
            continue
        return f"[class/id~={sorted(hit)[0]}]", reason
    return None


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    stats = measure(root)
    found: list[tuple[Element, str, str, str]] = []
    root_units = stats[root.nid].units
    stack = [c for c in root.children if isinstance(c, Element)]
    stack.reverse()
    while stack:
        el = stack.pop()
        if ctx.is_protected(el):
            continue
        toks = tokens_of(el.get("class") + " " + el.get("id"))
        if root_units and stats[el.nid].units > 0.6 * root_units and not toks & COMMENT_TOKENS:
            # A wrapper holding most of the article (ASP.NET's page-wide <form>) is never boilerplate.
            stack.extend(reversed([c for c in el.children if isinstance(c, Element)]))
            continue
        exact = match_exact(el)
        hit = (EXACT, *exact) if exact else None
        if hit is None:
            p = match_partial(el, stats[el.nid])
            if p:
                hit = (PARTIAL, p[0], p[1])
        if hit:
            found.append((el, *hit))
            continue
        stack.extend(reversed([c for c in el.children if isinstance(c, Element)]))
    for el, kind, rule, reason in found:
        ctx.remove(el, kind, rule, reason)
