"""flatten_shadow: shadow roots become ordinary children of their host, slots filled.

Follows nothing (``AFTER`` is empty) because every later stage must see that content: an article rendered
inside a web component is in its shadow root, and scoring, hidden-element checks and selectors all need it in
the main tree. The HTML path sees declarative shadow DOM (``<template shadowrootmode>``); the live-DOM adapter
serializes open and closed shadow roots in the same form, so one stage serves both. Other ``<template>``
elements are inert (never rendered) and are removed here, logged.
"""

from __future__ import annotations

from ..context import STRUCTURE, Context
from ..dom import Element, Node, Text

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ()


def _is_shadow_template(el: Element) -> bool:
    return el.tag == "template" and ("shadowrootmode" in el.attrs or "shadowroot" in el.attrs)


def run(ctx: Context) -> None:
    order = ctx.copy_order  # the page's elements as copied: nothing has changed the tree yet
    templates = [e for e in (ctx.doc.root.iter() if order is None else order) if e.tag == "template"]
    if templates:
        ctx.copy_order = None  # the loop below changes the tree
    # Innermost first, so a nested shadow root is flattened before its host's slots are filled.
    for tpl in reversed(templates):
        host = tpl.parent
        if host is None:
            continue
        if not _is_shadow_template(tpl):
            if tpl.id.startswith("B:") or tpl.id.startswith("P:"):
                continue  # streaming placeholder: resolve_deferred fills it
            ctx.remove(
                tpl, STRUCTURE, "template:not([shadowrootmode])", "inert <template> content is never rendered"
            )
            continue
        _attach(ctx, host, tpl)


def _attach(ctx: Context, host: Element, tpl: Element) -> None:
    light = [c for c in host.children if c is not tpl]
    slots = [e for e in tpl.iter(include_self=False) if e.tag == "slot"]
    assigned: set[int] = set()
    for slot in slots:
        name = slot.get("name")
        nodes: list[Node]
        if name:
            nodes = [c for c in light if isinstance(c, Element) and c.get("slot") == name]
        else:
            nodes = [c for c in light if not (isinstance(c, Element) and c.get("slot"))]
            nodes = [c for c in nodes if not (isinstance(c, Text) and not c.data.strip())] and nodes
        if nodes:
            for n in nodes:
                assigned.add(id(n))
            parent = slot.parent
            assert parent is not None
            i = parent.children.index(slot)
            ctx.remove(slot, STRUCTURE, "slot", "slot fallback replaced by the host's assigned children")
            for k, n in enumerate(nodes):
                ctx.keep_children(n.parent)
                parent.insert(i + k, n)
        else:
            ctx.unwrap(slot, STRUCTURE, "slot", "empty slot: its fallback content is shown")
    for c in light:
        if id(c) in assigned or c.parent is not host:
            continue
        if isinstance(c, Element):
            ctx.remove(
                c, STRUCTURE, "unassigned-light-child", "host child not assigned to any slot is not rendered"
            )
        elif isinstance(c, Text) and c.data.strip():
            ctx.remove(
                c, STRUCTURE, "unassigned-light-child", "host text not assigned to any slot is not rendered"
            )
        else:
            ctx.keep_children(host)
            host.children.remove(c)
            c.parent = None
    ctx.unwrap(tpl, STRUCTURE, "template[shadowrootmode]", "shadow root flattened into its host")
