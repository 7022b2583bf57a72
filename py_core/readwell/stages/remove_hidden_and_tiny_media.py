"""remove_hidden_and_tiny_media: what a reader never sees (hidden elements) and images that carry nothing
(tracking pixels, icons).

After ``resolve_deferred`` (a lazy image's 1×1 placeholder is gone by then), ``normalize_structures`` and
``callouts`` (structures are protected; KaTeX's visually hidden MathML is already replaced). With layout from the live DOM, computed
visibility and real sizes decide; without it, attributes and inline styles do. Collect first, then remove in
one batch (so a removal never changes what the next check sees).
"""

from __future__ import annotations

import re

from ..context import HIDDEN, TINY, Context
from ..dom import Element
from ..rules import tokens_of
from ..textstats import hidden_reason

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("resolve_deferred", "normalize_structures", "callouts")

ICON_TOKENS = frozenset(
    {"icon", "icons", "ico", "emoji", "avatar", "logo", "sprite", "glyph", "badge", "spinner"}
)
_TRACKER = re.compile(
    r"(pixel|beacon|tracking|track|analytics|doubleclick|/b/ss/|scorecardresearch|facebook\.com/tr|\.gif\?)",
    re.I,
)


def _num(v: str) -> float | None:
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*(px)?\s*$", v or "")
    return float(m.group(1)) if m else None


def _size(el: Element) -> tuple[float | None, float | None]:
    lay = el.layout
    if lay and lay.get("w") is not None:
        return float(lay["w"]), float(lay["h"])
    w, h = _num(el.get("width")), _num(el.get("height"))
    style = el.get("style")
    if style:
        mw = re.search(r"(?<![-\w])width\s*:\s*(\d+(?:\.\d+)?)px", style)
        mh = re.search(r"(?<![-\w])height\s*:\s*(\d+(?:\.\d+)?)px", style)
        w = float(mw.group(1)) if mw else w
        h = float(mh.group(1)) if mh else h
    return w, h


def tiny_media_reason(el: Element) -> str | None:
    if el.tag not in ("img", "svg"):
        return None
    w, h = _size(el)
    if w is not None and h is not None and w <= 2 and h <= 2:
        return f"tracking pixel ({w:g}×{h:g})"
    src = el.get("src")
    if (
        el.tag == "img"
        and (w is None or w <= 2 or h is None or h <= 2)
        and _TRACKER.search(src)
        and not el.get("alt")
    ):
        if (w is not None and w <= 2) or (h is not None and h <= 2):
            return "tracking pixel"
    toks = tokens_of(el.get("class") + " " + el.get("id"))
    small = w is not None and h is not None and w <= 48 and h <= 48
    if small and (toks & ICON_TOKENS or el.tag == "svg" or "icon" in src.lower()):
        return f"icon ({w:g}×{h:g})"
    if el.tag == "svg" and toks & ICON_TOKENS and w is None:
        return "icon (svg with icon class)"
    return None


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    found: list[tuple[Element, str, str]] = []
    stack = [root]
    while stack:
        el = stack.pop()
        if el is not root:
            kind = ctx.protected_kind(el)
            if kind == "math":
                continue
            reason = hidden_reason(el)
            if reason and not (el.tag == "details" or kind):
                found.append((el, HIDDEN, reason))
                continue
            tiny = tiny_media_reason(el)
            if tiny:
                found.append((el, TINY, tiny))
                continue
        stack.extend(reversed([c for c in el.children if isinstance(c, Element)]))
    for el, kind, reason in found:
        rule = (
            "[hidden]"
            if reason == "hidden attribute"
            else (
                "[style*=display:none]"
                if "display" in reason
                else "[aria-hidden=true]"
                if "aria" in reason
                else reason.split(" (")[0]
            )
        )
        ctx.remove(el, kind, rule, reason)
