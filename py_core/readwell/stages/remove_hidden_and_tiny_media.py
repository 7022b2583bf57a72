"""remove_hidden_and_tiny_media: what a reader never sees (hidden elements) and images that carry nothing
(tracking pixels, icons).

After ``resolve_deferred`` (a lazy image's 1×1 placeholder is gone by then), ``normalize_structures`` and
``callouts`` (structures are protected; KaTeX's visually hidden MathML is already replaced). With layout from
the live DOM, computed visibility and real sizes decide; without it, attributes and inline styles do. Collect
first, then remove in one batch (so a removal never changes what the next check sees).
"""

from __future__ import annotations

from ..context import HIDDEN, TINY, Context
from ..dom import Element
from ..rules import PULL_QUOTE_TOKENS, TINY_RULES, Rule, SizeMatch, media_size, tokens_of
from ..signals import hidden_rule

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("resolve_deferred", "normalize_structures", "callouts")


def tiny_media(el: Element) -> tuple[Rule[SizeMatch], str] | None:
    """(rule, reason with the size) of the first tiny-media rule an ``<img>`` or ``<svg>`` matches."""
    if el.tag not in ("img", "svg"):
        return None
    w, h = media_size(el)
    rule = next((r for r in TINY_RULES if r.match(el, w, h)), None)
    return (rule, rule.reason.format(w=w, h=h)) if rule is not None else None


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    found: list[tuple[Element, str, str, str]] = []
    stack = [root]
    while stack:
        el = stack.pop()
        if el is not root:
            kind = ctx.protected_kind(el)
            if kind == "math":
                continue
            hidden = hidden_rule(el)
            if (
                hidden
                and hidden.id == "[aria-hidden=true]"
                and tokens_of(el.get("class")) & PULL_QUOTE_TOKENS
            ):
                hidden = None  # shown to every sighted reader; only screen readers skip the repeated line
            if hidden and not (el.tag == "details" or kind):
                found.append((el, HIDDEN, hidden.id, hidden.reason))
                continue
            tiny = tiny_media(el)
            if tiny:
                found.append((el, TINY, tiny[0].id, tiny[1]))
                continue
        stack += reversed([c for c in el.children if isinstance(c, Element)])
    for el, kind, rule, reason in found:
        ctx.remove(el, kind, rule, reason)
