"""Optional adapters for documents already parsed by lxml or BeautifulSoup, and the live-DOM snapshot.

lxml and BeautifulSoup trees are serialized and re-parsed with html5lib rather than walked: their parsers
repair broken markup differently from browsers, and one parser for all runtimes is what keeps results
identical. The input object is only read, never changed. The snapshot builder turns the extension's JSON
serialization of the live DOM (with layout) into our tree with the live node ids.
"""

from __future__ import annotations

from typing import Any

from .dom import (
    CAP_BLOCKS,
    HTML_NS,
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


def from_snapshot(snap: dict[str, Any]) -> Document:
    """Build a Document from the extension's snapshot.

    Format: nodes are ``{"t": tag, "id": n, "ns": "html|svg|math", "a": {attrs}, "c": [children],
    "l": {layout}}`` for elements, plain strings for text; shadow roots arrive as ``template`` children with
    ``shadowrootmode``. Node ids are the adapter's (they map back to live elements).
    """
    if not isinstance(snap, dict) or "t" not in snap:
        raise InputError("snapshot must be an element object with a 't' key")
    doc_root = Element("#document")
    doc_root.nid = 0
    top = 0
    work: list[tuple[Any, Element, int, Element | None]] = [(snap, doc_root, 0, None)]
    while work:
        node, parent, depth, cap = work.pop()
        if isinstance(node, str):
            if parent.children and isinstance(parent.children[-1], Text):
                parent.children[-1].data += node
            else:
                t = Text(node)
                parent.append(t)
            continue
        if not isinstance(node, dict):
            continue
        tag = str(node.get("t", "div")).lower()
        if depth >= MAX_DEPTH:
            cap = cap if cap is not None else parent
        if depth < MAX_DEPTH or tag in CAP_BLOCKS:  # same depth cap as the html5lib builder (parity)
            attrs = node.get("a") or {}
            clean = drop_internal_attrs({str(k): str(v) for k, v in attrs.items()})
            el = Element(tag, clean, _NS.get(node.get("ns", "html"), HTML_NS))
            el.nid = int(node.get("id", 0))
            top = max(top, el.nid)
            lay = node.get("l")
            el.layout = dict(lay) if isinstance(lay, dict) else None
            (parent if depth < MAX_DEPTH else cap).append(el)  # type: ignore[union-attr]
            target = el
        else:
            target = parent
        kids = node.get("c") or []
        for k in reversed(kids):
            work.append((k, target, depth + 1, cap))
    # text nodes get fresh ids after the element ids
    n = top
    for node_ in doc_root.iter_nodes():
        if isinstance(node_, Text):
            n += 1
            node_.nid = n
    if not any(isinstance(c, Element) and c.tag == "html" for c in doc_root.children):
        html = Element("html")
        html.nid = n + 1
        n += 1
        for c in list(doc_root.children):
            html.append(c)
        doc_root.append(html)
    return Document(doc_root, n)
