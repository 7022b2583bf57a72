"""Fast parsing on CPython: lexbor (through ``selectolax``) builds the same :class:`~readwell.dom.Document` as
the html5lib path in :mod:`readwell.parse`, about ten times faster (``pip install readwell[fast]``).

Why lexbor: measured against html5ever (``markupever``) and gumbo (``html5-parser``) on the 181 scrapinghub
pages (``benchmarks/PARSERS.md``), parse plus conversion into our tree was fastest with lexbor, its nodes
are cheap to walk from Python, it parses ``<noscript>`` as markup (scripting disabled, like html5lib; our
``resolve_deferred`` stage expects that on this path) and it needs no matching libxml2 build.

Everything around the parser is shared with the html5lib path so both see the same characters: NUL removal
and the depth/attribute limits (:func:`readwell.parse.limit_markup`), html5lib's own encoding sniffing
(BOM, declared encoding, UTF-8 if valid and non-ASCII, ``<meta>`` prescan, windows-1252; a later
``<meta charset>`` that disagrees re-decodes, as html5lib does), lone surrogates replaced, the depth cap and
``CAP_BLOCKS``, React boundary comments kept as ``rw-boundary`` markers, ``<template>`` content as the
template's children.

lexbor does not expose element namespaces, so they are derived from the tree with the HTML standard's rules
for foreign content (svg/math roots, HTML and MathML text integration points). The remaining differences are
the parsers' own (lexbor follows the current standard, html5lib an older one) and are listed, with a test
each, in ``tests/test_parse_fast.py``.
"""

from __future__ import annotations

from typing import Any, cast

from html5lib._inputstream import ContentAttrParser, EncodingBytes, HTMLBinaryInputStream, lookupEncoding
from selectolax.lexbor import LexborHTMLParser, LexborNode

from . import parse as _parse
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
    may_have_internal_attrs,
    number_nodes,
)

# What namespace the children of an element get by default (the HTML standard's integration points).
_KIDS_HTML = 0  # HTML element, or an SVG/MathML HTML integration point
_KIDS_SVG = 1
_KIDS_MATH = 2
_KIDS_MATH_TEXT = 3  # MathML text integration point: HTML, except mglyph and malignmark
_SVG_HTML_POINTS = frozenset({"foreignObject", "desc", "title"})
_MATH_TEXT_POINTS = frozenset({"mi", "mo", "mn", "ms", "mtext"})
_XHTML_ENCODINGS = frozenset({"text/html", "application/xhtml+xml"})


def parse_html_fast(data: str | bytes, declared_encoding: str | None = None) -> Document:
    """Parse HTML text or bytes into a Document with lexbor. Never raises on malformed markup."""
    if isinstance(data, bytes | bytearray):
        raw = _parse.limit_markup(bytes(data))
        assert isinstance(raw, bytes)
        text, encoding, tentative = _decode(raw, declared_encoding)
        tree = LexborHTMLParser(text)
        if tentative:
            later = _meta_encoding(tree, encoding)
            if later is not None:
                text = _decode_as(raw, later)
                tree = LexborHTMLParser(text)
    else:
        markup = _parse.limit_markup(_parse.replace_surrogates(data))
        assert isinstance(markup, str)
        text = markup
        tree = LexborHTMLParser(text)
    internal = may_have_internal_attrs(text)
    doc = _build_traversed(tree, internal)
    return doc if doc is not None else _build(tree, internal)


# --- encoding: html5lib's own sniffing, so both paths decode the same bytes to the same characters ---------


def _decode(raw: bytes, declared: str | None) -> tuple[str, Any, bool]:
    """(text, webencodings encoding, confidence is tentative), as ``html5lib.parse`` would decide."""
    kwargs: dict[str, Any] = {"default_encoding": "windows-1252", "useChardet": False}
    declared = _parse.utf8_evidence(raw, declared)
    if declared:
        kwargs["transport_encoding"] = declared
    try:
        raw.decode("utf-8")
        kwargs["likely_encoding"] = "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        stream = HTMLBinaryInputStream(raw, **kwargs)
    except LookupError:  # unknown declared encoding: sniff (as parse.py does)
        kwargs.pop("transport_encoding", None)
        stream = HTMLBinaryInputStream(raw, **kwargs)
    encoding, confidence = stream.charEncoding
    start = stream.rawStream.tell()  # past a byte order mark
    return raw[start:].decode(encoding.codec_info.name, "replace"), encoding, confidence == "tentative"


def _decode_as(raw: bytes, encoding: Any) -> str:
    return raw.decode(encoding.codec_info.name, "replace")


def _meta_encoding(tree: LexborHTMLParser, current: Any) -> Any:
    """The encoding html5lib would re-parse with after meeting a ``<meta>`` that disagrees with a tentative
    guess (its ``startTagMeta``/``changeEncoding``), or None."""
    for meta in tree.css("meta"):
        attrs = meta.attributes
        if "charset" in attrs:
            enc = lookupEncoding(attrs["charset"] or "")
        elif "content" in attrs and (attrs.get("http-equiv") or "").lower() == "content-type":
            enc = lookupEncoding(ContentAttrParser(EncodingBytes((attrs["content"] or "").encode())).parse())
        else:
            continue
        if enc is None or enc.name in ("utf-16be", "utf-16le"):
            continue  # html5lib ignores both and stays tentative
        return None if enc == current else enc
    return None


# --- tree -------------------------------------------------------------------------------------------------


def _attrs(node: LexborNode, ns: str, internal: bool = True) -> dict[str, str]:
    """Attributes as html5lib's path names them: valueless ones are "", ``xmlns`` on foreign elements is
    ``xmlns:xmlns`` (html5lib puts it in the XMLNS namespace)."""
    attrs = node.attributes
    if not attrs:
        return {}
    # a fresh dict per call: kept as is unless a value is missing
    if None in attrs.values():
        out = {k: ("" if v is None else v) for k, v in attrs.items()}
    else:
        out = cast(dict[str, str], attrs)
    if ns != HTML_NS and "xmlns" in out:
        out = {("xmlns:xmlns" if k == "xmlns" else k): v for k, v in out.items()}
    return drop_internal_attrs(out) if internal else out


def _element_ns(node: LexborNode, tag: str, mode: int) -> str:
    if mode == _KIDS_SVG:
        return SVG_NS
    if mode == _KIDS_MATH:
        return SVG_NS if tag == "svg" else MATH_NS
    if mode == _KIDS_MATH_TEXT and tag in ("mglyph", "malignmark"):
        # MathML when the parser met it inside the text integration point, HTML when it arrived another way
        # (foster-parented out of a <table>): only lexbor knows, and says so in its html5lib-test dump.
        dump = node.html_pretty(tag_with_ns=True, html5test=True) or ""
        return MATH_NS if dump.startswith("<math ") else HTML_NS
    return SVG_NS if tag == "svg" else MATH_NS if tag == "math" else HTML_NS


def _kids_mode(tag: str, ns: str, attrs: dict[str, str]) -> int:
    if ns == HTML_NS:
        return _KIDS_HTML
    if ns == SVG_NS:
        return _KIDS_HTML if tag in _SVG_HTML_POINTS else _KIDS_SVG
    if tag in _MATH_TEXT_POINTS:
        return _KIDS_MATH_TEXT
    if tag == "annotation-xml" and attrs.get("encoding", "").lower() in _XHTML_ENCODINGS:
        return _KIDS_HTML
    return _KIDS_MATH


def _children(node: LexborNode, tag: str) -> list[LexborNode]:
    """Child nodes; a ``<template>``'s are those of its content fragment (html5lib keeps them inline)."""
    if tag == "template":
        frags = node.template_fragments()
        node = frags[0] if frags else node
    return list(node.iter(include_text=True))  # every child node (only text is optional there)


def _build(tree: LexborHTMLParser, internal: bool = True) -> Document:
    """lexbor's tree → ours, iteratively, in document order, with the depth cap (same algorithm as
    ``parse._from_etree``: an element is attached when popped, text and markers in order around it).

    Nodes are numbered as they are attached, which is document order (``number_nodes``' numbering) unless
    the depth cap moved something: then ``number_nodes`` numbers the finished tree. Every page is built
    here, so the loop makes its nodes directly (the fields ``Element``/``Text`` construction sets).
    ``internal`` False (``dom.may_have_internal_attrs``): no element can carry ``data-readwell-*``."""
    doc_root = Element("#document")
    html = tree.root
    if html is None:  # lexbor always creates <html>; guard anyway
        return Document(doc_root, number_nodes(doc_root))
    new_element = Element.__new__
    new_text = Text.__new__
    boundary_marks = _parse.BOUNDARY_MARKS
    n = 1
    doc_root.nid = n
    capped = False
    work: list[tuple[Any, ...]] = [(html, doc_root, 0, None, _KIDS_HTML)]
    pop = work.pop
    while work:
        item = pop()
        src = item[0]
        if type(src) is str:  # text, or a boundary marker's mark
            parent = item[1]
            kids = parent.children
            if item[2]:
                marker = Element(_parse.BOUNDARY_TAG, {"data-mark": src})
                marker.parent = parent
                n += 1
                marker.nid = n
                kids.append(marker)
            elif kids and kids[-1].__class__ is Text:
                kids[-1].data += src
            else:
                t = new_text(Text)
                t.data = src
                t.parent = parent
                n += 1
                t.nid = n
                kids.append(t)
            continue
        _, parent, depth, cap, mode = item
        tag = src.tag
        if mode == _KIDS_HTML and tag != "svg" and tag != "math":
            ns = HTML_NS
        else:
            ns = _element_ns(src, tag, mode)
        attrs = _attrs(src, ns, internal)
        if depth < MAX_DEPTH:
            target = new_element(Element)
            target.parent = parent
            n += 1
            target.nid = n
            target.tag = tag
            target.ns = ns
            target.attrs = attrs
            target.children = []
            target.layout = None
            parent.children.append(target)
        else:
            capped = True
            cap = cap if cap is not None else parent
            if tag in CAP_BLOCKS:
                target = Element(tag, attrs, ns)
                cap.append(target)
            else:
                target = parent
        kids_mode = _KIDS_HTML if ns == HTML_NS else _kids_mode(tag, ns, attrs)
        pending: list[tuple[Any, ...]] = []
        add = pending.append
        for child in _children(src, tag):
            ctag = child.tag
            if ctag == "-text":
                data = child.text_content
                if data:
                    add((data, target, False))
            elif ctag == "-comment":
                mark = (child.comment_content or "").strip()
                if mark in boundary_marks:
                    add((mark, target, True))
            elif ctag and ctag[0] != "-":
                add((child, target, depth + 1, cap, kids_mode))
        if pending:
            pending.reverse()
            work.extend(pending)
    if capped:
        n = number_nodes(doc_root)
    return Document(doc_root, n)


def _build_traversed(tree: LexborHTMLParser, internal: bool = True) -> Document | None:
    """``_build``'s tree from one ``traverse`` of lexbor's tree, or None when the page needs ``_build``.

    Why: lexbor's ``traverse`` walks the whole tree in C, in document order, and hands each node over once,
    where ``_build`` asks every element for its child list (a generator and a node object per child, a
    work item per node): about 0.5 ms of the ~2 ms of conversion on a median page. Each node's parent is
    found by its lexbor address (``mem_id``) among the elements already made, so the result (nodes, their
    numbering, merged text, markers, namespaces) is ``_build``'s, which tests compare on every fixture.
    None (the caller then uses ``_build``) when a ``<template>`` appears (``traverse`` does not enter its
    content fragment) or an element lies deeper than MAX_DEPTH (``_build`` moves such subtrees)."""
    html = tree.root
    if html is None or html.parent is None:
        return None
    doc_root = Element("#document")
    new_element = Element.__new__
    new_text = Text.__new__
    boundary_marks = _parse.BOUNDARY_MARKS
    n = 1
    doc_root.nid = n
    # lexbor address -> (our element, its depth, the namespace mode of its children)
    made: dict[int, tuple[Element, int, int]] = {html.parent.mem_id: (doc_root, -1, _KIDS_HTML)}
    for src in html.traverse(include_text=True):
        tag = src.tag
        if not tag:
            continue
        up = src.parent
        found = made.get(up.mem_id) if up is not None else None
        if found is None:  # under a node _build does not enter (none known): let it decide
            return None
        parent, depth, mode = found
        if tag[0] == "-":
            if tag == "-text":
                data = src.text_content
                if not data:
                    continue
                kids = parent.children
                if kids and kids[-1].__class__ is Text:
                    kids[-1].data += data
                else:
                    t = new_text(Text)
                    t.data = data
                    t.parent = parent
                    n += 1
                    t.nid = n
                    kids.append(t)
            elif tag == "-comment":
                mark = (src.comment_content or "").strip()
                if mark in boundary_marks:
                    marker = Element(_parse.BOUNDARY_TAG, {"data-mark": mark})
                    marker.parent = parent
                    n += 1
                    marker.nid = n
                    parent.children.append(marker)
            continue
        depth += 1
        if depth >= MAX_DEPTH or tag == "template":
            return None
        attrs: dict[str, str]
        if mode == _KIDS_HTML and tag != "svg" and tag != "math":
            ns = HTML_NS
            # a fresh dict: ``_attrs`` for an HTML element, inline (no ``typing.cast`` here: a call and a
            # ``dict[str, str]`` made per element, 0.4 us each, ~0.25 ms of a median page); its values are
            # str once None is replaced
            attrs = src.attributes  # type: ignore[assignment]
            if None in attrs.values():
                attrs = {k: ("" if v is None else v) for k, v in attrs.items()}
            if internal and attrs:
                attrs = drop_internal_attrs(attrs)
            kids_mode = _KIDS_HTML
        else:
            ns = _element_ns(src, tag, mode)
            attrs = _attrs(src, ns, internal)
            kids_mode = _KIDS_HTML if ns == HTML_NS else _kids_mode(tag, ns, attrs)
        target = new_element(Element)
        target.parent = parent
        n += 1
        target.nid = n
        target.tag = tag
        target.ns = ns
        target.attrs = attrs
        target.children = []
        target.layout = None
        parent.children.append(target)
        made[src.mem_id] = (target, depth, kids_mode)
    return Document(doc_root, n)


def _add_text(parent: Element, data: str) -> None:
    kids = parent.children
    if kids and type(kids[-1]) is Text:
        kids[-1].data += data
    else:
        t = Text(data)
        t.parent = parent
        kids.append(t)
