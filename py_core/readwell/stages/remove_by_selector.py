"""remove_by_selector: exact selectors and partial class/id token patterns (``rules.py``), logged as such.

After ``remove_low_score``: most boilerplate is already gone by shape; these rules catch blocks that look
like prose (a newsletter ask, a comment thread) but are named as boilerplate. Partial patterns match whole
class/id tokens, and most carry a guard that keeps blocks reading as prose (``Related work`` sections).
"""

from __future__ import annotations

from ..context import EXACT, PARTIAL, Context
from ..dom import Element
from ..rules import COMMENT_TOKENS, tokens_of
from ..signals import match_exact, match_partial
from ..thresholds import MOST_OF_ROOT_NAMED

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("remove_low_score",)


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    stats = ctx.measure(root)
    found: list[tuple[Element, str, str, str]] = []
    root_units = stats[root.nid].units
    stack = [c for c in root.children if isinstance(c, Element)]
    stack.reverse()
    while stack:
        el = stack.pop()
        if ctx.is_protected(el):
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
        stack.extend(reversed([c for c in el.children if isinstance(c, Element)]))
    for el, kind, rule, reason in found:
        ctx.remove(el, kind, rule, reason)
