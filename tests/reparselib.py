"""Is the tree we serialize the tree an HTML parser builds from our serialization? (parse stability)

A browser showing ``content_html`` (the extension's reader, a saved article.html) re-parses it; where the
HTML parsing algorithm restructures our markup (a ``<div>`` inside a ``<p>`` closes the paragraph and
leaves an empty one after it, a ``<td>`` outside a table loses its cell) the page shows something other
than the tree the text and Markdown were rendered from. ``differences`` serializes a tree as
``extract`` does, re-parses it in a ``<body>`` with html5lib (and lexbor when installed) and compares the
two trees token by token (text with collapsed white space, exact inside ``<pre>``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from readwell.dom import Element, Text
from readwell.parse import fast_parser, parse_html
from readwell.render_html import serialize


def tokens(nodes: list[Any]) -> list[tuple[Any, ...]]:
    """Element starts (with attributes) and ends, and text runs, of ``nodes`` and their subtrees; each token
    carries the tags of its open elements (where a difference is)."""
    out: list[tuple[Any, ...]] = []
    path: list[str] = []
    pre = 0

    def text(t: str) -> None:
        if not t:
            return
        if out and out[-1][0] == "text":  # adjacent text nodes serialize as one run
            out[-1] = ("text", out[-1][1] + t, out[-1][2])
        else:
            out.append(("text", t, "/".join(path)))

    def close_text() -> None:  # white space collapses outside <pre>, and a run of it alone is no token
        if out and out[-1][0] == "text" and not pre:
            t = " ".join(out[-1][1].split())
            if t:
                out[-1] = ("text", t, out[-1][2])
            else:
                out.pop()

    stack: list[tuple[str, Any]] = [("node", n) for n in reversed(nodes)]
    while stack:
        kind, n = stack.pop()
        if kind == "end":
            close_text()
            path.pop()
            pre -= n == "pre"
            out.append(("end", n, "/".join(path)))
            continue
        if isinstance(n, Text):
            text(n.data)
            continue
        if not isinstance(n, Element):
            continue
        close_text()
        out.append(("start", n.ns, n.tag, tuple(sorted(n.attrs.items())), "/".join(path)))
        path.append(n.tag)
        pre += n.tag == "pre"
        stack.append(("end", n.tag))
        stack.extend(("node", c) for c in reversed(n.children))
    close_text()
    return out


def parsers() -> Iterator[str]:
    yield "html5lib"
    if fast_parser() is not None:
        yield "fast"


def reparse(html: str, parser: str) -> Element:
    """``html`` as a browser parses it inside ``<body>`` of a standards-mode page."""
    doc = parse_html("<!DOCTYPE html><html><head></head><body>" + html + "</body></html>", parser=parser)
    assert doc.body is not None
    return doc.body


def first_difference(ours: list[tuple[Any, ...]], theirs: list[tuple[Any, ...]]) -> str | None:
    """None when the token lists are equal, else where they first part."""
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return f"token {i}: ours {_show(a)} / re-parsed {_show(b)}"
    if len(ours) != len(theirs):
        i = min(len(ours), len(theirs))
        rest = ours[i:] or theirs[i:]
        return f"token {i}: {'ours' if ours[i:] else 're-parsed'} has more: {_show(rest[0])}"
    return None


def _show(tok: tuple[Any, ...]) -> str:
    if tok[0] == "start":
        return f"<{tok[2]}> in {tok[4] or '(root)'}"
    if tok[0] == "end":
        return f"</{tok[1]}> in {tok[2] or '(root)'}"
    return f"text {tok[1][:30]!r} in {tok[2] or '(root)'}"


def differences(root: Element, include_self: bool) -> dict[str, str]:
    """{parser: first difference} between ``root`` (children only unless ``include_self``) and the re-parse
    of its serialization; empty when every parser rebuilds it."""
    html = serialize(root, include_self=include_self)
    ours = tokens([root] if include_self else list(root.children))
    found = {}
    for parser in parsers():
        diff = first_difference(ours, tokens(list(reparse(html, parser).children)))
        if diff:
            found[parser] = diff
    return found
