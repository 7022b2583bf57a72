"""Optional adapters for documents already parsed by lxml or BeautifulSoup, and the live-DOM snapshot.

lxml and BeautifulSoup trees are serialized and re-parsed with html5lib rather than walked: their parsers
repair broken markup differently from browsers, and one parser for all runtimes is what keeps results
identical. The input object is only read, never changed. The snapshot builder turns the extension's JSON
serialization of the live DOM (with layout) into our tree with the live node ids.
"""

from __future__ import annotations

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
    Most elements have none or a few, all strings already (JSON from the live DOM): those cost one check."""
    if not raw:
        return {}
    attrs = dict(zip(map(str, raw), map(str, raw.values()), strict=True))
    # any key starting with the prefix has it somewhere in the joined keys: the common case skips the scan
    if INTERNAL_ATTR_PREFIX in " ".join(attrs).lower():
        attrs = drop_internal_attrs(attrs)
    return attrs


def from_snapshot(snap: dict[str, Any]) -> Document:
    """Build a Document from the extension's snapshot.

    Format: nodes are ``{"t": tag, "id": n, "ns": "html|svg|math", "a": {attrs}, "c": [children],
    "l": {layout}}`` for elements, plain strings for text; shadow roots arrive as ``template`` children with
    ``shadowrootmode``. Node ids are the adapter's (they map back to live elements).

    One pass, nodes linked directly (they are new: no detaching as in ``Element.append``). Text nodes get
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
    work: list[tuple[Any, Element, int, Element | None]] = [(snap, doc_root, 0, None)]
    pop, push = work.pop, work.extend
    while work:
        node, parent, depth, cap = pop()
        if dl is not None:
            dl.tick()
        if isinstance(node, str):
            kids = parent.children
            if kids and isinstance(kids[-1], Text):
                kids[-1].data += node
            else:
                t = Text(node)
                t.parent = parent
                kids.append(t)
                texts.append(t)
            continue
        if not isinstance(node, dict):
            continue
        tag = str(node.get("t", "div")).lower()
        if depth >= MAX_DEPTH:
            cap = cap if cap is not None else parent
            capped = True
        if depth < MAX_DEPTH or tag in CAP_BLOCKS:  # same depth cap as the html5lib builder (parity)
            el = Element(tag, _attrs(node.get("a")), _NS.get(node.get("ns", "html"), HTML_NS))
            nid = el.nid = int(node.get("id", 0))
            if nid > top:
                top = nid
            lay = node.get("l")
            if isinstance(lay, dict):
                el.layout = dict(lay)
            holder = parent if depth < MAX_DEPTH else cap
            el.parent = holder
            holder.children.append(el)  # type: ignore[union-attr]
            target = el
        else:
            target = parent
        kids_in = node.get("c")
        if kids_in:
            d = depth + 1
            push([(k, target, d, cap) for k in reversed(kids_in)])
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
    return Document(doc_root, n)
