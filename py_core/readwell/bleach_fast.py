"""bleach's re-parse proven by lexbor's parse of the input (CPython with the fast extra), where no tree of
ours comes with it.

Why: ``sanitize.bleach_final`` is given our serializer's events with the text (``render_html.written``) when
``extract`` calls it, and ``bleach_proof`` proves html5lib's tokens from them; called with the text alone,
lexbor's tree of the text gives the events instead (``fragment_events``), checked by the same proof: lexbor
is trusted for nothing, a tree it got wrong fails check 1 (the input is not that tree written out). Its text
and values are decoded, so they are escaped here as ``render_html.escape_text``/``escape_attr`` write them
(without their control-character removal: a control character is text on both routes, and a NUL, a lone
surrogate or a carriage return never reaches lexbor's tree as written, so check 1 fails on them).

``tests/security/test_bleach_fast.py`` compares this route's output with the html5lib route on every
fixture, random trees and the hostile corpus, and shows each guard falling back.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from .bleach_proof import Unproven, may_prove, proven_tokens

__all__ = ["Unproven", "fragment_tokens", "may_prove"]


def _escape_text(s: str) -> str:
    """``render_html.escape_text`` without its control-character removal (see the module docstring)."""
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_attr(s: str) -> str:
    """``render_html.escape_attr`` without its control-character removal."""
    return (
        s.replace("&", "&amp;")
        .replace('"', "&quot;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("'", "&#x27;")
        .replace("`", "&#x60;")
    )


# lexbor's void elements (the proof's void tags are among them): no end tag, and children would be invented
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


def fragment_events(html: str) -> Iterator[Any]:
    """``bleach_proof``'s events of lexbor's fragment tree of ``html``."""
    try:
        node: Any = LexborHTMLParser(html, is_fragment=True).root
    except Exception as exc:  # (none known) whatever lexbor cannot take, html5lib reads as it always did
        raise Unproven(f"lexbor: {exc!r}") from exc
    path: list[Any] = []  # the open elements' nodes
    while node is not None:
        tag = node.tag
        nxt = None
        if tag == "-text":
            yield _escape_text(node.text_content or "")
        else:
            attrs = node.attributes
            yield tag, [(k, _escape_attr(v or "")) for k, v in attrs.items()] if attrs else []
            nxt = node.first_child
            if tag in _VOID:
                if nxt is not None:
                    raise Unproven("a void element with children")
            elif nxt is None:
                yield None
            else:
                path.append(node)
                node = nxt
                continue
        # the next node: a sibling, or the end tags of the elements this was the last child of
        nxt = node.next
        while nxt is None and path:
            node = path.pop()
            yield None
            nxt = node.next
        node = nxt


def fragment_tokens(html: str) -> Iterator[dict[str, Any]]:
    """The tokens ``sanitize._FastWalker`` yields for bleach's html5lib tree of ``html``, proven from lexbor's
    tree (``bleach_proof.proven_tokens``); raises Unproven where that is not proven. ``html`` passed
    ``may_prove``."""
    return proven_tokens(html, fragment_events(html))
