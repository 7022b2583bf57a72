"""Our HTML serializer for the sanitized tree: every text escaped, every attribute quoted and escaped.

Why our own: the output is built from nodes and escaped values, never by pasting page strings. Whitespace
outside ``<pre>`` collapses to single spaces (the browser would render it so), inside ``<pre>`` it is kept.
"""

from __future__ import annotations

import re

from .dom import VOID, Element, Text

_WS = re.compile(r"\s+")
BLOCKS_NEWLINE = frozenset(
    "p div blockquote pre ul ol li h1 h2 h3 h4 h5 h6 table thead tbody tfoot tr figure figcaption dl dt dd hr "
    "details summary section".split()
)


def escape_text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attr(s: str) -> str:
    return (s.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("'", "&#x27;").replace("`", "&#x60;"))


def serialize(el: Element, include_self: bool = True) -> str:
    """Serialize ``el`` (iteratively)."""
    out: list[str] = []
    # stack items: ("open", el, in_pre) | ("close", tag) | ("text", str)
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
            if item[1] in BLOCKS_NEWLINE:
                out.append("\n")
            continue
        node, in_pre = item[1], item[2]
        if isinstance(node, Text):
            data = node.data if in_pre else _WS.sub(" ", node.data)
            out.append(escape_text(data))
            continue
        assert isinstance(node, Element)
        attrs = "".join(f' {k}="{escape_attr(v)}"' for k, v in node.attrs.items() if _safe_name(k))
        out.append(f"<{node.tag}{attrs}>")
        if node.tag in VOID:
            continue
        stack.append(("close", node.tag))
        pre = in_pre or node.tag == "pre"
        for c in reversed(node.children):
            stack.append(("el", c, pre))
    html = "".join(out)
    return re.sub(r"\n{2,}", "\n", html).strip()


_NAME = re.compile(r"^[a-z][a-z0-9:-]*$")


def _safe_name(name: str) -> bool:
    return bool(_NAME.match(name))
