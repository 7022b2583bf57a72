"""bleach's re-parse done by lexbor, on input where that provably gives the tree html5lib would build.

Why: ``sanitize.bleach_final`` hands our own serializer's output to bleach, which re-parses it with its
vendored pure-Python html5lib (tokenizer and tree builder: ~2/3 of bleach's time, ~17 us a paragraph), walks
the tree (``sanitize._FastWalker``), filters the tokens with its allow-list (``BleachSanitizerFilter``) and
writes them with html5lib's serializer. With the fast extra (CPython, selectolax), ``fragment_tokens``
parses with lexbor instead and yields the token stream ``_FastWalker`` yields for html5lib's tree; bleach's
filter and html5lib's serializer then run unchanged, so the output is the same string and bleach's filter
is still the last line of defence. On anything else it raises :class:`Unproven` (before or while yielding;
bleach's serializer joins its whole output before ``clean`` returns, so nothing of a stopped stream is
used) and ``bleach_final`` runs the html5lib route.

Why the tokens are html5lib's, checked on every node (lexbor itself is trusted for nothing: a tree it got
wrong fails check 1):

1. **The input is our serializer's text of lexbor's tree.** The walk rebuilds that text piece by piece
   (lower-case tag names from ``FAST_TAGS``, attribute names our serializer writes, values double-quoted and
   escaped as ``render_html.escape_attr`` does, text escaped as ``escape_text`` does, no end tag for a void
   element) and compares each piece with the input at its place, and the whole length. So the input is
   well-nested markup whose elements are lexbor's: no comment or doctype, no character reference but the
   ones our serializer writes (``&amp; &lt; &gt; &quot; &#x27; &#x60;``), no self-closing slash, no
   unquoted value; and every text and value as bleach's tokenizer keeps it (entities as written,
   ``consume_entities=False``) is the escaped form of lexbor's decoded one, which is what is yielded.
2. **html5lib's tree builder only inserts and pops on it** (fragment parsing in a ``<div>``, "in body"):
   each start tag is inserted as a child of the current node unless its in-body rule does more, which
   ``_start`` rules out from the open elements: a paragraph closer (html5lib's list) with a ``<p>`` open (no
   element of ``FAST_TAGS`` bounds button scope), a heading right inside a heading, an ``li`` (``dd``/
   ``dt``) that html5lib's list-item walk would close (its own "special" set: it differs from the current
   standard's, which lexbor follows, on ``figcaption`` and ``summary``), an ``a`` inside an ``a``, a
   ``<pre>`` whose text starts with a newline (dropped). Every end tag of well-nested markup closes the
   current node in each in-body rule it reaches (``endTagP``, ``endTagListItem``, ``endTagBlock``,
   ``endTagHeading``, ``endTagOther``, and the adoption agency when the formatting element is the current
   node), and the list of active formatting elements then holds open elements only, so reconstructing it
   (before text and most start tags) does nothing. Noah's Ark only drops list entries; an ``a`` never nests.
3. **The tokenizer does nothing bleach acts on.** Only allow-listed tags (bleach's tokenizer turns others
   into text), attribute names of ``[a-z][a-z0-9:-]*`` (it drops attributes named with a quote or ``<``
   after the parse error they raise). Canonical markup raises no other tag or attribute error; a code point
   html5lib calls invalid (controls, noncharacters, surrogates) only adds a parse error that bleach's
   tokenizer passes on and the tree builder records, so its text is text on both routes (and a NUL, a lone
   surrogate or a carriage return never reaches lexbor's tree as written: check 1 fails).

``tests/security/test_bleach_fast.py`` compares both routes' output on every fixture and security
fixture, random trees and the hostile corpus, checks ``FAST_TAGS``' kinds against html5lib's own dispatch
table (and that the void kinds are html5lib's void elements, which the walker yields as EmptyTag), and shows
each guard falling back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from bleach._vendor.html5lib import constants as html5lib_constants  # type: ignore[import-not-found]
from selectolax.lexbor import LexborHTMLParser

from .sanitize import ALLOWED_TAGS, _text_tokens


class Unproven(Exception):
    """The input is not one on which lexbor's tokens are provably html5lib's: use the html5lib route."""


# What html5lib's in-body start-tag rule does with each tag lexbor's tree may hold here (the handler names
# are html5lib's; a test reads its dispatch table). Tables, forms, foreign content, raw text, buttons and
# every other tag with a rule of its own are absent: they take the html5lib route.
_INSERT = 0  # startTagOther, startTagFormatting: (reconstruct, a no-op here) insert
_VOID = 1  # startTagVoidFormatting, startTagParamSource: insert and pop
_CLOSE_P = 2  # startTagCloseP: close an open p, insert
_HEADING = 3  # startTagHeading: close an open p, pop a heading that is the current node, insert
_PRE = 4  # startTagPreListing: close an open p, insert, drop a newline right after
_LIST_ITEM = 5  # startTagListItem: close an li (dd, dt) its walk meets, close an open p, insert
_A = 6  # startTagA: adoption agency for an a in the active formatting list, insert
_HR = 7  # startTagHr: close an open p, insert and pop
FAST_TAGS: dict[str, int] = {
    **dict.fromkeys(
        "abbr bdi bdo cite del dfn ins kbd mark picture q samp span sub sup time var "
        "b code em i s small strong u".split(),
        _INSERT,
    ),
    **dict.fromkeys("br img wbr source".split(), _VOID),
    **dict.fromkeys("blockquote details div dl figcaption figure ol p summary ul".split(), _CLOSE_P),
    **dict.fromkeys("h1 h2 h3 h4 h5 h6".split(), _HEADING),
    "pre": _PRE,
    **dict.fromkeys(("li", "dd", "dt"), _LIST_ITEM),
    "a": _A,
    "hr": _HR,
}
assert FAST_TAGS.keys() <= ALLOWED_TAGS  # bleach's tokenizer keeps allowed tags only as tags
_HEADINGS = frozenset(html5lib_constants.headingElements)
_LIST_STOPS = {"li": ("li",), "dd": ("dd", "dt"), "dt": ("dd", "dt")}
# html5lib's "special" elements (its list-item walk stops at them), but address, div and p
_SPECIAL = frozenset(
    name
    for ns, name in html5lib_constants.specialElements
    if ns == html5lib_constants.namespaces["html"] and name not in ("address", "div", "p")
)
_ATTR_NAME = re.compile(r"[a-z][a-z0-9:-]*\Z")


def may_prove(html: str) -> bool:
    """False for what ``fragment_tokens`` would refuse anyway, found without parsing (a table, a formula)."""
    return "<table" not in html and "<math" not in html


def _escape_text(s: str) -> str:
    """``render_html.escape_text`` without its control-character removal (a control character is text on
    both routes, check 3)."""
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


def _start(kind: int, tag: str, names: list[str], paragraphs: int, links: int) -> None:
    """Raise Unproven when html5lib's in-body rule for ``tag`` (a kind past ``_VOID``) would do more than
    insert it as a child of ``names[-1]`` (check 2). ``names``: the open elements, outermost first ("" for
    the fragment's root); ``paragraphs``/``links``: how many ``p``/``a`` of them are open."""
    if kind == _A:
        if links:
            raise Unproven("an a inside an a")
        return
    if paragraphs:
        raise Unproven(f"<{tag}> closes an open p")
    if kind == _HEADING and names[-1] in _HEADINGS:
        raise Unproven(f"<{tag}> right inside a heading")
    if kind == _LIST_ITEM:
        stops = _LIST_STOPS[tag]
        for name in reversed(names):
            if name in stops:
                raise Unproven(f"<{tag}> closes an open {name}")
            if name in _SPECIAL:
                return


def fragment_tokens(html: str) -> Iterator[dict[str, Any]]:
    """The tokens ``sanitize._FastWalker`` yields for bleach's html5lib tree of ``html`` (see the module
    docstring), from lexbor's tree; raises Unproven where that is not proven. ``html`` passed
    ``may_prove``."""
    try:
        node: Any = LexborHTMLParser(html, is_fragment=True).root
    except Exception as exc:  # (none known) whatever lexbor cannot take, html5lib reads as it always did
        raise Unproven(f"lexbor: {exc!r}") from exc
    pos = 0  # html[:pos] is the text of what has been walked
    startswith = html.startswith
    path: list[Any] = []  # the open elements' lexbor nodes
    names: list[str] = [""]  # and their tags, under the fragment's root
    paragraphs = links = 0
    pending = ""  # escaped text not yet yielded (lexbor may split a text run)
    while node is not None:
        tag = node.tag
        if tag == "-text":
            raw = _escape_text(node.text_content or "")
            if not startswith(raw, pos):
                raise Unproven(f"text differs from the input at {pos}")
            pos += len(raw)
            pending += raw
        else:
            kind = FAST_TAGS.get(tag)
            if kind is None:
                raise Unproven(f"not a fast tag: {tag!r}")
            if pending:
                yield from _text_tokens(pending)
                pending = ""
            if kind > _VOID:
                _start(kind, tag, names, paragraphs, links)
            attrs = node.attributes
            if attrs:
                values = {}
                for k, v in attrs.items():
                    if not _ATTR_NAME.match(k):
                        raise Unproven(f"attribute name {k!r}")
                    values[k] = _escape_attr(v or "")
                markup = "<" + tag + "".join(f' {k}="{v}"' for k, v in values.items()) + ">"
                data = {(None, k): v for k, v in values.items()}
            else:
                markup = "<" + tag + ">"
                data = {}
            if not startswith(markup, pos):
                raise Unproven(f"a tag differs from the input at {pos}")
            pos += len(markup)
            nxt = node.first_child
            if kind == _VOID or kind == _HR:
                if nxt is not None:
                    raise Unproven("a void element with children")
                yield {"type": "EmptyTag", "name": tag, "namespace": None, "data": data}
            else:
                yield {"type": "StartTag", "name": tag, "namespace": None, "data": data}
                if kind == _PRE and nxt is not None and nxt.tag == "-text":
                    if (nxt.text_content or "")[:1] == "\n":
                        raise Unproven("a pre's text starts with a newline")
                if nxt is None:  # no children: its end tag now
                    if not startswith("</" + tag + ">", pos):
                        raise Unproven(f"an end tag differs from the input at {pos}")
                    pos += len(tag) + 3
                    yield {"type": "EndTag", "name": tag, "namespace": None}
                else:
                    path.append(node)
                    names.append(tag)
                    paragraphs += tag == "p"
                    links += tag == "a"
                    node = nxt
                    continue
        # the next node: a sibling, or the end tags of the elements this was the last child of
        nxt = node.next
        while nxt is None and path:
            node = path.pop()
            tag = names.pop()
            paragraphs -= tag == "p"
            links -= tag == "a"
            if not startswith("</" + tag + ">", pos):
                raise Unproven(f"an end tag differs from the input at {pos}")
            pos += len(tag) + 3
            if pending:
                yield from _text_tokens(pending)
                pending = ""
            yield {"type": "EndTag", "name": tag, "namespace": None}
            nxt = node.next
        node = nxt
    if pos != len(html):
        raise Unproven("the input has more than lexbor's tree")
    if pending:
        yield from _text_tokens(pending)
