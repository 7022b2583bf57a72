"""Readwell's own small document tree.

Why our own tree and not html5lib's etree or the browser DOM: the same stages must run on a tree built from
html5lib (CPython, Pyodide in Node) and on a snapshot of the live DOM (the extension), with optional layout
data and stable node ids that point back at live elements. A tiny tree with parent links is the common
denominator, and it is cheap to copy, so stages can mutate a private copy while the input stays untouched.

Depth is capped at build time (``MAX_DEPTH``): below it, block elements are attached flat to the ancestor at
the cap and other elements are dropped with their text kept. That keeps every recursive helper far from
Python's recursion limit on hostile 100,000-deep pages while paragraphs stay paragraphs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from . import deadline

HTML_NS = "html"
SVG_NS = "svg"
MATH_NS = "math"

MAX_DEPTH = 180

NON_TEXT = frozenset({"script", "style"})

# Below MAX_DEPTH, these still become elements (attached flat to the ancestor at the cap) so paragraphs under
# hundreds of unclosed inline tags stay paragraphs; other elements there are dropped, their text kept.
CAP_BLOCKS = frozenset(
    "p div li h1 h2 h3 h4 h5 h6 blockquote pre section article main table tr td th ul ol dl dd dt figure "
    "figcaption".split()
)

# Attributes with this prefix are Readwell's namespace. The pipeline keeps its own marks off the DOM (side
# tables on the Context), and the parsers drop these from input so a page can never pose as internal state.
INTERNAL_ATTR_PREFIX = "data-readwell-"


def drop_internal_attrs(attrs: dict[str, str]) -> dict[str, str]:
    """``attrs`` without ``data-readwell-*`` (every parse path calls this on every element, so the common
    answer, none, is found by one search of all names at once)."""
    if not attrs or INTERNAL_ATTR_PREFIX not in " ".join(attrs).lower():
        return attrs
    if not any(k.lower().startswith(INTERNAL_ATTR_PREFIX) for k in attrs):
        return attrs
    return {k: v for k, v in attrs.items() if not k.lower().startswith(INTERNAL_ATTR_PREFIX)}


def set_attr(el: Element, name: str, value: str) -> None:
    """Set one attribute of ``el`` by giving it a new dict (the name keeps its place, a new one goes last).

    Every attribute change the pipeline makes goes through here or ``drop_attr``: a run on the input
    document itself (``extract.run_pipeline`` without the copy) may hold dicts the caller still owns (a
    snapshot's elements keep the snapshot's own dicts, ``adapters.from_snapshot``), so no dict is changed
    in place."""
    el.attrs = {**el.attrs, name: value}


def drop_attr(el: Element, name: str) -> None:
    """``el`` without attribute ``name`` (a new dict, as ``set_attr`` says why); nothing when it has none."""
    if name in el.attrs:
        el.attrs = {k: v for k, v in el.attrs.items() if k != name}


# "-readwell-" in any ASCII case, the leading "-" a literal: the search skips from one "-" to the next (with
# re.I it would compare every character, ten times slower on a page)
_INTERNAL_IN_MARKUP = re.compile("-[rR][eE][aA][dD][wW][eE][lL][lL]-")


def may_have_internal_attrs(markup: str) -> bool:
    """False when no attribute of the page parsed from ``markup`` can be ``data-readwell-*``: the parsers
    then skip ``drop_internal_attrs`` on every element. Why it is safe: attribute names are the markup's
    characters as written (no character references; a NUL becomes U+FFFD), and no character but the ASCII
    letters lower-cases to a letter of the prefix, so a name with the prefix, in any case, is in the text
    as it is (this searches a part of the prefix). One search of the page instead of a join of the names of
    every element."""
    return _INTERNAL_IN_MARKUP.search(markup) is not None


VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


class Node:
    """Base of elements and text nodes."""

    __slots__ = ("parent", "nid")

    def __init__(self) -> None:
        self.parent: Element | None = None
        self.nid: int = -1

    def ancestors(self) -> Iterator[Element]:
        p = self.parent
        while p is not None:
            yield p
            p = p.parent

    def within(self, outer: Element) -> bool:
        """This node is ``outer`` or inside it."""
        return self is outer or any(a is outer for a in self.ancestors())

    def under_tag(self, tags: frozenset[str], top: Element) -> bool:
        """An element of ``tags`` holds this node, ``top`` or one below it: a text's words are a link's or a
        list item's rather than the block's own (the walk stops at ``top``)."""
        for a in self.ancestors():
            if a.tag in tags:
                return True
            if a is top:
                return False
        return False


class Text(Node):
    """A text node; ``data`` is already entity-decoded."""

    __slots__ = ("data",)

    def __init__(self, data: str) -> None:
        super().__init__()
        self.data = data

    def __repr__(self) -> str:
        return f"Text({self.data[:30]!r})"


class Element(Node):
    """An element: tag (lower case for HTML), namespace, attributes, children and optional layout.

    ``layout`` is filled only by the live-DOM adapter: ``{"x","y","w","h","display","visibility",
    "opacity","font_size","font_weight"}``; stages must work without it.
    """

    __slots__ = ("tag", "ns", "attrs", "children", "layout")

    def __init__(self, tag: str, attrs: dict[str, str] | None = None, ns: str = HTML_NS) -> None:
        super().__init__()
        self.tag = tag
        self.ns = ns
        self.attrs: dict[str, str] = attrs if attrs is not None else {}
        self.children: list[Node] = []
        self.layout: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"<{self.tag}{' #' + self.attrs['id'] if 'id' in self.attrs else ''} nid={self.nid}>"

    # --- structure -------------------------------------------------------------------------------------
    def append(self, node: Node) -> Node:
        if node.parent is not None:
            node.parent.children.remove(node)
        node.parent = self
        self.children.append(node)
        return node

    def insert(self, index: int, node: Node) -> None:
        if node.parent is not None:
            node.parent.children.remove(node)
        node.parent = self
        self.children.insert(index, node)

    def get(self, name: str, default: str = "") -> str:
        return self.attrs.get(name, default)

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()

    @property
    def id(self) -> str:
        return self.attrs.get("id", "")

    @property
    def element_children(self) -> list[Element]:
        return [c for c in self.children if isinstance(c, Element)]

    def iter(self, include_self: bool = True) -> Iterator[Element]:
        """Elements in document order (iterative: safe on deep trees); each one ticks the deadline, if any.

        Every stage walks the tree several times, so this is written for speed: ``Element`` has no
        subclasses, so a class identity test replaces ``isinstance``, no per-element generator is made, and
        child lists are pushed whole (a reversed slice, no per-element filtering comprehension): text nodes
        are skipped when popped. An only child is pushed alone, and only if it is an element (a paragraph
        of one text: no slice, no push and pop of its text). An element's children are read when the walk
        resumes after it, as before. Pushes are ``stack.append(x)`` and ``stack += xs``, not a bound
        ``append``/``extend``: the interpreter runs the first two without a C call of its own (a
        specialised instruction, a slot), while a bound method of one argument is a call through
        Pyodide's call trampoline, 3-5x its CPython cost (benchmarks/README.md, espeed); CPython 3.11 is
        faster with them too.
        """
        dl = deadline.current()
        if dl is not None:
            dl.tick()
        if include_self:
            yield self
        stack: list[Node] = self.children[::-1]
        pop = stack.pop
        while stack:
            el = pop()
            if el.__class__ is not Element:
                continue
            if dl is not None:
                dl.tick()
            yield el
            kids = el.children
            if kids:
                if len(kids) == 1:
                    if kids[0].__class__ is Element:
                        stack.append(kids[0])
                else:
                    stack += kids[::-1]

    def iter_nodes(self) -> Iterator[Node]:
        """All nodes (elements and text) in document order, self first."""
        stack: list[Node] = [self]
        dl = deadline.current()
        while stack:
            n = stack.pop()
            if dl is not None:
                dl.tick()
            yield n
            if isinstance(n, Element):
                stack += reversed(n.children)

    def find_all(self, tags: str | set[str] | frozenset[str]) -> list[Element]:
        want = {tags} if isinstance(tags, str) else tags
        return [e for e in self.iter(include_self=False) if e.tag in want]

    def find(self, tag: str) -> Element | None:
        for e in self.iter(include_self=False):
            if e.tag == tag:
                return e
        return None

    def depth(self) -> int:
        return sum(1 for _ in self.ancestors())

    def text(self) -> str:
        """Concatenated text of descendant text nodes, except inside ``<script>``/``<style>`` below self
        (their "text" is code: counting it would make an ad slot's script look like prose)."""
        kids = self.children
        if len(kids) == 1 and kids[0].__class__ is Text:  # (a paragraph of one text: that text)
            return kids[0].data
        out: list[str] = []
        stack: list[Node] = [self]
        while stack:
            n = stack.pop()
            if isinstance(n, Text):
                out.append(n.data)
            elif isinstance(n, Element) and (n is self or n.tag not in NON_TEXT):
                stack += reversed(n.children)
        return "".join(out)

    def shows_text(self) -> bool:
        """``bool(normalize_space(self.text()))``: a text node below (outside ``<script>``/``<style>`` below
        self, as ``text``) holds a character that is not white space. Found without joining the text: the
        walk stops at the first such node (asked of every block of an item or a list, where the text is
        read only when it is there)."""
        stack: list[Node] = [self]
        while stack:
            n = stack.pop()
            if n.__class__ is Text:
                if n.data.strip():
                    return True
            elif n is self or n.tag not in NON_TEXT:  # type: ignore[attr-defined]
                stack += n.children  # type: ignore[attr-defined]
        return False

    def text_start(self, limit: int) -> str:
        """``normalize_space(self.text())[:limit]``, reading only as much text as that needs.

        Why: the removal log keeps the first 80 characters of every removed subtree, and the subtrees
        outside the content root are most of the page. Normalizing a prefix of the text gives a prefix of
        the normalized whole, so once the prefix normalizes to ``limit`` characters the rest cannot change
        them. The prefix is normalized again only when its raw length has doubled (linear overall)."""
        kids = self.children
        if kids and kids[0].__class__ is Text:  # (most blocks start with a text of their own)
            data = kids[0].data
            if len(data) > 4 * limit:  # its first characters are the whole's
                head = normalize_space(data[: 4 * limit])
                if len(head) >= limit:
                    return head[:limit]
            elif len(kids) == 1:
                return normalize_space(data)[:limit]  # the whole text
        out: list[str] = []
        size = 0
        check_at = limit
        stack: list[Node] = [self]
        while stack:
            n = stack.pop()
            if n.__class__ is Text:
                data = n.data
                out.append(data)
                size += len(data)
                if size >= check_at:
                    raw = "".join(out)
                    if len(raw) > 4 * limit:
                        # a prefix of the raw text normalizes to a prefix of the normalized whole: a long
                        # paragraph is not split into words just to read its first few characters
                        head = normalize_space(raw[: 4 * limit])
                        if len(head) >= limit:
                            return head[:limit]
                    head = normalize_space(raw)
                    if len(head) >= limit:
                        return head[:limit]
                    check_at = 2 * size
            elif n is self or n.tag not in NON_TEXT:  # type: ignore[attr-defined]
                stack += reversed(n.children)  # type: ignore[attr-defined]
        return normalize_space("".join(out))[:limit]

    def index_in_parent(self) -> int:
        return self.parent.children.index(self) if self.parent is not None else 0


class SiblingIndex:
    """A node's position among its parent's children, from one table per parent made on first use.

    Why: a loop over thousands of siblings that reads each one's neighbours would search the child list for
    every question (quadratic on a paragraph of 10,000 empty spans). A table stays right while the loop
    changes only children after the node asked about (bottom-up loops in reverse document order, nodes
    replaced in place); an entry gone stale is noticed and the list searched, so answers are always exact.
    """

    __slots__ = ("_tables",)

    def __init__(self) -> None:
        self._tables: dict[int, tuple[Element, dict[int, int]]] = {}

    def __call__(self, node: Node) -> int:
        par = node.parent
        if par is None:
            return 0
        kids = par.children
        entry = self._tables.get(id(par))
        if entry is None or entry[0] is not par:  # (the parent held, so its id is not reused meanwhile)
            entry = self._tables[id(par)] = (par, {id(c): i for i, c in enumerate(kids)})
        i = entry[1].get(id(node), -1)
        if 0 <= i < len(kids) and kids[i] is node:
            return i
        return kids.index(node)


def release(root: Element) -> None:
    """Break the parent links of a tree nobody will read again, so reference counting frees it at once.

    Why: every node points at its parent and the parent's child list points back, so a dropped tree is a
    reference cycle that only the cyclic garbage collector frees, and its full collections then walk every
    dead tree of the last pages again (about a fifth of the CPU of an extraction). One linear walk here is
    far cheaper."""
    stack: list[Element] = [root]
    pop = stack.pop
    while stack:
        el = pop()
        el.parent = None
        for c in el.children:
            if c.__class__ is Element:
                stack.append(c)  # (not a bound ``append``: see ``Element.iter``)
            else:
                c.parent = None


def normalize_space(s: str) -> str:
    """``" ".join(s.split())``. Most texts asked (a paragraph, the start of a block) already are: a printable
    text (no white space but the space, as ``collapse_space`` relies on) without two spaces in a row or a
    space at either end is its own answer, found by C-level checks instead of a list of its words."""
    if "  " not in s and s[:1] != " " and s[-1:] != " " and s.isprintable():
        return s
    return " ".join(s.split())


def holds_space(el: Element) -> bool:
    """``el`` has a text node (white space, when ``el`` shows no words): on screen it still parts the words
    on its two sides (``help<strong> </strong>more``, a spacer ``<span>&nbsp; </span>``), so whoever drops
    it as empty must leave a space."""
    return any(isinstance(n, Text) and n.data for n in el.iter_nodes())


def holds_break(el: Element) -> bool:
    """``el`` holds a ``<br>``: an element showing no words but a line break (editors wrap breaks in
    styling spans: ``555-0100<span><br></span>Mobile``) still parts two lines in running text, so whoever
    drops it there must leave the break. (``<wbr>`` is a place a word may wrap, not a break.)"""
    return any(isinstance(n, Element) and n.tag == "br" for n in el.iter_nodes())


_WS_RUN = re.compile(r"\s+")


def collapse_space(s: str) -> str:
    """``s`` with each whitespace run as one space (``re.sub(r"\\s+", " ", s)``, ends kept). Most text nodes
    already are, or are whitespace only: two C-level checks prove it, where the substitution would replace
    every space by a space (the renderers do this for every text of the article). Every whitespace
    character but the space is unprintable (``str.isprintable``: Unicode separators and controls; a test
    checks all code points), so a printable text without two spaces in a row has no run to collapse."""
    if "  " not in s and s.isprintable():
        return s
    if s.isspace():
        return " "
    return _WS_RUN.sub(" ", s)


def nodes_after(el: Element, root: Element) -> list[Node]:
    """Every node after ``el`` to the end of ``root``: the following siblings of ``el`` and of each of its
    ancestors below ``root`` (what a trailing block, such as a comment thread, spans)."""
    out: list[Node] = []
    cur: Element = el
    while cur is not root and cur.parent is not None:
        kids = cur.parent.children
        out.extend(kids[kids.index(cur) + 1 :])
        cur = cur.parent
    return out


def _at(kids: list[Node], node: Node, at: int) -> int:
    """``node``'s index in ``kids``: ``at`` when the caller knew it (checked), else searched."""
    return at if 0 <= at < len(kids) and kids[at] is node else kids.index(node)


def detach(node: Node, at: int = -1) -> None:
    """Take ``node`` out of its parent; ``at``: its index there, if the caller knows it (``SiblingIndex``),
    which spares a search of the child list (thousands of siblings removed one by one)."""
    if node.parent is not None:
        kids = node.parent.children
        del kids[_at(kids, node, at)]
        node.parent = None


def unwrap(el: Element) -> None:
    """Replace ``el`` by its children."""
    parent = el.parent
    if parent is None:
        return
    i = parent.children.index(el)
    kids = el.children
    for k in kids:
        k.parent = parent
    parent.children[i : i + 1] = kids
    el.children = []
    el.parent = None


def unwrap_all(els: list[Element]) -> None:
    """Unwrap every element of ``els`` at once: each parent's child list is rebuilt once, instead of one
    ``list.index`` scan and splice per element (quadratic on wide siblings). The tree is the same as after
    unwrapping them one by one in any order."""
    pending = {id(e) for e in els if e.parent is not None}
    if not pending:
        return
    holders: dict[int, Element] = {}  # nearest ancestor that stays, by id
    for el in els:
        if id(el) not in pending:
            continue
        holder = el.parent
        while holder is not None and id(holder) in pending:
            holder = holder.parent
        if holder is not None:
            holders[id(holder)] = holder
    for holder in holders.values():
        kids: list[Node] = []
        stack: list[Node] = list(reversed(holder.children))
        while stack:
            n = stack.pop()
            if id(n) in pending:
                assert isinstance(n, Element)
                stack += reversed(n.children)
            else:
                n.parent = holder
                kids.append(n)
        holder.children = kids
    for el in els:
        if id(el) in pending:
            el.children = []
            el.parent = None


def replace(old: Node, new: Node, at: int = -1) -> None:
    """Put ``new`` where ``old`` is; ``at``: ``old``'s index, if the caller knows it (as in ``detach``)."""
    parent = old.parent
    if parent is None:
        return
    i = _at(parent.children, old, at)
    if new.parent is not None:
        new.parent.children.remove(new)
        i = parent.children.index(old)
    parent.children[i] = new
    new.parent = parent
    old.parent = None


def clone(
    node: Node,
    index: dict[int, Element] | None = None,
    order: list[Element] | None = None,
    source_order: list[Element] | None = None,
) -> Node:
    """Deep copy keeping node ids (iterative).

    Every extraction copies the whole page, so nodes are made without ``__init__`` chains: slots are set
    directly (the same fields ``Element``/``Text`` construction sets). ``index``, when given, is filled
    with ``{nid: element}`` for every element of the *source*; ``order`` with the copy's elements in
    document order, ``list(copy.iter())``, and ``source_order`` with ``list(node.iter())`` (see
    ``Document.copy``): subtrees are copied in document order."""
    if isinstance(node, Text):
        t = Text(node.data)
        t.nid = node.nid
        return t
    assert isinstance(node, Element)
    root = _shallow(node)
    stack: list[tuple[Element, Element]] = [(node, root)]
    new_text = Text.__new__
    new_element = Element.__new__
    elements = 1
    if index is not None:
        index[node.nid] = node
    while stack:
        src, dst = stack.pop()
        if order is not None:
            order.append(dst)
        if source_order is not None:
            source_order.append(src)
        kids = dst.children
        pairs: list[tuple[Element, Element]] = []
        for c in src.children:
            if c.__class__ is Text:
                t = new_text(Text)
                t.data = c.data
                t.nid = c.nid
                t.parent = dst
                kids.append(t)
            else:
                assert isinstance(c, Element)
                e = new_element(Element)  # _shallow, inlined: one call less per element of every page
                e.parent = dst
                e.nid = c.nid
                e.tag = c.tag
                e.ns = c.ns
                e.attrs = c.attrs.copy()
                e.children = []
                e.layout = c.layout
                kids.append(e)
                pairs.append((c, e))
                if index is not None:
                    index[c.nid] = c
                    elements += 1
        if pairs:  # the first child's subtree is copied next
            pairs.reverse()
            stack += pairs
    if index is not None and len(index) != elements:  # ids repeat (a snapshot without ids): document order
        index.clear()
        index.update({e.nid: e for e in node.iter()})
    return root


def _shallow(e: Element) -> Element:
    n = Element.__new__(Element)
    n.parent = None
    n.nid = e.nid
    n.tag = e.tag
    n.ns = e.ns
    n.attrs = e.attrs.copy()
    n.children = []
    n.layout = e.layout
    return n


def _nth_of_type(el: Element, cache: dict[int, dict[int, tuple[int, int]]] | None) -> tuple[int, int]:
    """(position among same-tag siblings, how many there are); cached per parent so paths stay linear."""
    parent = el.parent
    assert parent is not None
    if cache is None:
        same = [c for c in parent.children if isinstance(c, Element) and c.tag == el.tag]
        return same.index(el) + 1, len(same)
    table = cache.get(id(parent))
    if table is None:
        counts: dict[str, int] = {}
        pos: list[tuple[int, str, int]] = []
        for c in parent.children:
            if c.__class__ is Element:
                n = counts.get(c.tag, 0) + 1
                counts[c.tag] = n
                pos.append((id(c), c.tag, n))
        table = {k: (n, counts[tag]) for k, tag, n in pos}
        cache[id(parent)] = table
    return table[id(el)]


def css_path(
    el: Element,
    cache: dict[int, dict[int, tuple[int, int]]] | None = None,
    paths: dict[int, str] | None = None,
) -> str:
    """A CSS path that locates ``el`` in its document (``#id`` anchors when ids are unique-looking).

    Pass the same ``cache`` dict for many paths in one unchanged tree (the removal log does), and ``paths``
    to remember each element's path there too: a path is its parent's path and one step (or an anchor), so
    the log's entries, mostly siblings and cousins, each cost one step instead of a climb to ``<html>``."""
    if paths is not None:
        return _css_path_remembered(el, cache, paths)
    parts: list[str] = []
    cur: Element | None = el
    while cur is not None and cur.tag != "#document":
        seg, starts = _css_path_step(cur, cache)
        parts.append(seg)
        if starts:
            break
        cur = cur.parent
    return " > ".join(reversed(parts))


def _css_path_step(cur: Element, cache: dict[int, dict[int, tuple[int, int]]] | None) -> tuple[str, bool]:
    """(``cur``'s part of a ``css_path``, whether the path starts there), as ``css_path``'s loop makes it."""
    if cur.tag == "html":
        return "html", True
    ident = cur.attrs.get("id", "")
    if ident and ident.replace("-", "").replace("_", "").isalnum() and not ident[0].isdigit():
        return f"{cur.tag}#{ident}", True
    seg = cur.tag
    if cur.parent is not None:
        nth, count = _nth_of_type(cur, cache)
        if count > 1:
            seg += f":nth-of-type({nth})"
    return seg, cur.parent is None or cur.parent.tag == "#document"


def _css_path_remembered(
    el: Element, cache: dict[int, dict[int, tuple[int, int]]] | None, paths: dict[int, str]
) -> str:
    """``css_path(el, cache)`` from the remembered path of its nearest ancestor that has one."""
    chain: list[tuple[Element, str]] = []  # el and ancestors without a remembered path, deepest first
    cur: Element | None = el
    prefix = ""
    while cur is not None and cur.tag != "#document":
        known = paths.get(id(cur))
        if known is not None:
            prefix = known
            break
        seg, starts = _css_path_step(cur, cache)
        chain.append((cur, seg))
        if starts:
            break
        cur = cur.parent
    for node, seg in reversed(chain):
        prefix = f"{prefix} > {seg}" if prefix else seg
        paths[id(node)] = prefix
    return prefix


class Document:
    """A parsed page: the root ``#document`` element holding ``<html>``, plus the next free node id."""

    __slots__ = ("root", "next_id", "released", "built_order")

    def __init__(self, root: Element, next_id: int, built_order: list[Element] | None = None) -> None:
        self.root = root
        self.next_id = next_id
        self.released = False  # ``release`` has run: nobody reads the tree again
        # ``list(root.iter())`` as the builder made the tree (``adapters.from_snapshot``), until it changes:
        # see ``take_built_order``
        self.built_order = built_order

    def take_built_order(self) -> list[Element] | None:
        """``list(self.root.iter())`` from the builder, once, when the tree is still as built; else None.

        Why: an in-place run lists the page's elements first (``extract.run_pipeline``), and the snapshot
        builder made them in that very order (one walk of the page fewer, on every extension command). Who
        changes the tree of a document made with an order drops it (``html``/``head``/``body`` here when they
        add the element; ``extract.run_pipeline`` takes it before any stage runs; ``release``); the only
        other holders of a fresh snapshot document before that are read-only (``measure``, ``readerable``)."""
        order = self.built_order
        self.built_order = None
        return order

    def release(self) -> None:
        """``release(self.root)``, once: a document worked on in place is released by its run
        (``Context.release``) and again by its owner (``extract.extract_owned``); the second walk of the
        whole page is skipped."""
        self.built_order = None
        if not self.released:
            self.released = True
            release(self.root)

    @property
    def html(self) -> Element:
        for c in self.root.children:
            if isinstance(c, Element) and c.tag == "html":
                return c
        self.built_order = None
        el = Element("html")
        self.root.append(el)
        return el

    @property
    def head(self) -> Element:
        h = self.html
        for c in h.children:
            if isinstance(c, Element) and c.tag == "head":
                return c
        self.built_order = None
        el = Element("head")
        h.insert(0, el)
        return el

    @property
    def body(self) -> Element:
        h = self.html
        for c in h.children:
            if isinstance(c, Element) and c.tag in ("body", "frameset"):
                return c
        self.built_order = None
        el = Element("body")
        h.append(el)
        return el

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def copy(
        self,
        index: dict[int, Element] | None = None,
        order: list[Element] | None = None,
        source_order: list[Element] | None = None,
    ) -> Document:
        """A deep copy with the same node ids. ``index``, when given, is filled with ``by_id()`` of this
        document on the way, ``order`` with ``list(copy.root.iter())`` and ``source_order`` with
        ``list(self.root.iter())`` (the copy visits every element anyway; a separate walk costs about 1 %
        of an extraction)."""
        root = clone(self.root, index, order, source_order)
        assert isinstance(root, Element)
        return Document(root, self.next_id)

    def by_id(self) -> dict[int, Element]:
        return {e.nid: e for e in self.root.iter()}


def number_nodes(root: Element, start: int = 0) -> int:
    """Assign document-order node ids; returns the last id used."""
    n = start
    for node in root.iter_nodes():
        n += 1
        node.nid = n
    return n
