"""Our HTML serializer for the sanitized tree: every text escaped, every attribute quoted and escaped.

Why our own: the output is built from nodes and escaped values, never by pasting page strings. Whitespace
outside ``<pre>`` collapses to single spaces (the browser would render it so), inside ``<pre>`` and inside
attribute values it is kept exactly. ``escape_text``/``escape_attr`` also drop control characters (see
``strip_controls``), so they are safe for any page-derived value, not only the article body.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator
from typing import Any

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


Event = str | tuple[str, list[tuple[str, str]]] | None

# The events of the last ``serialize`` call in this thread, with its output (``events_of``).
_last = threading.local()


def serialize(el: Element, include_self: bool = True) -> str:
    """Serialize ``el``: the pieces ``written`` describes, joined. The events are kept for ``events_of``
    (until it is asked, or the next call in the same thread)."""
    out: list[str] = []
    open_tags: list[str] = []
    events: list[Event] = []
    for ev in written(el, include_self):
        events.append(ev)
        if isinstance(ev, str):
            out.append(ev)
        elif ev is None:
            out.append("</" + open_tags.pop() + ">")
        else:
            tag, attrs = ev
            out.append(start_tag(tag, attrs))
            if tag not in VOID:
                open_tags.append(tag)
    html = "".join(out)
    _last.walk = (html, el, include_self, events)
    return html


def events_of(html: str, el: Element, include_self: bool = True) -> Iterable[Event]:
    """``written(el, include_self)`` for ``html``, what ``serialize(el, include_self)`` just returned: the
    events that call walked, when it was the last in this thread (and is handed them once), else a new walk.

    Why: ``extract`` gives bleach the text and the walk of the same tree (``sanitize.bleach_final``); walking
    the article once instead of twice. ``serialize`` stays the call ``extract`` makes (tests wrap it there)."""
    walk = getattr(_last, "walk", None)
    _last.walk = None
    if walk is not None and walk[0] is html and walk[1] is el and walk[2] == include_self:
        return walk[3]
    return written(el, include_self)


def start_tag(tag: str, attrs: list[tuple[str, str]]) -> str:
    """A start tag with its attributes' names and values as written (escaped)."""
    if not attrs:
        return "<" + tag + ">"
    return "<" + tag + "".join(f' {k}="{v}"' for k, v in attrs) + ">"


def written(el: Element, include_self: bool = True) -> Iterator[Event]:
    """What ``serialize`` writes for ``el``, as events (iteratively): a ``str`` is text as written (escaped,
    white space collapsed outside ``<pre>``, a newline after each block's end tag outside ``<pre>``, the
    whole output's ends stripped), a ``(tag, attrs)`` tuple a start tag with its attributes as written, and
    ``None`` the end tag of the innermost open element (a void element has none, nor its children).

    Why events: ``sanitize.bleach_final`` hands them with the text to ``bleach_proof``, which checks them
    against the text piece by piece and then skips bleach's html5lib re-parse. Text between two tags is one
    event (the strip of the ends needs the whole run)."""
    # stack items: (node, in_pre), or (tag, in_pre) for an end tag
    stack: list[tuple[Any, bool]] = []
    if include_self:
        stack.append((el, False))
    else:
        for c in reversed(el.children):
            stack.append((c, el.tag == "pre"))
    held: list[str] = []  # text since the last tag
    lead = True  # no tag yet: the output's start is stripped
    while stack:
        node, in_pre = stack.pop()
        if node.__class__ is Text:
            held.append(escape_text(node.data if in_pre else collapse_space(node.data)))
            continue
        if held:
            text = "".join(held)
            held = []
            if lead:
                text = text.lstrip()
            if text:
                yield text
        lead = False
        if node.__class__ is str:
            yield None
            if node in BLOCKS_NEWLINE and not in_pre:
                # a newline between blocks (inside a <pre> it would be text); text and attribute values are
                # never rewritten
                held.append("\n")
            continue
        assert isinstance(node, Element)
        if node.attrs:
            yield node.tag, [(k, escape_attr(v)) for k, v in node.attrs.items() if _safe_name(k)]
        else:
            yield node.tag, []
        if node.tag in VOID:
            continue
        stack.append((node.tag, in_pre))
        pre = in_pre or node.tag == "pre"
        for c in reversed(node.children):
            stack.append((c, pre))
    text = "".join(held)
    text = text.strip() if lead else text.rstrip()
    if text:
        yield text


_NAME = re.compile(r"^[a-z][a-z0-9:-]*$")


def _safe_name(name: str) -> bool:
    return bool(_NAME.match(name))
