"""Our HTML serializer for the sanitized tree: every text escaped, every attribute quoted and escaped.

Why our own: the output is built from nodes and escaped values, never by pasting page strings. Whitespace
outside ``<pre>`` collapses to single spaces (the browser would render it so), inside ``<pre>`` and inside
attribute values it is kept exactly. ``escape_text``/``escape_attr`` also drop control characters (see
``strip_controls``), so they are safe for any page-derived value, not only the article body.
"""

from __future__ import annotations

import re

from .dom import VOID, Element, Text, collapse_space

# C0 controls except tab, newline and CR; DEL; C1 controls; lone surrogates. In a terminal they are escape
# sequences (``readwell extract --format text`` of a hostile page could retitle the window, clear the screen or
# write the clipboard with OSC 52); YAML rejects them; a lone surrogate cannot be written as UTF-8.
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
BLOCKS_NEWLINE = frozenset(
    "p div blockquote pre ul ol li h1 h2 h3 h4 h5 h6 table thead tbody tfoot tr figure figcaption dl dt dd hr "
    "details summary section".split()
)


def strip_controls(s: str) -> str:
    """``s`` without control characters; CR and form feed become a newline and a space."""
    if s.isprintable():  # every character this changes is unprintable (controls, surrogates, CR, FF)
        return s
    if not _CONTROL.search(s) and "\r" not in s and "\x0c" not in s:
        return s
    return _CONTROL.sub("", s.replace("\r\n", "\n").replace("\r", "\n").replace("\x0c", " "))


def escape_text(s: str) -> str:
    return strip_controls(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attr(s: str) -> str:
    return (
        strip_controls(s)
        .replace("&", "&amp;")
        .replace('"', "&quot;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("'", "&#x27;")
        .replace("`", "&#x60;")
    )


def serialize(el: Element, include_self: bool = True) -> str:
    """Serialize ``el`` (iteratively)."""
    out: list[str] = []
    # stack items: ("el", node, in_pre) | ("close", tag, in_pre)
    stack: list[tuple] = []
    if include_self:
        stack.append(("el", el, False))
    else:
        for c in reversed(el.children):
            stack.append(("el", c, el.tag == "pre"))
    while stack:
        item = stack.pop()
        if item[0] == "close":
            out.append(f"</{item[1]}>")
            if item[1] in BLOCKS_NEWLINE and not item[2]:
                # a newline between blocks (inside a <pre> it would be text); text and attribute values are
                # never rewritten
                out.append("\n")
            continue
        node, in_pre = item[1], item[2]
        if isinstance(node, Text):
            data = node.data if in_pre else collapse_space(node.data)
            out.append(escape_text(data))
            continue
        assert isinstance(node, Element)
        if node.attrs:
            attrs = "".join(f' {k}="{escape_attr(v)}"' for k, v in node.attrs.items() if _safe_name(k))
            out.append(f"<{node.tag}{attrs}>")
        else:
            out.append(f"<{node.tag}>")
        if node.tag in VOID:
            continue
        stack.append(("close", node.tag, in_pre))
        pre = in_pre or node.tag == "pre"
        for c in reversed(node.children):
            stack.append(("el", c, pre))
    return "".join(out).strip()


_NAME = re.compile(r"^[a-z][a-z0-9:-]*$")


def _safe_name(name: str) -> bool:
    return bool(_NAME.match(name))
