"""Input handling: str/bytes/file/URL → :class:`~readwell.dom.Document` through html5lib.

html5lib follows the WHATWG parsing algorithm, so the tree matches what a browser builds from the same static
HTML (scripting disabled: ``<noscript>`` content is parsed as markup; the live-DOM adapter sees it as text and
``resolve_deferred`` handles both). Nothing is executed and nothing is loaded while parsing.

Encoding of bytes: BOM, then a declared (HTTP-style) encoding, then UTF-8 when the bytes hold non-ASCII
characters and are valid UTF-8 (see :func:`utf8_evidence`), then ``<meta charset>`` prescan, then windows-1252
(the web's legacy default).
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

import html5lib
from html5lib import _inputstream as _h5_inputstream
from html5lib import _tokenizer as _h5_tokenizer
from html5lib.constants import EOF as _H5_EOF
from html5lib.constants import _ReparseException as _H5ReparseException
from html5lib.constants import asciiUpper2Lower as _H5_ASCII_LOWER
from html5lib.constants import spaceCharacters as _H5_SPACE
from html5lib.constants import tagTokenTypes as _H5_TAG_TOKEN_TYPES
from html5lib.constants import tokenTypes as _H5_TOKEN_TYPES

from . import deadline, gc_pause
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
from .errors import InputError

NS_MAP = {
    "http://www.w3.org/1999/xhtml": HTML_NS,
    "http://www.w3.org/2000/svg": SVG_NS,
    "http://www.w3.org/1998/Math/MathML": MATH_NS,
}
ATTR_NS = {
    "http://www.w3.org/1999/xlink": "xlink",
    "http://www.w3.org/XML/1998/namespace": "xml",
    "http://www.w3.org/2000/xmlns/": "xmlns",
}

# React streaming boundaries are comments (<!--$?--> … <!--/$-->); they delimit the fallback content a
# streamed segment replaces, so they are kept as marker elements (the live-DOM adapter emits the same).
BOUNDARY_MARKS = frozenset({"$?", "/$", "$", "$!"})
BOUNDARY_TAG = "rw-boundary"

# html5lib's compiled ``charsUntil`` character sets (the module's own cache, filled by its ``charsUntil``) and
# that method, for the runs the fast path leaves to it.
_CHARS_UNTIL_RE: dict[tuple[Any, bool], re.Pattern[str]] = _h5_inputstream.charsUntilRegEx
_STREAM_CHARS_UNTIL = _h5_inputstream.HTMLUnicodeInputStream.charsUntil
# The characters that end a tag name in html5lib's tagNameState (EOF ends a ``charsUntil`` run too).
_TAG_NAME_ENDS = frozenset(_H5_SPACE | {">", "/", "\u0000"})
# A plain ``name="value"`` attribute (see ``_Html5libTokenizer.beforeAttributeNameState``); matched from the
# attribute's first character, so the match cannot run past the chunk (it ends at a closing quote in it).
_PLAIN_ATTRIBUTE = re.compile('([A-Za-z][^\t\n\f\r />=\'"<\x00]*)="([^"&\x00]*)"')

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_CHECK_CHARS = 1 << 20  # characters per UTF-16 encoding check (bounds its temporary bytes)


def replace_surrogates(data: str) -> str:
    """``data`` with every lone surrogate code point replaced by U+FFFD, as a decoder would.

    Why: lone surrogates cannot come from decoded bytes (a browser never sees them) and cannot be written
    as UTF-8. Most text holds none, and proving it by encoding to UTF-16 (strict: any surrogate code point
    raises) is ten times faster than the regular expression's scan (0.03 vs 0.34 ms on a median
    scrapinghub page); the expression runs only when there is something to replace."""
    for start in range(0, len(data), _SURROGATE_CHECK_CHARS):
        try:
            data[start : start + _SURROGATE_CHECK_CHARS].encode("utf-16-le")
        except UnicodeEncodeError:
            return _SURROGATE.sub("\ufffd", data)
    return data


_CHARSET_RE = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.I)


# html5lib is quadratic in nesting depth (scope checks scan the open-element stack) and in the number of
# attributes on one tag: 20,000 nested <div>s took 32 s. A linear pre-pass bounds both on hostile input.
MAX_PARSE_DEPTH = 600
MAX_TAG_ATTRS = 256
_TAG_S = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)([^>]*)>")
_TAG_B = re.compile(rb"<(/?)([A-Za-z][A-Za-z0-9:-]*)([^>]*)>")
_ATTR_S = re.compile(r"""\s*[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?""")
_ATTR_B = re.compile(rb"""\s*[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?""")
# Void elements and elements a following sibling closes implicitly do not deepen the tree.
_FLAT_TAGS = frozenset(
    "area base br col embed hr img input link meta param source track wbr p li dt dd tr td th option "
    "optgroup tbody thead tfoot colgroup rp rt".split()
)
_FLAT_TAGS_B = frozenset(t.encode() for t in _FLAT_TAGS)
# The last characters after which ``_within_limits`` looks for a self-closing "/": "/" and the ASCII
# characters isspace() is true of (as str and as one byte); a non-ASCII last character is asked isspace().
_SELF_CLOSING_ENDS = frozenset(["/"] + [c for c in map(chr, range(128)) if c.isspace()])
_SELF_CLOSING_ENDS_B = frozenset(c.encode() for c in _SELF_CLOSING_ENDS)


def utf8_evidence(raw: bytes, declared: str | None) -> str | None:
    """The transport encoding to parse ``raw`` with: ``declared``, else "utf-8" when the bytes prove it.

    Pages stored on disk, in corpora and in WARC records without an HTTP charset were often converted to
    UTF-8 and kept a stale ``<meta charset=iso-8859-1>`` (a fifth of one news corpus here; reader-mode test
    pages declaring gb2312): following the tag turns every accented letter and curly quote into mojibake
    ("market’s" → "marketâ€™s"), which also splits words. Legacy-encoded text with non-ASCII letters is
    almost never valid UTF-8 (an accented letter in windows-1252 is one byte >= 0x80 followed by ASCII, an
    invalid sequence), so valid UTF-8 with at least one multi-byte character outweighs the tag. Pure-ASCII
    bytes read the same in every ASCII-compatible encoding and keep the usual sniffing."""
    if declared:
        return declared
    if raw.isascii():
        return None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return "utf-8"


def drop_nuls(data: str | bytes) -> str | bytes:
    """Remove NUL characters before parsing. A browser drops NUL from body text anyway (in attribute values
    it would show U+FFFD), and html5lib handles each NUL as a parse error on a slow path: a 2 MB page of
    NULs took 20 s. UTF-16 input (BOM) keeps its zero bytes, they are part of its characters."""
    if isinstance(data, bytes):
        if b"\x00" not in data or data.startswith((b"\xff\xfe", b"\xfe\xff")):
            return data
        return data.replace(b"\x00", b"")
    return data.replace("\x00", "") if "\x00" in data else data


def limit_markup(data: str | bytes) -> str | bytes:
    """Drop opening tags nested deeper than MAX_PARSE_DEPTH (and their closing tags) and attributes beyond
    MAX_TAG_ATTRS on one tag. Text is never dropped. Pages within the limits are returned unchanged."""
    data = drop_nuls(data)
    is_bytes = isinstance(data, bytes)
    lt = b"<" if is_bytes else "<"
    if data.count(lt) < MAX_PARSE_DEPTH and len(data) < 200_000:  # type: ignore[arg-type]
        return data
    if len(data) <= _QUICK_CHECK_MAX and _within_limits(data):
        return data
    tag_re: Any = _TAG_B if is_bytes else _TAG_S  # str or bytes patterns, matching ``data``
    attr_re: Any = _ATTR_B if is_bytes else _ATTR_S
    out: list = []
    pos = 0
    depth = 0
    dropped: dict[str, int] = {}
    changed = False
    dl = deadline.current()
    for m in tag_re.finditer(data):
        if dl is not None:
            dl.tick()
        name = m.group(2).decode("ascii", "replace").lower() if is_bytes else m.group(2).lower()
        closing = bool(m.group(1))
        attrs = m.group(3)
        if not closing and len(attrs) > 4 * MAX_TAG_ATTRS:
            found = attr_re.findall(attrs)
            if len(found) > MAX_TAG_ATTRS:
                out.append(data[pos : m.start()])
                joiner: Any = b"" if is_bytes else ""
                out.append(
                    (b"<%s%s>" % (m.group(2), joiner.join(found[:MAX_TAG_ATTRS])))
                    if is_bytes
                    else f"<{m.group(2)}{joiner.join(found[:MAX_TAG_ATTRS])}>"
                )
                pos = m.end()
                changed = True
        if name in _FLAT_TAGS or (attrs.rstrip().endswith(b"/" if is_bytes else "/")):
            continue
        if not closing:
            if depth >= MAX_PARSE_DEPTH:
                out.append(data[pos : m.start()])
                pos = m.end()
                dropped[name] = dropped.get(name, 0) + 1
                changed = True
                continue
            depth += 1
        elif dropped.get(name):
            out.append(data[pos : m.start()])
            pos = m.end()
            dropped[name] -= 1
        else:
            depth = max(0, depth - 1)
    if not changed:
        return data
    out.append(data[pos:])
    return (b"" if is_bytes else "").join(out)


_QUICK_CHECK_MAX = 1_000_000  # characters: ``_within_limits`` lists every tag at once (a few ms at most)


def _within_limits(data: str | bytes) -> bool:
    """True when ``limit_markup``'s full pass would change nothing: no opening tag with attribute text
    longer than its check and nesting (as that pass counts it) never above MAX_PARSE_DEPTH. Most pages take
    this path: the same tags and the same counting, in one lean loop over ``findall``."""
    if isinstance(data, bytes):
        tags: list[Any] = _TAG_B.findall(data)
        flat: Any = _FLAT_TAGS_B
        slash: Any = b"/"
        attr_re: Any = _ATTR_B
    else:
        tags = _TAG_S.findall(data)
        flat = _FLAT_TAGS
        slash = "/"
        attr_re = _ATTR_S
    depth = 0
    long_attrs = 4 * MAX_TAG_ATTRS
    ends, ascii_end = (_SELF_CLOSING_ENDS_B, b"\x7f") if slash == b"/" else (_SELF_CLOSING_ENDS, "\x7f")
    deep: set[Any] = set()  # names seen that are not flat in any case (most of a page's tags)
    for closing, name, attrs in tags:
        if attrs:
            if len(attrs) > long_attrs and not closing and len(attr_re.findall(attrs)) > MAX_TAG_ATTRS:
                return False
            # a self-closing tag's attribute text ends in "/" or in space after it
            end = attrs[-1:]
            if (end in ends or (end > ascii_end and end.isspace())) and attrs.rstrip().endswith(slash):
                continue
        # Set lookups, not ``isspace()``/``islower()`` per tag: a method call without arguments goes
        # through Pyodide's call trampoline (5-6x its CPython cost; see ``dom.Element.iter``).
        if name not in deep:
            if name in flat or name.lower() in flat:
                continue
            deep.add(name)
        if closing:
            if depth:
                depth -= 1
        elif depth >= MAX_PARSE_DEPTH:
            return False
        else:
            depth += 1
    return True


class _Html5libStreamMixin:
    """html5lib's ``charsUntil`` without its list and ``"".join`` when the run ends inside the current chunk.

    Why: under Pyodide a C method of one argument (``"".join``, ``list.append``) goes through a call
    trampoline at 5-6x CPython's cost, and the tokenizer calls ``charsUntil`` for every text run, attribute
    value and comment (~5,800 times a page). A run that ends inside the chunk (nearly all of them) is one
    regex match and one slice; a run reaching the chunk's end, or a character set not compiled yet, takes
    html5lib's own loop from the same, untouched state, so the result is the same string.
    """

    chunk: str
    chunkOffset: int
    chunkSize: int

    def charsUntil(self, characters: Any, opposite: bool = False) -> str:
        chars = _CHARS_UNTIL_RE.get((characters, opposite))
        if chars is not None:
            offset = self.chunkOffset
            match = chars.match(self.chunk, offset)
            if match is None:
                if offset != self.chunkSize:
                    return ""
            else:
                end = match.end()
                if end != self.chunkSize:
                    self.chunkOffset = end
                    return self.chunk[offset:end]
        return _STREAM_CHARS_UNTIL(self, characters, opposite)  # type: ignore[arg-type]


class _Html5libUnicodeStream(_Html5libStreamMixin, _h5_inputstream.HTMLUnicodeInputStream):
    """A str input's stream with the fast ``charsUntil``."""


class _Html5libBinaryStream(_Html5libStreamMixin, _h5_inputstream.HTMLBinaryInputStream):
    """A bytes input's stream with the fast ``charsUntil``."""


def _fast_stream(source: Any, kwargs: dict[str, Any]) -> Any:
    """The input stream html5lib's ``HTMLInputStream`` factory makes for ``source``, with the fast
    ``charsUntil`` when the source is a str or bytes (what readwell passes; anything else gets html5lib's
    own). Same checks and arguments as the factory for those two types."""
    if type(source) is str and not any(key.endswith("_encoding") for key in kwargs):
        return _Html5libUnicodeStream(source)
    if type(source) is bytes:
        return _Html5libBinaryStream(source, **kwargs)
    return _h5_inputstream.HTMLInputStream(source, **kwargs)


class _Html5libTokenizer(_h5_tokenizer.HTMLTokenizer):
    """html5lib's tokenizer with a list for its token queue and a per-parse cache of lowered tag names.

    Why: its ``deque`` costs a trampolined ``append`` and ``popleft`` per token under Pyodide, where a plain
    list's ``append`` is a specialised instruction and the queue is emptied all at once after each state step
    (the parser reads every queued token before the tokenizer runs again, in the same order). Tag names are
    lowered with ``str.translate`` (trampolined too) once per tag; a page repeats a few dozen names, so a dict
    lookup returns the same lowered string. The stream is made by ``_fast_stream``.
    """

    def __init__(self, stream: Any, parser: Any = None, **kwargs: Any) -> None:  # noqa: PLW0231 (html5lib's, below)
        # html5lib's __init__, with the stream from _fast_stream instead of its HTMLInputStream factory.
        self.stream = _fast_stream(stream, kwargs)
        self.parser = parser
        self.escapeFlag = False
        self.lastFourChars: list[str] = []
        self.state = self.dataState
        self.escape = False
        self.currentToken = None
        self._lowered: dict[str, str] = {}

    def __iter__(self) -> Any:
        queue: list[dict[str, Any]] = []
        self.tokenQueue = queue  # type: ignore[assignment]  # a list: see the class docstring
        while self.state():
            while self.stream.errors:
                yield {"type": _H5_TOKEN_TYPES["ParseError"], "data": self.stream.errors.pop(0)}
            if queue:
                yield from queue
                del queue[:]

    def beforeAttributeNameState(self) -> bool:
        """html5lib's state, with a whole ``name="value"`` read at once when it is the plain kind.

        Why: html5lib takes an attribute in 7-8 steps of its state machine (a pass through the tokenizer
        loop, a state call and a ``char`` call each): this state, ``attributeNameState`` (once per run of
        letters), ``beforeAttributeValueState``, ``attributeValueDoubleQuotedState`` twice and
        ``afterAttributeValueState``. A page has ~1,800 attributes, most of them ``name="value"`` written
        plainly. The plain kind (``_PLAIN_ATTRIBUTE``) is the one those states take without a parse error
        or a character reference: a name starting with an ASCII letter, none of ``= > / ' " <``, NUL or
        white space in it, ``="`` right after it, and a value without ``"``, ``&`` or NUL, ending in the
        current chunk. It gives what they give: the name lowered as ``attributeNameState`` lowers it (ASCII
        letters only), the duplicate-name parse error, and the state ``afterAttributeValueState``, with the
        stream past the closing quote. Anything else takes html5lib's steps from the untouched state."""
        stream = self.stream
        match = _PLAIN_ATTRIBUTE.match(stream.chunk, stream.chunkOffset)
        if match is None:
            return super().beforeAttributeNameState()
        stream.chunkOffset = match.end()
        name, value = match.groups()
        lowered = self._lowered.get(name)
        if lowered is None:
            lowered = self._lowered[name] = name.translate(_H5_ASCII_LOWER)
        token: Any = self.currentToken
        attributes = token["data"]
        for seen, _ in attributes:
            if seen == lowered:
                self.tokenQueue.append({"type": _H5_TOKEN_TYPES["ParseError"], "data": "duplicate-attribute"})
                break
        attributes.append([lowered, value])
        self.state = self.afterAttributeValueState
        return True

    def tagNameState(self) -> bool:
        """html5lib's state, with the rest of a name taken in one run (``charsUntil``) instead of one state
        step per character: the same characters end the name. Why: each step is a pass through the
        tokenizer loop, a call of this state and of the stream's ``char`` (~5,000 steps a page, about two a
        tag, under Pyodide ~2x CPython's cost each)."""
        data = self.stream.char()
        if data in _H5_SPACE:
            self.state = self.beforeAttributeNameState
        elif data == ">":
            self.emitCurrentToken()
        elif data is _H5_EOF:
            self.tokenQueue.append({"type": _H5_TOKEN_TYPES["ParseError"], "data": "eof-in-tag-name"})
            self.state = self.dataState
        elif data == "/":
            self.state = self.selfClosingStartTagState
        elif data == "\u0000":
            self.tokenQueue.append({"type": _H5_TOKEN_TYPES["ParseError"], "data": "invalid-codepoint"})
            self.currentToken["name"] += "\ufffd"  # type: ignore[index]
        else:
            self.currentToken["name"] += data + self.stream.charsUntil(_TAG_NAME_ENDS)  # type: ignore[index]
        return True

    def emitCurrentToken(self) -> None:
        token: Any = self.currentToken
        if token["type"] in _H5_TAG_TOKEN_TYPES:
            name = token["name"]
            lowered = self._lowered.get(name)
            if lowered is None:
                lowered = self._lowered[name] = name.translate(_H5_ASCII_LOWER)
            token["name"] = lowered
            if token["type"] == _H5_TOKEN_TYPES["StartTag"]:
                raw = token["data"]
                data = dict(raw)
                if len(raw) > len(data):
                    data.update(raw[::-1])  # duplicated attribute: the first one wins
                token["data"] = data
            if token["type"] == _H5_TOKEN_TYPES["EndTag"]:
                if token["data"]:
                    self.tokenQueue.append(
                        {"type": _H5_TOKEN_TYPES["ParseError"], "data": "attributes-in-end-tag"}
                    )
                if token["selfClosing"]:
                    self.tokenQueue.append(
                        {"type": _H5_TOKEN_TYPES["ParseError"], "data": "self-closing-flag-on-end-tag"}
                    )
        self.tokenQueue.append(token)
        self.state = self.dataState


class _Html5libParser(html5lib.HTMLParser):
    """html5lib's parser without its input stream's scan for invalid code points.

    Why: that scan (a regular expression over every chunk of input) only counts "invalid-codepoint" parse
    errors; the tokenizer hands them to the parser, which appends them to ``errors`` and builds the same
    tree. Readwell never reads parse errors, and the scan was about a tenth of html5lib's parsing time.
    ``reset`` runs right after ``_parse`` makes the tokenizer (and its stream), before any input is read.
    """

    def _parse(
        self,
        stream: Any,
        innerHTML: bool = False,
        container: str = "div",
        scripting: bool = False,
        **kwargs: Any,
    ) -> None:
        """html5lib's ``_parse`` with ``_Html5libTokenizer`` (same steps: tokenizer, reset, main loop, and
        once more after a ``<meta charset>`` that changes a bytes input's encoding)."""
        self.innerHTMLMode = innerHTML
        self.container = container
        self.scripting = scripting
        self.tokenizer = _Html5libTokenizer(stream, parser=self, **kwargs)
        self.reset()
        try:
            self.mainLoop()
        except _H5ReparseException:
            self.reset()
            self.mainLoop()

    def reset(self) -> None:
        super().reset()
        stream = getattr(getattr(self, "tokenizer", None), "stream", None)
        if stream is not None:
            stream.reportCharacterErrors = None


def _html5lib_parse(data: Any, **kwargs: Any) -> Any:
    """``html5lib.parse(data, treebuilder="etree", **kwargs)`` through ``_Html5libParser``.

    HTML elements come without the XHTML namespace in their etree tags (``div``, not ``{…xhtml}div``):
    html5lib then skips formatting one namespaced name per element, decides by the same (namespace, name)
    pairs, and ``_from_etree`` reads a plain tag as HTML. SVG and MathML tags keep their namespaces."""
    parser = _Html5libParser(tree=html5lib.getTreeBuilder("etree"), namespaceHTMLElements=False)
    root = parser.parse(data, **kwargs)
    _let_go_of_builder_tree(parser.tree)
    return root


def _let_go_of_builder_tree(tree: Any) -> None:
    """Free html5lib's own node tree now, by reference counting, instead of at the next garbage collection.

    Why: html5lib's etree builder keeps a Python node per element and comment around the ElementTree element
    it returns (``parent`` one way, ``_childNodes`` the other), and the parser, its tokenizer and its phases
    refer to one another, so after a parse the whole node tree (~5,000 objects on a median page) was cyclic
    garbage that the next collection walked and freed: one collection per extraction, 1.4-4.4 ms of a warm
    Node engine call (Pyodide) and 0.6-2.9 ms in CPython. With the parent links cut and the builder's
    references dropped, nothing holds the nodes; what stays for the collector is the parser itself (~130
    objects). A node html5lib put in place with ``insertBefore`` (foster parenting) is not in its parent's
    ``_childNodes`` and keeps its link: it is left to the collector, as before. The ElementTree elements
    (``root``) do not refer to html5lib's nodes."""
    stack = [tree.document]
    while stack:
        node = stack.pop()
        node.parent = None
        stack += node._childNodes
    tree.document = tree.headPointer = tree.formPointer = None
    tree.openElements = []
    tree.activeFormattingElements = []


PARSERS = ("auto", "fast", "html5lib")


def parser_choice(parser: str | None = None) -> str:
    """The parser asked for: ``parser``, else the ``READWELL_PARSER`` environment variable, else "auto".

    One reading of the setting for the tree's parse and bleach's re-parse (sanitize.bleach_final), so
    "html5lib" keeps lexbor out of both (the pure-Python path, as on Pyodide)."""
    return parser or os.environ.get("READWELL_PARSER") or "auto"


@functools.cache
def fast_parser() -> Any:
    """lexbor's ``parse_html_fast`` when ``readwell[fast]`` is installed (CPython), else None (Pyodide).

    Cached, absence included: the import is tried once per process."""
    try:
        from .parse_fast import parse_html_fast
    except ImportError:
        return None
    return parse_html_fast


def parse_html(
    data: str | bytes, declared_encoding: str | None = None, parser: str | None = None
) -> Document:
    """Parse HTML text or bytes into a Document. Never raises on malformed markup.

    ``parser``: "fast" (lexbor, ``readwell[fast]``; same tree, see parse_fast.py), "html5lib", or "auto"
    (default, also from the ``READWELL_PARSER`` environment variable): fast when installed."""
    choice = parser_choice(parser)
    if choice not in PARSERS:
        raise InputError(f"unknown parser {choice!r}: use one of {', '.join(PARSERS)}")
    with gc_pause.paused():  # the tree is allocated here (see gc_pause)
        return _parse_html(data, declared_encoding, choice)


def _parse_html(data: str | bytes, declared_encoding: str | None, choice: str) -> Document:
    if choice != "html5lib":
        fast = fast_parser()
        if fast is not None:
            return fast(data, declared_encoding)
        if choice == "fast":
            raise InputError("the fast parser is not installed: pip install 'readwell[fast]'")
    if isinstance(data, bytes | bytearray):
        data = bytes(data)
        # No chardet guess (html5lib uses chardet whenever it happens to be installed): the result must not
        # depend on unrelated packages, and the documented fallback is windows-1252.
        kwargs: dict[str, Any] = {"useChardet": False}
        transport = utf8_evidence(data, declared_encoding)
        if transport:
            kwargs["transport_encoding"] = transport
        try:
            data.decode("utf-8")
            kwargs["likely_encoding"] = "utf-8"
        except UnicodeDecodeError:
            pass
        kwargs["default_encoding"] = "windows-1252"
        data = limit_markup(data)
        try:
            etree_root = _html5lib_parse(deadline.checked_input(data), **kwargs)
        except LookupError:  # unknown declared encoding: let html5lib sniff
            kwargs.pop("transport_encoding", None)
            etree_root = _html5lib_parse(deadline.checked_input(data), **kwargs)
    else:
        data = replace_surrogates(data)
        etree_root = _html5lib_parse(deadline.checked_input(limit_markup(data)))
        return _from_etree(etree_root, may_have_internal_attrs(data))
    return _from_etree(etree_root)  # decoded inside html5lib: every element is checked


def _split(tag: str) -> tuple[str, str]:
    if tag.startswith("{"):
        uri, _, local = tag[1:].partition("}")
        return NS_MAP.get(uri, HTML_NS), local
    return HTML_NS, tag


def _attrs(attrib: dict[str, str], internal: bool = True) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in attrib.items():
        if isinstance(k, tuple):  # html5lib may use (ns, name) tuples
            k = k[1]
        if k.startswith("{"):
            uri, _, local = k[1:].partition("}")
            prefix = ATTR_NS.get(uri)
            k = f"{prefix}:{local}" if prefix else local
        out[k] = v
    return drop_internal_attrs(out) if internal else out


def _from_etree(html_el: Any, internal: bool = True) -> Document:
    """Convert html5lib's etree (text/tail model) into our tree, iteratively, with the depth cap.

    Work items are popped in document order: an element is attached when popped, then its text, then its
    children each followed by its tail. Below MAX_DEPTH only block elements are created, attached flat to
    the ancestor at the cap (see ``dom.CAP_BLOCKS``): the text survives, the pathological nesting does not.

    Every page on the pure-Python path is converted here, so this is written like ``parse_fast._build``:
    nodes are made directly (the fields ``Element``/``Text`` construction sets) and numbered as they are
    attached, which is document order (``number_nodes``' numbering) unless the depth cap moved something:
    then ``number_nodes`` numbers the finished tree. Text items are plain strings, markers flagged strings.
    ``internal`` False (``dom.may_have_internal_attrs``): no element can carry ``data-readwell-*``.

    Each etree field is read once (an element item carries the tag its parent's loop read): ``tag``,
    ``text`` and ``tail`` are C getters, which Pyodide calls through its call trampoline at 5-6x their
    CPython cost, and ``list.append``/``+=`` take the place of bound ``append``/``extend``/``reverse``
    for the same reason (see ``Element.iter``).
    """
    doc_root = Element("#document")
    new_element = Element.__new__
    new_text = Text.__new__
    n = 1
    doc_root.nid = n
    capped = False
    names: dict[str, tuple[str, str]] = {}  # etree tag -> (namespace, our tag), per document
    work: list[tuple[Any, ...]] = [(html_el, doc_root, 0, None, html_el.tag)]
    pop = work.pop
    dl = deadline.current()
    while work:
        item = pop()
        if dl is not None:
            dl.tick()
        src = item[0]
        if type(src) is str:  # text (a tail or a text), or a boundary marker's mark
            parent = item[1]
            kids = parent.children
            if item[2]:
                marker = Element(BOUNDARY_TAG, {"data-mark": src})
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
        _, parent, depth, cap, etag = item
        name = names.get(etag)
        if name is None:
            ns, tag = _split(etag)
            name = names[etag] = (ns, tag.lower() if ns == HTML_NS else tag)
        ns, tag = name
        attrib = src.attrib
        if depth < MAX_DEPTH:
            target = new_element(Element)
            target.parent = parent
            n += 1
            target.nid = n
            target.tag = tag
            target.ns = ns
            target.attrs = _attrs(attrib, internal) if attrib else {}
            target.children = []
            target.layout = None
            parent.children.append(target)
        else:
            capped = True
            cap = cap if cap is not None else parent
            if tag in CAP_BLOCKS:
                target = Element(tag, _attrs(attrib, internal), ns)
                cap.append(target)
            else:
                target = parent
        pending: list[tuple[Any, ...]] = []
        text = src.text
        if text:
            pending.append((text, target, False))
        for child in src:
            ctag = child.tag
            if ctag.__class__ is str:
                if ctag != "<!DOCTYPE>":
                    pending.append((child, target, depth + 1, cap, ctag))
            else:
                mark = (child.text or "").strip()
                if mark in BOUNDARY_MARKS:
                    pending.append((mark, target, True))
            tail = child.tail
            if tail:
                pending.append((tail, target, False))
        if pending:
            work += pending[::-1]
    if capped:
        n = number_nodes(doc_root)
    return Document(doc_root, n)


def sniff_declared_encoding(content_type: str | None) -> str | None:
    if not content_type:
        return None
    m = _CHARSET_RE.search(content_type)
    return m.group(1) if m else None


def read_file(path: str | os.PathLike[str]) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise InputError(f"cannot read {os.fspath(path)}: {exc.strerror or exc}") from None
