"""Sanitize: the article subtree is rebuilt from an allow-list, then serialized, then bleach cleans it again.

Safe construction first: only allow-listed HTML-namespace elements and attributes survive, every
URL-bearing attribute is checked after decoding (entities are decoded by the parser; whitespace, control
characters and case by ``urls.scheme_of``), dangerous elements are removed with their content (logged),
control characters are removed from text and attribute values (``render_html.strip_controls``),
unknown ones are unwrapped (logged). Foreign content (SVG, MathML) never reaches the output, so a browser's
re-parse cannot create an element this pass did not see. bleach runs last on the serialized HTML with the
same allow-lists: the final defence, never the only one.

MathML is the one foreign content kept (a formula without a TeX source has no other faithful form): a
``<math>`` keeps only presentation-MathML elements (``MATHML_TAGS``) with a few layout attributes
(``MATHML_ATTRS``, no ``href``, no ``xlink:*``); token elements (``mi mn mo ms mtext``) keep text only;
annotations, ``mglyph``/``malignmark`` and every element that is not MathML are dropped or unwrapped. A
browser re-parsing the output therefore meets no HTML tag inside foreign content and no element in a text
integration point, which is where mutation XSS lives (``tests/security`` re-parses every output).
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import bleach
from bleach._vendor.html5lib import _utils as html5lib_utils  # type: ignore[import-not-found]
from bleach._vendor.html5lib import constants as html5lib_constants
from bleach._vendor.html5lib.treewalkers import base as walker_base  # type: ignore[import-not-found]
from bleach._vendor.html5lib.treewalkers import etree as walker_etree

from .context import ALLOWLIST, STRUCTURE, Context
from .dom import HTML_NS, MATH_NS, Element, Text
from .measure import VIDEO_MARK
from .parse import parser_choice
from .render_html import strip_controls
from .textstats import HEADINGS, text_units
from .thresholds import PROSE_MIN_UNITS
from .urls import is_safe_url, split_srcset

ALLOWED_TAGS = frozenset(
    """a abbr b bdi bdo blockquote br caption cite code col colgroup dd del details dfn div dl dt em
    figcaption figure h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p picture pre q s samp small source
    span strong sub summary sup table tbody td tfoot th thead time tr u ul var wbr""".split()
)
# Presentation MathML kept inside <math> (MathML Core plus the common MathML 3 layout elements). Not here, so
# unwrapped: maction (interactive), semantics (a wrapper), unknown elements. Dropped: MATHML_DROP.
MATHML_TAGS = frozenset(
    """math mi mn mo ms mtext mspace mrow mfrac msqrt mroot mstyle merror mpadded mphantom mfenced menclose
    msub msup msubsup munder mover munderover mmultiscripts mprescripts none
    mtable mtr mtd mlabeledtr""".split()
)
MATHML_TOKENS = frozenset({"mi", "mn", "mo", "ms", "mtext"})  # text integration points: text only
# Never shown (annotations; annotation-xml is an HTML integration point) or loading resources (mglyph src).
MATHML_DROP = frozenset({"annotation", "annotation-xml", "mglyph", "malignmark"})
MATHML_ATTRS = frozenset(
    """display mathvariant displaystyle scriptlevel stretchy fence separator separators accent accentunder
    linethickness lspace rspace notation columnalign rowalign columnspan rowspan width height depth form
    largeop movablelimits symmetric minsize maxsize open close""".split()
)
_MATHML_VALUE = re.compile(r"^[\w\s.%+-]{0,40}$")
# Removed with everything inside: executable, resource-loading, interactive or never-rendered content.
DROP_TAGS = frozenset(
    """script style iframe object embed base meta form link frame frameset noscript template applet input
    button select textarea option optgroup svg canvas dialog head title noembed noframes xmp plaintext
    param portal fencedframe audio video track map area""".split()
)
GLOBAL_ATTRS = frozenset(
    {
        "lang",
        "dir",
        "title",
        "data-callout",
        "data-footnote",
        "data-footnote-ref",
        "data-footnotes",
        "data-tex",
        "data-display",
        "data-embed",
    }
)
TAG_ATTRS: dict[str, frozenset[str]] = {
    "a": frozenset({"href"}),
    "img": frozenset({"src", "srcset", "alt", "width", "height"}),
    "source": frozenset({"srcset", "type", "media"}),
    "td": frozenset({"colspan", "rowspan"}),
    "th": frozenset({"colspan", "rowspan", "scope"}),
    "ol": frozenset({"start", "reversed", "type"}),
    "li": frozenset({"value"}),
    "code": frozenset({"class"}),
    "blockquote": frozenset({"cite"}),
    "q": frozenset({"cite"}),
    "del": frozenset({"cite", "datetime"}),
    "ins": frozenset({"cite", "datetime"}),
    "time": frozenset({"datetime"}),
    "col": frozenset({"span"}),
    "colgroup": frozenset({"span"}),
    "details": frozenset({"open"}),
}
URL_ATTRS = frozenset(
    {
        "href",
        "src",
        "cite",
        "poster",
        "action",
        "formaction",
        "xlink:href",
        "data",
        "background",
        "ping",
        "longdesc",
        "manifest",
        "codebase",
        "usemap",
        "lowsrc",
        "dynsrc",
        "icon",
    }
)
_LANG_CLASS = re.compile(r"^language-[a-z0-9+#.-]{1,30}$")
_NUMERIC = re.compile(r"^\d{1,5}%?$")
_TOKEN = re.compile(r"^[\w\s.,:;#+()/'-]{0,200}$")
# A srcset descriptor is a width, a density or a height; anything else (``javascript:x`` after a URL split off
# by a control character) makes a browser drop the candidate, and makes us drop the attribute.
_SRCSET_DESCRIPTOR = re.compile(r"^(\d+w|\d*\.?\d+(?:[eE][+-]?\d+)?x|\d+h)$")
# Our own data-* attributes are read by the Markdown renderer; a page can write them too, so their values are
# held to what our stages produce.
_DATA_VALUES = {
    "data-callout": re.compile(r"^[A-Za-z]{1,20}$"),
    "data-footnote": re.compile(r"^[\w-]{1,40}$"),
    "data-footnote-ref": re.compile(r"^[\w-]{1,40}$"),
    "data-display": re.compile(r"^(block|inline)$"),
    "data-footnotes": re.compile(r"^1$"),
    "data-embed": re.compile(r"^video$"),  # a video player's link paragraph (normalize_structures)
}


MAX_TEXT_ATTR = 1000


def clean_attr(tag: str, name: str, value: str) -> str | None:
    """The value to keep for ``name`` on ``tag``, or None to drop it. Shared with the bleach pass."""
    if tag in MATHML_TAGS and name in MATHML_ATTRS:
        return value.strip() if _MATHML_VALUE.match(value) else None
    if name not in GLOBAL_ATTRS and name not in TAG_ATTRS.get(tag, ()):
        return None
    if name.startswith("on") or name in ("style", "srcdoc"):
        return None
    if name in URL_ATTRS:
        if not is_safe_url(value, allow_data_image=(tag == "img" and name == "src")):
            return None
        return value.strip()
    if name == "srcset":
        items = split_srcset(value)
        if not items or not all(is_safe_url(u, allow_data_image=True) for u, _ in items):
            return None
        if not all(_SRCSET_DESCRIPTOR.match(d) for _, desc in items for d in desc.split()):
            return None
        return value.strip()
    if name in _DATA_VALUES:
        return value if _DATA_VALUES[name].match(value) else None
    if name == "class":
        kept = [c for c in value.split() if _LANG_CLASS.match(c)]
        return " ".join(kept) or None
    if name in ("width", "height", "colspan", "rowspan", "start", "value", "span"):
        return value.strip() if _NUMERIC.match(value.strip()) else None
    if name in ("dir",):
        return value.lower() if value.lower() in ("ltr", "rtl", "auto") else None
    if name == "lang":
        return value if re.match(r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$", value) else None
    if name in ("reversed", "open"):
        return ""
    if name in ("title", "alt") and len(value) > MAX_TEXT_ATTR:
        return value[:MAX_TEXT_ATTR].rstrip() + "…"  # a tooltip or alt text, not a payload carrier
    return value


def sanitize_tree(ctx: Context, root: Element) -> Element:
    """Clean ``root`` in place (elements through the log, attributes silently) and return it."""
    ctx.stage = "sanitize"
    # Collect first, then act: removal and unwrapping change what a walk would see.
    drops: list[Element] = []
    unwraps: list[Element] = []
    maths: list[Element] = []
    stack = [c for c in root.children if isinstance(c, Element)]
    while stack:
        el = stack.pop()
        if el.ns == MATH_NS and el.tag == "math":
            _clean_math(el, drops, unwraps)  # MathML without a TeX source: kept as MathML
            maths.append(el)
            continue
        if el.ns != HTML_NS or el.tag in DROP_TAGS:
            if el.tag == "form" and el.ns == HTML_NS and _holds_prose(el):
                unwraps.append(el)  # a page-wide <form> wraps the article: its controls go one by one
                stack += (c for c in el.children if isinstance(c, Element))
            else:
                drops.append(el)
            continue
        if el.tag not in ALLOWED_TAGS:
            unwraps.append(el)
        stack += (c for c in el.children if isinstance(c, Element))
    for el in drops:
        ctx.remove(
            el,
            ALLOWLIST,
            el.tag if el.ns == HTML_NS else f"{el.ns}:{el.tag}",
            "not allowed in output (executable, loads resources, interactive or foreign content)",
        )
    for el in reversed(unwraps):
        if el.parent is not None:
            ctx.unwrap_later(el, ALLOWLIST, el.tag, "element not on the output allow-list; content kept")
    ctx.flush_unwraps()  # one splice per parent (thousands of custom elements under one parent)
    for el in maths:
        if el.parent is not None and not el.text().strip():
            ctx.remove(el, ALLOWLIST, "math", "MathML with no text left after cleaning")
    shaped: list[Element] = []  # for parse_stable, collected on this walk
    for el in root.iter():
        if el.tag in _SHAPED:
            shaped.append(el)
        for c in el.children:  # (every text node of the tree, as the text of its parent)
            if c.__class__ is Text:
                c.data = strip_controls(c.data)
        if el is root or not el.attrs:
            continue  # (the root's attributes are cleaned below; no attributes, nothing to clean)
        new: dict[str, str] = {}
        for k, v in el.attrs.items():
            if k.lower() == "data-embed":
                continue  # only our own mark becomes data-embed (below): a page cannot dress text as a video
            cv = clean_attr(el.tag, k.lower(), strip_controls(v))
            if cv is not None:
                new[k.lower()] = cv
        if el.tag == "p" and el.attrs.get(VIDEO_MARK) == "video":
            new["data-embed"] = "video"
        el.attrs = new
    if root.tag not in ALLOWED_TAGS:
        root.tag = "div"
    root.attrs = {
        k: v for k, v in root.attrs.items() if k in ("lang", "dir") and clean_attr("div", k, v) is not None
    }
    parse_stable(ctx, root, shaped)
    ctx.stage = ""
    return root


# The allowed tags whose start tag closes an open <p> (html5lib's and the standard's in-body rules, standards
# mode: the paragraph closers, headings, pre, list items, table, hr).
P_CLOSERS = frozenset(
    "blockquote details div dl figcaption figure ol p summary ul h1 h2 h3 h4 h5 h6 pre li dd dt table "
    "hr".split()
)
# A table part and the parents the table rules keep it in (anywhere else the parser drops its tag).
TABLE_PARENTS: dict[str, frozenset[str]] = {
    "caption": frozenset({"table"}),
    "colgroup": frozenset({"table"}),
    "thead": frozenset({"table"}),
    "tbody": frozenset({"table"}),
    "tfoot": frozenset({"table"}),
    "tr": frozenset({"thead", "tbody", "tfoot", "table"}),  # (in a table: the parser adds its tbody)
    "td": frozenset({"tr"}),
    "th": frozenset({"tr"}),
    "col": frozenset({"colgroup"}),
}
# The tags parse_stable looks at: the rest of the tree passes untouched
_SHAPED = P_CLOSERS | TABLE_PARENTS.keys() | {"colgroup", "a"}
# What the table rules keep inside each table element (anything else, and text, is moved out before the table)
TABLE_CHILDREN: dict[str, frozenset[str]] = {
    "table": frozenset({"caption", "colgroup", "thead", "tbody", "tfoot", "tr"}),
    "thead": frozenset({"tr"}),
    "tbody": frozenset({"tr"}),
    "tfoot": frozenset({"tr"}),
    "tr": frozenset({"td", "th"}),
    "colgroup": frozenset({"col"}),
}


def parse_stable(ctx: Context, root: Element, shaped: list[Element] | None = None) -> None:
    """Reshape ``root`` in place so that an HTML parser rebuilds it from our serialization.

    Why: a browser showing ``content_html`` re-parses it, and the parsing algorithm restructures some shapes
    our stages and the page can leave: a block inside a ``<p>`` closes the paragraph (the block moves out and
    an empty ``<p></p>`` follows it), a table cell or row outside its table loses its tag, content inside a
    table but outside its cells is moved out before the table. So a ``<p>`` holding a block becomes a
    ``<div>``, a stray table part (a root that was a cell or a row, whose own tag is not serialized,
    included) becomes a ``<div>``: the text and Markdown renderers read both as blocks of their children.
    A heading right inside a heading (which would close it) becomes a ``<span>`` (a heading's text is read
    inline), a link inside a link (an ``<a>`` start tag closes the open one) a ``<span>``, and the
    newlines that start a ``<pre>`` go (the parser drops the first; both renderers
    strip them).
    Content in a table outside its cells (an undecided table inside a layout table, whose rows and cells
    normalize_output's layout step made blocks) is removed, logged: the text and Markdown tables read only
    cells, so it was never in them, and a browser showed it out of place. ``tests/test_parse_stable.py``
    re-parses every fixture's output to check this. ``shaped``: the elements of ``root`` whose tag is in
    ``_SHAPED``, in document order (``sanitize_tree`` collects them on its own walk)."""
    if root.tag in TABLE_PARENTS:
        root.tag = "div"  # a wrapper: its children are serialized without it
    if shaped is None:
        shaped = [e for e in root.iter() if e.tag in _SHAPED]
    for el in shaped:  # in document order: a parent is settled before its children
        tag = el.tag
        if tag == "a":
            kids = el.children  # (most links hold one text)
            if len(kids) > 1 or (kids and kids[0].__class__ is Element):
                for inner in el.iter(include_self=False):
                    if inner.tag == "a":  # an <a> start tag closes the open one: the inner link is its text
                        inner.tag = "span"
                        inner.attrs = {k: v for k, v in inner.attrs.items() if k in GLOBAL_ATTRS}
            continue
        if el is not root:
            parent = el.parent
            if tag in HEADINGS and parent is not None and parent.tag in HEADINGS:
                el.tag = tag = "span"  # a heading start tag closes the heading it is right inside
            elif tag == "pre" and el.children and isinstance(el.children[0], Text):
                first = el.children[0]  # (a newline right after <pre> is dropped; renderers strip them)
                first.data = first.data.lstrip("\n")
            if tag in P_CLOSERS:  # the nearest block around it (through inline elements) must not be a <p>
                up = parent
                while up is not None and up is not root and up.tag not in P_CLOSERS:
                    up = up.parent
                if up is not None and up is not root and up.tag == "p":
                    up.tag = "div"
            parents = TABLE_PARENTS.get(tag)
            if parents is not None and (parent is None or parent.tag not in parents):
                el.tag = tag = "div"
                if el.attrs:
                    el.attrs = {k: v for k, v in el.attrs.items() if k in GLOBAL_ATTRS}
        allowed = TABLE_CHILDREN.get(tag)
        if allowed is not None:
            for c in [
                c
                for c in el.children
                if (
                    c.tag not in allowed if isinstance(c, Element) else isinstance(c, Text) and c.data.strip()
                )
            ]:
                ctx.remove(c, STRUCTURE, "outside-cells", "inside a table but outside its cells")


def _holds_prose(form: Element) -> bool:
    """A paragraph of real prose inside: the form wraps content (form-based CMSs put the whole page in one
    ``<form>``), not a comment or search form, whose paragraphs are short labels and notes."""
    return any(
        e.tag == "p" and text_units(e.text()) >= PROSE_MIN_UNITS for e in form.iter(include_self=False)
    )


def _clean_math(math: Element, drops: list[Element], unwraps: list[Element]) -> None:
    """Sort a <math> subtree into kept MathML, dropped and unwrapped elements (see the module docstring)."""
    stack: list[tuple[Element, bool]] = [(c, False) for c in math.children if isinstance(c, Element)]
    while stack:
        el, in_token = stack.pop()
        if (el.ns == MATH_NS and el.tag in MATHML_DROP) or (el.ns == HTML_NS and el.tag in DROP_TAGS):
            drops.append(el)
            continue
        if el.ns not in (MATH_NS, HTML_NS):
            drops.append(el)  # SVG inside MathML
            continue
        if in_token or el.ns != MATH_NS or el.tag not in MATHML_TAGS or el.tag == "math":
            unwraps.append(el)  # its text stays; the element would re-parse differently or is not MathML
        token = in_token or (el.ns == MATH_NS and el.tag in MATHML_TOKENS)
        stack += ((c, token) for c in el.children if isinstance(c, Element))


def _bleach_attr(tag: str, name: str, value: str) -> bool:
    return clean_attr(tag, name, value) is not None


_CLEANER = bleach.sanitizer.Cleaner(
    tags=ALLOWED_TAGS | MATHML_TAGS,
    attributes=_bleach_attr,
    protocols={"http", "https", "mailto", "data"},
    strip=True,
    strip_comments=True,
)
_StockWalker = bleach.html5lib_shim.getTreeWalker("etree")  # type: ignore[attr-defined]


class _LinearWalker(_StockWalker):  # type: ignore[misc, valid-type]
    """bleach's etree tree walker with a linear ``getParentNode``.

    Why: the stock one finds an element's position among its siblings with ``list(parent).index(...)`` (and
    asserts with ``count``) every time the walk climbs out of it, so an element with n children costs O(n²):
    an article of 60,000 paragraphs (a 20 MB page) spent minutes in bleach. Here each parent's child positions
    are computed once per walk. Node tuples are (element, index, ancestors, flag), as in the stock walker; the
    result is identical (``tests/test_security.py`` compares both walkers).
    """

    def getParentNode(self, node):  # noqa: N802 (html5lib API)
        if isinstance(node, tuple) and node[3] != "text" and len(node[2]) > 1:
            _, _, parents, _ = node
            parent = parents.pop()
            grand = parents[-1]
            cache = self.__dict__.setdefault("_positions", {})
            positions = cache.get(id(grand))
            if positions is None:
                positions = cache[id(grand)] = {id(c): i for i, c in enumerate(grand)}
            return parent, positions[id(parent)], parents, None
        return super().getParentNode(node)


_TREE_ROOTS = ("DOCUMENT_ROOT", "DOCUMENT_FRAGMENT")
_COMMENT_TAG = html5lib_utils.default_etree.Comment(
    "x"
).tag  # what the etree tree builder tags a comment with
_SPACE = walker_base.spaceCharacters  # html5lib's: the text tokens are split where its walker splits them
_HTML = html5lib_constants.namespaces["html"]
_VOID = html5lib_constants.voidElements


def _text_tokens(data: str) -> list[dict[str, str]]:
    """``TreeWalker.text``: leading white space, the text, trailing white space, as separate tokens."""
    middle = data.lstrip(_SPACE)
    out = []
    left = data[: len(data) - len(middle)]
    if left:
        out.append({"type": "SpaceCharacters", "data": left})
    core = middle.rstrip(_SPACE)
    if core:
        out.append({"type": "Characters", "data": core})
    right = middle[len(core) :]
    if right:
        out.append({"type": "SpaceCharacters", "data": right})
    return out


def _name(qualified: str) -> tuple[str | None, str]:
    """(namespace, local name) of an etree tag or attribute name, as the stock walker's ``tag_regexp``
    splits it: only a name starting with "{" carries a namespace."""
    if qualified[:1] == "{":
        m = walker_etree.tag_regexp.match(qualified)
        if m:
            return m.group(1), m.group(2)
    return None, qualified


class _FastWalker:
    """bleach's etree tree walker as one loop: the same tokens, in the same order, as the stock walker.

    Why: the stock walker asks four methods per node (details, first child, next sibling, parent), builds an
    element's attribute dict twice (at its start and at its end tag) and a tuple per step: a fifth of
    bleach's time on a median article. Here each element is read once, with a stack of child iterators
    (no recursion, linear in siblings like ``_LinearWalker``). bleach's sanitizer filter and serializer
    still see every token; ``tests/security/test_static.py`` compares the token streams of both walkers
    and bleach's output. A tree that is not a document or fragment goes to ``_LinearWalker``."""

    def __init__(self, tree: Any) -> None:
        self.tree = tree

    def __iter__(self) -> Any:
        root = self.tree if hasattr(self.tree, "tag") else self.tree.getroot()
        if root.tag not in _TREE_ROOTS:
            yield from _LinearWalker(self.tree)
            return
        if root.text:
            yield from _text_tokens(root.text)
        stack: list[tuple[Any, dict[str, Any] | None, Any]] = [(iter(root), None, None)]
        while stack:
            kids, end, owner = stack[-1]
            el = next(kids, None)
            if el is None:  # owner's children done: its end tag, then the text after it
                stack.pop()
                if end is not None:
                    yield end
                if owner is not None and owner.tail:
                    yield from _text_tokens(owner.tail)
                continue
            tag = el.tag
            if tag == _COMMENT_TAG:
                yield {"type": "Comment", "data": el.text}
            elif tag == "<!DOCTYPE>":
                yield {
                    "type": "Doctype",
                    "name": el.text,
                    "publicId": el.get("publicId"),
                    "systemId": el.get("systemId"),
                }
            else:
                namespace, name = _name(tag)
                attrs = {_name(k): v for k, v in el.attrib.items()}
                if (not namespace or namespace == _HTML) and name in _VOID:
                    yield {"type": "EmptyTag", "name": name, "namespace": namespace, "data": attrs}
                    if len(el) or el.text:
                        yield {"type": "SerializeError", "data": "Void element has children"}
                else:
                    yield {"type": "StartTag", "name": name, "namespace": namespace, "data": attrs}
                    if el.text:
                        yield from _text_tokens(el.text)
                    stack.append((iter(el), {"type": "EndTag", "name": name, "namespace": namespace}, el))
                    continue
            if el.tail:
                yield from _text_tokens(el.tail)


_CLEANER.walker = _FastWalker  # type: ignore[assignment]

# bleach's classes as Any: the subclasses below use their private attributes (``_buffer``, ``_inner_stream``)
_StockMemory: Any = bleach.html5lib_shim.InputStreamWithMemory
_StockParser: Any = bleach.html5lib_shim.BleachHTMLParser


class _PieceMemory(_StockMemory):
    """bleach's input stream history with runs of text kept as strings, not one list item per character.

    Why: the stock stream extends its history with ``list(chars)`` for every run the tokenizer reads in one
    go (text between tags, attribute values), so every character of the article became a list item that the
    next ``<`` threw away (a third of bleach's time on a 20 MB article). The history is the same string:
    ``get_tag`` joins it, ``unget`` takes its last character off, ``start_tag`` starts it again."""

    def charsUntil(self, characters, opposite=False):  # noqa: N802 (html5lib API)
        chars = self._inner_stream.charsUntil(characters, opposite=opposite)
        if chars:
            self._buffer.append(chars)
        return chars

    def unget(self, char):
        buf = self._buffer
        if buf:
            last = buf.pop()
            if len(last) > 1:
                buf.append(last[:-1])
        return self._inner_stream.unget(char)


# Characters that are not printable (``str.isprintable``) yet never an invalid code point for html5lib:
# whitespace the serializer writes, no-break and other spaces, zero-width and directional marks, the soft
# hyphen, the byte order mark. A test checks every code point against html5lib's own expression.
_VALID_UNPRINTABLE = dict.fromkeys(
    map(
        ord,
        "\t\n\r\x0c\xa0\xad\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u200b"
        "\u200c\u200d\u200e\u200f\u2028\u2029\u202f\u205f\u2060\u3000\ufeff",
    )
)


# The white space ``str.split`` drops that html5lib still reports as invalid: VT, FS to US and NEL (the other
# white space, from TAB to U+3000, is valid; a test checks every code point).
_INVALID_SPACE = re.compile("[\x0b\x1c-\x1f\x85]")


def no_invalid_codepoints(text: str) -> bool:
    """True when ``text`` holds none of the code points html5lib reports as "invalid-codepoint" (controls,
    surrogates, noncharacters): each of them is unprintable and none is among the characters dropped here,
    so what is left being printable proves there is none (C-speed, where html5lib's check is a regular
    expression of 40 ranges tried at every character).

    First without ``translate``: with a dict table it looks up every character of a non-ASCII text one by
    one (0.4 ms on a median article, a fifth of bleach's time). Most articles have no unprintable character
    but white space, so their words joined are printable; then only the invalid white space is left to look
    for, one search. Anything else unprintable (a soft hyphen, a zero-width space) takes the exact path."""
    if "".join(text.split()).isprintable():
        return _INVALID_SPACE.search(text) is None
    return text.translate(_VALID_UNPRINTABLE).isprintable()


class _Parser(_StockParser):
    """bleach's parser with ``_PieceMemory`` as its tokenizer's stream history, and without the scan for
    invalid code points on input proven to have none (``no_invalid_codepoints``): the scan only adds
    "invalid-codepoint" parse errors, and on such input it finds none, so the token stream bleach's
    tokenizer and sanitizer see is the same. ``reset`` runs right after ``_parse`` makes the tokenizer,
    before any input is read."""

    _proven_valid = False

    def _parse(self, stream, *args, **kwargs):
        self._proven_valid = isinstance(stream, str) and no_invalid_codepoints(stream)
        return super()._parse(stream, *args, **kwargs)

    def reset(self):
        super().reset()
        tokenizer: Any = getattr(self, "tokenizer", None)
        memory: Any = getattr(tokenizer, "stream", None)
        if type(memory) is _StockMemory and not memory._buffer:  # nothing read yet: same history
            memory = tokenizer.stream = _PieceMemory(memory._inner_stream)
        if self._proven_valid and isinstance(memory, _StockMemory):
            memory._inner_stream.reportCharacterErrors = None


_CLEANER.parser = _Parser(
    tags=_CLEANER.parser.tags,
    strip=_CLEANER.parser.strip,
    consume_entities=_CLEANER.parser.consume_entities,
    namespaceHTMLElements=False,
)


class _TokensParser:
    """The parser of a ``_TOKENS_CLEANER`` copy: its "tree" is a proven token stream (``bleach_proof``)."""

    def __init__(self, tokens: Callable[[str], Iterator[dict[str, Any]]]) -> None:
        self.tokens = tokens

    def parseFragment(self, html: str) -> Iterator[dict[str, Any]]:  # noqa: N802 (html5lib API)
        return self.tokens(html)


# bleach's Cleaner (its ``clean``, filter arguments and serializer) with a proven token stream for its
# re-parse: the same object but for the parser (one a call) and a walker that hands the stream over as it is
_TOKENS_CLEANER = copy.copy(_CLEANER)
_TOKENS_CLEANER.walker = iter  # type: ignore[assignment]


def _clean_tokens(html: str, tokens: Callable[[str], Iterator[dict[str, Any]]]) -> str:
    """bleach's output for ``html`` with ``tokens(html)`` as its re-parse's token stream."""
    cleaner = copy.copy(_TOKENS_CLEANER)
    cleaner.parser = _TokensParser(tokens)  # type: ignore[assignment]
    return str(cleaner.clean(html))


@functools.cache
def _proof_module() -> Any:
    """``bleach_proof`` (imported on first use: it reads this module's allow-list)."""
    from . import bleach_proof

    return bleach_proof


@functools.cache
def _lexbor_module() -> Any:
    """``bleach_fast`` when the fast extra is installed (CPython), else None; the import is tried once."""
    try:
        from . import bleach_fast
    except ImportError:
        return None
    return bleach_fast


def _lexbor_route() -> Any:
    """``bleach_fast`` unless it is not installed or the parser setting is "html5lib" (the pure-Python path,
    as on Pyodide: no lexbor anywhere), else None."""
    if parser_choice() == "html5lib":
        return None
    return _lexbor_module()


def bleach_final(html: str, events: Iterable[Any] | None = None) -> str:
    """The last line of defence over our own serializer's output.

    bleach re-parses ``html`` with its own html5lib, except where the token stream of html5lib's tree is
    proven without it (``bleach_proof``): from ``events``, our tree's walk as ``render_html.written`` gives
    it for ``html`` (every runtime), else from lexbor's parse of ``html`` (``bleach_fast``, the fast extra).
    bleach's filter and html5lib's serializer write the output on every route, the same string (tests
    compare them)."""
    proof = _proof_module()
    if not proof.may_prove(html):
        return str(_CLEANER.clean(html))
    if events is not None:
        try:
            return _clean_tokens(html, lambda text: proof.proven_tokens(text, events))
        except proof.Unproven:
            return str(_CLEANER.clean(html))
    fast = _lexbor_route()
    if fast is not None:
        try:
            return _clean_tokens(html, fast.fragment_tokens)
        except proof.Unproven:
            pass
    return str(_CLEANER.clean(html))
