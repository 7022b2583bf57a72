"""callouts: GitHub, Docusaurus, MkDocs, Obsidian and Bootstrap-style alerts become one representation.

After ``normalize_structures`` (callouts hold code and math, normalized first) and before removals: a
callout's title bar ("Note") is a tiny block and its class names (``alert``, ``admonition``) look like
boilerplate to pattern rules. The stable form is ``<blockquote data-callout="note">`` holding the body
(rendered ``> [!NOTE]`` in Markdown), protected.
"""

from __future__ import annotations

from ..context import STRUCTURE, Context
from ..dom import Element, normalize_space
from ..rules import CALLOUT_ALIASES, CALLOUT_TYPES, TITLE_TOKENS, tokens_of

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("normalize_structures",)

GFM_TYPES = ("note", "tip", "important", "warning", "caution")


def callout_type(el: Element) -> str | None:
    """The callout kind of ``el`` or None; only explicit callout markup counts (no guessing from words)."""
    classes = el.classes
    if el.get("data-callout"):
        return _norm(el.get("data-callout"))
    for c in classes:
        if c.startswith("markdown-alert-"):
            return _norm(c.removeprefix("markdown-alert-"))
        if c.startswith("theme-admonition-"):
            return _norm(c.removeprefix("theme-admonition-"))
        if c.startswith("admonition-") and c != "admonition-title":
            return _norm(c.removeprefix("admonition-"))
    if "admonition" in classes:
        for c in classes:
            if c in CALLOUT_TYPES or c in CALLOUT_ALIASES:
                return _norm(c)
        return "note"
    if "alert" in classes and el.get("role") == "alert" or any(c.startswith("alert--") for c in classes):
        for c in classes:
            kind = c.removeprefix("alert--").removeprefix("alert-")
            if kind in CALLOUT_TYPES or kind in CALLOUT_ALIASES:
                return _norm(kind)
    return None


def _norm(kind: str) -> str:
    kind = kind.strip().lower()
    kind = CALLOUT_ALIASES.get(kind, kind)
    return kind if kind in GFM_TYPES else "note"


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    for el in [e for e in root.iter() if e.tag in ("div", "aside", "section", "blockquote", "details")]:
        if el.parent is None or el.get("data-callout") and el.tag == "blockquote":
            continue
        kind = callout_type(el)
        if kind is None or not normalize_space(el.text()):
            continue
        bq = ctx.new_element("blockquote", {"data-callout": kind})
        ctx.protect(bq, "callout")
        ctx.replace(el, bq, STRUCTURE, "callout", f"callout normalized to [!{kind.upper()}]")
        for c in list(el.children):
            bq.append(c)
        for t in [
            e
            for e in bq.iter(include_self=False)
            if tokens_of(e.get("class")) & TITLE_TOKENS or e.tag == "summary"
        ]:
            if t.parent is not None and len(normalize_space(t.text())) < 60:
                ctx.remove(t, STRUCTURE, "callout-title", "callout title replaced by its type marker")
