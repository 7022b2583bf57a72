"""resolve_deferred: lazy media and streamed content are put where a browser would show them.

After ``flatten_shadow`` (lazy media and ``<noscript>`` inside a web component are only in the main tree once
shadow roots are flattened), before hidden-element and tiny-media removal: a lazy image's placeholder is a 1×1
GIF (tiny media), a streamed segment waits in a ``hidden`` div (hidden element), a ``<noscript>`` fallback is
all a reader without scripts sees. Left alone, those later stages would delete the real content. A plugin
``<object>`` (Flash, an ActiveX classid) shows its fallback content in every current browser: that content is
moved out beside it (before ``select_root``, which does not score inside players, and the sanitizer, which
drops them whole), the player itself left for ``normalize_structures``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..context import STRUCTURE, Context
from ..dom import Element, Node, Text, detach, drop_attr, set_attr
from ..parse import BOUNDARY_TAG, parse_html
from ..rules import OBJECT_NATIVE_EXTENSIONS, OBJECT_NATIVE_TYPES
from ..textstats import text_units
from ..thresholds import OBJECT_FALLBACK_MIN_UNITS

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("flatten_shadow",)

LAZY_SRC_ATTRS = (
    "data-src",
    "data-lazy-src",
    "data-original",
    "data-lazy",
    "data-url",
    "data-hi-res-src",
    "data-full-src",
    "data-echo",
    "data-img-src",
)
LAZY_SRCSET_ATTRS = ("data-srcset", "data-lazy-srcset", "data-original-srcset")
_PLACEHOLDER = re.compile(
    r"^data:image/(gif|png|svg\+xml)|blank|placeholder|spacer|lazy|transparent|grey\.gif|1x1", re.I
)


def is_placeholder_src(src: str) -> bool:
    s = src.strip()
    return not s or bool(_PLACEHOLDER.search(s[:200])) and (s.startswith("data:") or len(s) < 300)


LAZY_TAGS = frozenset({"img", "source", "video", "iframe"})


@dataclass
class _Found:
    """The elements this stage works on, from one walk, in document order."""

    media: list[Element] = field(default_factory=list)  # LAZY_TAGS
    noscripts: list[Element] = field(default_factory=list)
    segments: list[Element] = field(default_factory=list)  # <div id="S:n">
    holes: list[Element] = field(default_factory=list)  # <template id="B:n"> / "P:n"
    marks: list[Element] = field(default_factory=list)  # BOUNDARY_TAG
    objects: list[Element] = field(default_factory=list)  # <object>


def _find(root: Element, elements: list[Element] | None = None) -> _Found:
    """One walk instead of one per step: what the steps change (noscripts replaced by their content in
    place, streamed segments moved) is accounted for by ``run``. ``elements``: ``list(root.iter())`` when
    the caller has it."""
    found = _Found()
    for e in root.iter() if elements is None else elements:
        tag = e.tag
        if tag in LAZY_TAGS:
            found.media.append(e)
        elif tag == "noscript":
            found.noscripts.append(e)
        elif tag == "div":
            if e.id[:2] == "S:" and e.id[2:].isdigit():
                found.segments.append(e)
        elif tag == "template":
            if e.id[:2] in ("B:", "P:") and e.id[2:].isdigit():
                found.holes.append(e)
        elif tag == BOUNDARY_TAG:
            found.marks.append(e)
        elif tag == "object":
            found.objects.append(e)
    return found


def _attached(el: Element, root: Element) -> bool:
    """``el`` is still in the tree under ``root`` (not inside a subtree a step removed)."""
    cur: Element | None = el
    while cur is not None and cur is not root:
        cur = cur.parent
    return cur is root


def run(ctx: Context) -> None:
    root = ctx.doc.root
    found = _find(root, ctx.copy_order)  # unchanged since the copy unless flatten_shadow changed it
    for el in found.media:
        _lazy_attrs(el)
    if _noscripts(ctx, found.noscripts):
        found = _find(root)  # a noscript's raw text was parsed (live DOM): new elements to look at
    # Replacing a noscript by its content keeps document order; elements inside a removed one are gone.
    segments = [e for e in found.segments if _attached(e, root)]
    holes = [e for e in found.holes if _attached(e, root)]
    if _streamed(ctx, segments, holes):
        marks = [e for e in root.iter() if e.tag == BOUNDARY_TAG]  # segments moved: order changed
    else:
        marks = [e for e in found.marks if _attached(e, root)]
    for mark in marks:
        ctx.remove(mark, STRUCTURE, "streaming-boundary", "streaming boundary marker (a comment in the page)")
    for obj in found.objects:
        if _attached(obj, root) and not any(a.tag == "object" for a in obj.ancestors()):
            _object_fallback(ctx, obj)


def _renders_itself(obj: Element) -> bool:
    """The browser shows this object's data (an image, a page, a PDF), not its fallback content."""
    if obj.get("classid").strip():
        return False  # an ActiveX control: no browser loads one
    kind = obj.get("type").strip()
    if kind:
        return bool(OBJECT_NATIVE_TYPES.match(kind))
    return bool(OBJECT_NATIVE_EXTENSIONS.search(obj.get("data").strip()))


def _fallback_nodes(obj: Element) -> list[Node]:
    """The content a browser shows instead of plugin ``obj``: its children except the ``<param>``s and
    ``<embed>``s (the plugin's own), through nested plugin objects (the same player written for another
    browser family), in document order. A loop, not recursion: objects can nest as deep as the parser
    allows."""
    out: list[Node] = []
    stack: list[Node] = list(reversed(obj.children))
    while stack:
        c = stack.pop()
        if not isinstance(c, Element):
            if isinstance(c, Text) and c.data.strip():
                out.append(c)
        elif c.tag == "object":
            if not _renders_itself(c):
                stack += reversed(c.children)
        elif c.tag not in ("param", "embed"):
            out.append(c)
    return out


def _object_fallback(ctx: Context, obj: Element) -> None:
    """Move a plugin object's fallback content out, right after it, when it holds a sentence of text."""
    if obj.parent is None or _renders_itself(obj):
        return
    nodes = _fallback_nodes(obj)
    text = " ".join(
        n.text() if isinstance(n, Element) else n.data if isinstance(n, Text) else "" for n in nodes
    )
    if text_units(" ".join(text.split())) < OBJECT_FALLBACK_MIN_UNITS:
        return
    wrapper = ctx.new_element("span" if obj.parent.tag in ("p", "a", "span") else "div")
    for n in nodes:
        ctx.keep_children(n.parent)
        detach(n)
        wrapper.append(n)
    ctx.keep_children(obj.parent)
    obj.parent.insert(obj.index_in_parent() + 1, wrapper)
    ctx.unwrap(
        wrapper, STRUCTURE, "object-fallback", "a plugin object's fallback content, shown in its place"
    )


_LAZY_ATTRS = frozenset(LAZY_SRC_ATTRS + LAZY_SRCSET_ATTRS)


def _lazy_attrs(el: Element) -> None:
    if _LAZY_ATTRS.isdisjoint(el.attrs):  # no lazy source: only ``loading`` can go (most media)
        drop_attr(el, "loading")
        return
    src = el.get("src")
    for a in LAZY_SRC_ATTRS:
        v = el.get(a).strip()
        if v and not v.startswith("data:") and is_placeholder_src(src):
            set_attr(el, "src", v)
            break
    if not el.get("srcset").strip() or is_placeholder_src(el.get("srcset")):
        for a in LAZY_SRCSET_ATTRS:
            v = el.get(a).strip()
            if v:
                set_attr(el, "srcset", v)
                break
    drop_attr(el, "loading")


def _raw_markup(ns: Element) -> str | None:
    """The noscript's markup as text (live DOM path: a browser with scripts keeps it unparsed), or None."""
    if any(isinstance(c, Element) for c in ns.children):
        return None
    raw = "".join(c.data for c in ns.children if isinstance(c, Text))
    return raw if "<" in raw else None


def _noscript_content(ctx: Context, ns: Element) -> list[Element]:
    """The noscript's elements: parsed markup (html5lib path) or its raw text parsed (live DOM path)."""
    els = [c for c in ns.children if isinstance(c, Element)]
    raw = _raw_markup(ns)
    if raw is not None:
        frag = parse_html(raw).body
        els = []
        for c in list(frag.children):
            for n in [c] if isinstance(c, Element) else []:
                for sub in n.iter():
                    sub.nid = ctx.doc.new_id()
                els.append(n)
    return els


def _noscripts(ctx: Context, noscripts: list[Element]) -> bool:
    """Put each noscript's media in its place; True when raw noscript text was parsed into new elements."""
    parsed = False
    for ns in noscripts:
        if ns.parent is None:
            continue
        parsed = parsed or _raw_markup(ns) is not None
        content = _noscript_content(ctx, ns)
        imgs = [i for c in content for i in c.iter() if i.tag == "img" and i.get("src")]
        if not imgs:
            ctx.remove(ns, STRUCTURE, "noscript", "noscript without media (script-disabled message)")
            continue
        prev = _previous_element(ns)
        if prev is not None:
            prev_imgs = [prev] if prev.tag == "img" else [i for i in prev.iter() if i.tag == "img"]
            if len(prev_imgs) == 1 and (
                is_placeholder_src(prev_imgs[0].get("src")) or _same_image(prev_imgs[0], imgs[0])
            ):
                ctx.remove(
                    prev_imgs[0], STRUCTURE, "noscript", "lazy placeholder replaced by its <noscript> image"
                )
        wrapper = ctx.new_element("span" if ns.parent.tag in ("p", "a", "span") else "div")
        for c in content:
            ctx.keep_children(c.parent)
            wrapper.append(c)
        # the wrapper holds only the noscript's own elements or new ones parsed from its text: the page's
        # measures are kept (a noscript on 74 of scrapinghub's 181 pages cost select_root a fresh measure)
        ctx.replace(ns, wrapper, STRUCTURE, "noscript", "<noscript> fallback media used", keep_measures=True)
        ctx.unwrap(wrapper, STRUCTURE, "noscript", "noscript wrapper dropped", keep_measures=True)
    return parsed


def _same_image(a: Element, b: Element) -> bool:
    return bool(a.get("src")) and a.get("src") == b.get("src")


def _previous_element(el: Element) -> Element | None:
    if el.parent is None:
        return None
    sibs = el.parent.children
    i = sibs.index(el) - 1
    while i >= 0:
        s = sibs[i]
        if isinstance(s, Element):
            return s
        if isinstance(s, Text) and s.data.strip():
            return None
        i -= 1
    return None


def _streamed(ctx: Context, segment_divs: list[Element], holes: list[Element]) -> bool:
    """React/Next streaming: hidden ``<div id="S:n">`` segments replace ``<template id="B:n">`` holes.
    True when a segment was moved."""
    segments = {e.id: e for e in segment_divs}
    moved = False
    for tpl in holes:
        seg = segments.get("S:" + tpl.id[2:])
        if seg is None or tpl.parent is None:
            continue
        moved = True
        if seg.parent is not None:
            ctx.keep_children(seg.parent)
            seg.parent.children.remove(seg)
            seg.parent = None
        drop_attr(seg, "hidden")
        _drop_fallback(ctx, tpl)
        ctx.replace(tpl, seg, STRUCTURE, "streamed-segment", f"streamed segment {seg.id} placed at {tpl.id}")
        ctx.unwrap(seg, STRUCTURE, "streamed-segment", "segment wrapper dropped")
    return moved


def _drop_fallback(ctx: Context, tpl: Element) -> None:
    """Remove the fallback between a boundary's template and its closing ``/$`` marker."""
    parent = tpl.parent
    if parent is None:
        return
    sibs = parent.children
    i = sibs.index(tpl)
    prev = next((s for s in reversed(sibs[:i]) if not (isinstance(s, Text) and not s.data.strip())), None)
    if not (isinstance(prev, Element) and prev.tag == BOUNDARY_TAG and prev.get("data-mark") == "$?"):
        return
    end = next(
        (j for j in range(i + 1, len(sibs)) if _is_mark(sibs[j], "/$")),
        None,
    )
    if end is None:
        return
    for node in sibs[i + 1 : end]:
        if isinstance(node, Element) or isinstance(node, Text) and node.data.strip():
            ctx.remove(
                node, STRUCTURE, "streaming-fallback", "fallback content replaced by its streamed segment"
            )


def _is_mark(node: Node, mark: str) -> bool:
    """A streaming-boundary marker element (``parse.BOUNDARY_TAG``) with this mark."""
    return isinstance(node, Element) and node.tag == BOUNDARY_TAG and node.get("data-mark") == mark
