"""Optional adapters for documents already parsed by lxml or BeautifulSoup, and the live-DOM snapshot.

lxml and BeautifulSoup trees are serialized and re-parsed with html5lib rather than walked: their parsers
repair broken markup differently from browsers, and one parser for all runtimes is what keeps results
identical. The input object is only read, never changed. The snapshot builder turns the extension's JSON
serialization of the live DOM (with layout) into our tree with the live node ids.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import Any

from . import deadline
from .dom import (
    CAP_BLOCKS,
    HTML_NS,
    INTERNAL_ATTR_PREFIX,
    MATH_NS,
    MAX_DEPTH,
    SVG_NS,
    Document,
    Element,
    Text,
    drop_internal_attrs,
)
from .errors import InputError
from .parse import parse_html


def is_lxml(obj: Any) -> bool:
    mod = type(obj).__module__ or ""
    return mod.startswith("lxml")


def is_bs4(obj: Any) -> bool:
    mod = type(obj).__module__ or ""
    return mod.startswith("bs4")


def from_lxml(obj: Any) -> Document:
    try:
        import lxml.etree as etree
        import lxml.html
    except ImportError as exc:  # pragma: no cover - only when the object exists without lxml
        raise InputError("lxml is not installed") from exc
    if hasattr(obj, "getroot"):
        obj = obj.getroot()
    try:
        html = lxml.html.tostring(obj, encoding="unicode", method="html")
    except (TypeError, ValueError, etree.Error):
        html = etree.tostring(obj, encoding="unicode")
    return parse_html(html)


def from_bs4(obj: Any) -> Document:
    return parse_html(str(obj))


_NS = {"html": HTML_NS, "svg": SVG_NS, "math": MATH_NS}


def _attrs(raw: Any) -> dict[str, str]:
    """A snapshot element's attributes as str -> str, without Readwell's internal ``data-readwell-*`` ones.

    Why two joins: from the live DOM (JSON) every name and value is a str already, and ``str.join`` proves
    that in C (a TypeError otherwise), so the common case is one dict copy; anything else is converted
    name by name. The joined names also answer the internal-prefix question in one search."""
    if not raw:
        return {}
    try:
        names = " ".join(raw)
        "".join(raw.values())
    except TypeError:
        attrs = dict(zip(map(str, raw), map(str, raw.values()), strict=True))
        names = " ".join(attrs)
    else:
        attrs = dict(raw)
    if INTERNAL_ATTR_PREFIX in names.lower():
        attrs = drop_internal_attrs(attrs)
    return attrs


def _plain_attrs(dicts: list[dict[Any, Any]]) -> bool:
    """True when every name and value in ``dicts`` is a str and no name is internal (``data-readwell-*``):
    then each dict is what ``_attrs`` would make of it, and an element may keep the snapshot's own dict (the
    input document is only read: stages change attributes on their copy, ``Document.copy``). Two C-level
    joins over the whole page instead of a call and two joins per element (~30% of ``from_snapshot``)."""
    try:
        names = " ".join(chain.from_iterable(dicts))
        "".join(chain.from_iterable(map(dict.values, dicts)))
    except TypeError:
        return False
    return INTERNAL_ATTR_PREFIX not in names.lower()


def from_snapshot(snap: dict[str, Any]) -> Document:
    """Build a Document from the extension's snapshot.

    Format: nodes are ``{"t": tag, "id": n, "ns": "html|svg|math", "a": {attrs}, "c": [children],
    "l": {layout}}`` for elements (``a`` and ``c`` left out when empty), plain strings for text; shadow
    roots arrive as ``template`` children with ``shadowrootmode``. Node ids are the adapter's (they map back
    to live elements).

    One pass, nodes linked directly (they are new: no detaching as in ``Element.append``) and made without
    ``__init__`` chains, as ``dom.clone`` does: this runs on every extension command, under Pyodide. The stack
    holds one frame per open element (the rest of its child list), not one tuple per node; what the depth cap
    decides is worked out once per child list. An element keeps the snapshot's own attribute dict when the
    page-wide check allows it (``_plain_attrs``): the document is then read-only for the snapshot's sake, as
    every input document is to ``extract``. Text nodes get
    ids after the element ids, in document order: the order they were made in, unless the depth cap moved
    content to an ancestor (then a walk of the finished tree gives the order).
    """
    if not isinstance(snap, dict) or "t" not in snap:
        raise InputError("snapshot must be an element object with a 't' key")
    doc_root = Element("#document")
    doc_root.nid = 0
    top = 0
    texts: list[Text] = []
    capped = False
    dl = deadline.current()
    new_element = Element.__new__
    new_text = Text.__new__
    lower: dict[str, str] = {}  # tag as sent -> lower case (a page has a few dozen distinct tags)
    made: list[Element] = [doc_root]  # the elements in the order made: document order unless capped
    # frames: (the rest of a child list, the element it goes into, its depth, the holder at the depth cap)
    stack: list[tuple[Iterator[Any], Element, int, Element | None]] = [(iter((snap,)), doc_root, 0, None)]
    pop = stack.pop  # (pushes are ``stack.append``, not a bound ``append``: see ``dom.Element.iter``)
    while stack:
        rest, parent, depth, cap = pop()
        kids = parent.children
        # what the depth cap decides is the same for every node of this child list
        shallow = depth < MAX_DEPTH
        below = cap
        holder = parent
        if not shallow:
            below = holder = cap if cap is not None else parent
        held = holder.children
        for node in rest:
            if dl is not None:
                dl.tick()
            if node.__class__ is str or (node.__class__ is not dict and isinstance(node, str)):
                if kids and kids[-1].__class__ is Text:
                    kids[-1].data += node
                else:
                    t = new_text(Text)
                    t.data = node
                    t.nid = -1
                    t.parent = parent
                    kids.append(t)
                    texts.append(t)
                continue
            if node.__class__ is not dict and not isinstance(node, dict):
                continue
            # (``k in node`` and ``node[k]`` rather than ``node.get(k)``: no call of a C method per key, the
            # cost that Pyodide's call trampoline multiplies; ``benchmarks/README.md``, extspeed10)
            sent = node["t"] if "t" in node else "div"
            tag = lower.get(sent) if sent.__class__ is str else None
            if tag is None:
                tag = str(sent).lower()
                if sent.__class__ is str:
                    lower[sent] = tag
            if not shallow:
                capped = True
            if shallow or tag in CAP_BLOCKS:  # same depth cap as the html5lib builder (parity)
                el = new_element(Element)
                el.tag = tag
                ns = node["ns"] if "ns" in node else None
                el.ns = HTML_NS if ns is None else _NS.get(ns, HTML_NS)
                raw = node["a"] if "a" in node else None
                # the snapshot's own dict is checked below, with every other element's at once
                el.attrs = raw if raw.__class__ is dict else _attrs(raw) if raw else {}
                el.children = []
                made.append(el)
                nid = node["id"] if "id" in node else 0
                el.nid = nid = nid if nid.__class__ is int else int(nid)
                if nid > top:
                    top = nid
                lay = node["l"] if "l" in node else None
                el.layout = None if lay is None else dict(lay) if isinstance(lay, dict) else None
                el.parent = holder
                held.append(el)
                target = el
            else:
                target = parent
            kids_in = node["c"] if "c" in node else None
            if kids_in:  # the element's subtree first, then the rest of this list
                stack.append((rest, parent, depth, cap))
                stack.append((iter(kids_in), target, depth + 1, below))
                break
    # every element's attributes, those converted already (``_attrs``) included: they pass the check, and
    # converting them again gives the same
    if not _plain_attrs([el.attrs for el in made]):
        for el in made:
            el.attrs = _attrs(el.attrs)
    # text nodes get fresh ids after the element ids
    n = top
    if capped:
        texts = [t for t in doc_root.iter_nodes() if isinstance(t, Text)]
    for t in texts:
        n += 1
        t.nid = n
    if not any(isinstance(c, Element) and c.tag == "html" for c in doc_root.children):
        html = Element("html")
        html.nid = n + 1
        n += 1
        for c in list(doc_root.children):
            html.append(c)
        doc_root.append(html)
        made.insert(1, html)  # (it holds every element made)
    # the order made is ``list(doc_root.iter())`` unless the depth cap moved elements to an ancestor
    return Document(doc_root, n, None if capped else made)
