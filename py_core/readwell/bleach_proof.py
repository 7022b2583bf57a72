"""bleach's re-parse skipped where a tree whose serialization is the input proves what html5lib would build.

Why: ``sanitize.bleach_final`` hands our own serializer's output to bleach, which re-parses it with its
vendored pure-Python html5lib (tokenizer and tree builder: ~2/3 of bleach's time, ~17 us a paragraph), walks
the tree (``sanitize._FastWalker``), filters the tokens with its allow-list (``BleachSanitizerFilter``) and
writes them with html5lib's serializer. ``proven_tokens`` yields the token stream ``_FastWalker`` yields for
html5lib's tree of the input from the *events* of another tree that claims to be written as the input: our
own ``readwell.dom`` tree that ``render_html.serialize`` just wrote (``render_html.written``: every runtime,
Pyodide included), or lexbor's parse of the input (``bleach_fast``, CPython with the fast extra). bleach's
filter and html5lib's serializer then run unchanged, so the output is the same string and bleach's filter is
still the last line of defence. On anything else it raises :class:`Unproven` (before or while yielding;
bleach's serializer joins its whole output before ``clean`` returns, so nothing of a stopped stream is used)
and ``bleach_final`` runs the html5lib route.

The events (what a tree's walk in document order gives): a ``str`` is text as written in the input
(escaped); a ``(tag, attrs)`` tuple a start tag, ``attrs`` the (name, value as written) pairs; ``None`` the
end tag of the innermost open element that is not void. The tree is trusted for nothing: every token is
built from the events *and* the input, checked piece by piece, so a wrong event fails check 1.

Why the tokens are html5lib's, checked on every event:

1. **The input is canonical markup, written as the events say.** Each piece is rebuilt (``<tag`` from
   ``FAST_TAGS``, `` name="value"`` with names of ``[a-z][a-z0-9:-]*``, each once, values without ``"``;
   ``</tag>`` for the open element; text without ``<``) and compared with the input at its place, and the
   whole length; no element is left open at the end and none is closed that is not open. The input has no
   NUL and no carriage return (the tokenizer replaces or drops the one, the input stream rewrites the
   other). So it is well-nested markup of the events' elements: no comment, doctype, self-closing slash or
   unquoted value, and every text and value as bleach's tokenizer keeps it (``consume_entities=False``: an
   ``&`` is a character, entities stay as written) is the piece as written, which is what is yielded.
2. **html5lib's tree builder only inserts and pops on it** (fragment parsing in a ``<div>``, "in body"):
   each start tag is inserted as a child of the current node unless its in-body rule does more, which
   ``_start`` rules out from the open elements: a paragraph closer (html5lib's list) with a ``<p>`` open (no
   element of ``FAST_TAGS`` bounds button scope), a heading right inside a heading, an ``li`` (``dd``/
   ``dt``) that html5lib's list-item walk would close (its own "special" set: it differs from the current
   standard's, which lexbor follows, on ``figcaption`` and ``summary``), an ``a`` inside an ``a``; and a
   ``<pre>`` followed by a newline (dropped: the only place html5lib drops one, as a ``<pre>`` has content
   from its first token on). Every end tag of well-nested markup closes the current node in each in-body
   rule it reaches (``endTagP``, ``endTagListItem``, ``endTagBlock``, ``endTagHeading``, ``endTagOther``, and
   the adoption agency when the formatting element is the current node), and the list of active formatting
   elements then holds open elements only, so reconstructing it (before text and most start tags) does
   nothing. Noah's Ark only drops list entries; an ``a`` never nests. Adjacent text is one text node (one
   run of tokens here); a void element never holds children.
3. **The tokenizer does nothing bleach acts on.** Only allow-listed tags (bleach's tokenizer turns others
   into text), attribute names as above (it drops attributes named with a quote or ``<`` after the parse
   error they raise). Canonical markup raises no other tag or attribute error; a code point html5lib calls
   invalid (controls, noncharacters, surrogates) only adds a parse error that bleach's tokenizer passes on
   and the tree builder records, so its text is text on both routes.

``tests/security/test_bleach_proof.py`` compares the tree route's output with the html5lib route on every
fixture, random trees, hostile input and events that lie about the input, checks ``FAST_TAGS``' kinds
against html5lib's own dispatch table, and shows each guard falling back (``test_bleach_fast.py`` does the
same for lexbor's events).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from bleach._vendor.html5lib import constants as html5lib_constants  # type: ignore[import-not-found]

from .render_html import start_tag
from .sanitize import ALLOWED_TAGS, _text_tokens


class Unproven(Exception):
    """The input is not one on which the events' tokens are provably html5lib's: use the html5lib route."""


# What html5lib's in-body start-tag rule does with each tag proven here (the handler names are html5lib's; a
# test reads its dispatch table). Tables, forms, foreign content, raw text, buttons and every other tag with
# a rule of its own are absent: they take the html5lib route.
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
    """False for what ``proven_tokens`` would refuse anyway, found without a walk (a table, a formula)."""
    return "<table" not in html and "<math" not in html


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


def proven_tokens(html: str, events: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """The tokens ``sanitize._FastWalker`` yields for bleach's html5lib tree of ``html``, from ``events``
    (see the module docstring); raises Unproven where that is not proven. ``html`` passed ``may_prove``."""
    if "\x00" in html or "\r" in html:
        raise Unproven("a NUL or a carriage return")
    pos = 0  # html[:pos] is the text of the events so far
    startswith = html.startswith
    names: list[str] = [""]  # the open elements' tags, under the fragment's root
    paragraphs = links = 0
    pending: list[str] = []  # text not yet yielded (a tree may hold a text run as several nodes)
    for ev in events:
        if ev.__class__ is str:
            if "<" in ev or not startswith(ev, pos):
                raise Unproven(f"text differs from the input at {pos}")
            pos += len(ev)
            pending.append(ev)
            continue
        if pending:
            yield from _text_tokens("".join(pending))
            pending = []
        if ev is None:
            if len(names) == 1:
                raise Unproven("an end tag with no open element")
            tag = names.pop()
            paragraphs -= tag == "p"
            links -= tag == "a"
            if not startswith("</" + tag + ">", pos):
                raise Unproven(f"an end tag differs from the input at {pos}")
            pos += len(tag) + 3
            yield {"type": "EndTag", "name": tag, "namespace": None}
            continue
        tag, attrs = ev
        kind = FAST_TAGS.get(tag)
        if kind is None:
            raise Unproven(f"not a fast tag: {tag!r}")
        if kind > _VOID:
            _start(kind, tag, names, paragraphs, links)
        if attrs:
            data = {}
            for k, v in attrs:
                if not _ATTR_NAME.match(k) or '"' in v or (None, k) in data:
                    raise Unproven(f"attribute {k!r}")
                data[(None, k)] = v
        else:
            data = {}
        markup = start_tag(tag, attrs)
        if not startswith(markup, pos):
            raise Unproven(f"a tag differs from the input at {pos}")
        pos += len(markup)
        if kind == _VOID or kind == _HR:
            yield {"type": "EmptyTag", "name": tag, "namespace": None, "data": data}
            continue
        if kind == _PRE and startswith("\n", pos):
            raise Unproven("a pre's text starts with a newline")
        yield {"type": "StartTag", "name": tag, "namespace": None, "data": data}
        names.append(tag)
        paragraphs += tag == "p"
        links += tag == "a"
    if len(names) > 1:
        raise Unproven("an element left open")
    if pos != len(html):
        raise Unproven("the input has more than the events")
    if pending:
        yield from _text_tokens("".join(pending))
