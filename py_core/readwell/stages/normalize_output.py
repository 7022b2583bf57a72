"""normalize_output: the root becomes clean article markup: layout wrappers unwrapped, empty nodes dropped,
one title (an <h1>/<h2> repeating the title is dropped), ``<br><br>`` runs become paragraph breaks.

After every removal stage (``remove_*``: removals leave empty wrappers behind) and before URLs are resolved
and the sanitizer runs. In debug mode wrappers are kept (only empties go), so log locators still point at
evidence.
"""

from __future__ import annotations

from ..context import STRUCTURE, Context
from ..dom import NON_TEXT, Element, Node, SiblingIndex, Text, holds_break, holds_space, normalize_space
from ..rules import INLINE_TAGS, TITLE_TOKENS, tokens_of
from ..signals import same_title
from ..textstats import BLOCK_TAGS

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = (
    "remove_hidden_and_tiny_media",
    "remove_low_score",
    "remove_by_selector",
    "remove_by_pattern",
)

MEDIA = frozenset(
    {
        "img",
        "picture",
        "video",
        "audio",
        "svg",
        "math",
        "iframe",
        "source",
        "br",
        "hr",
        "td",
        "th",
        "col",
        "colgroup",
        "tr",
        "wbr",
    }
)
KEEP_EMPTY = MEDIA | {"td", "th", "tr", "thead", "tbody", "tfoot", "table", "li", "code", "pre"}
UNWRAP_TAGS = frozenset(
    {
        "font",
        "center",
        "span",
        "main",
        "article",
        "section",
        "div",
        "header",
        "footer",
        "hgroup",
        "big",
        "small",
        "u",
    }
)


BREAKS = frozenset({"br", "wbr"})
TITLE_HEADINGS = frozenset({"h1", "h2"})  # headings that can be the page's headline (step 2)


def _texts_and_media(order: list[Element]) -> tuple[set[int], set[int]]:
    """Python ids of the elements of ``order`` (a whole subtree, document order) whose ``text()`` is not
    blank, and of those that are or hold media or table structure (an element of only line breaks is
    still empty): one bottom-up pass instead of a subtree walk and a text join per element (quadratic in
    depth)."""
    texty: set[int] = set()
    media: set[int] = set()
    solid = MEDIA - BREAKS
    for el in reversed(order):
        has_text = False
        has_media = el.tag in solid
        for c in el.children:
            if isinstance(c, Text):
                has_text = has_text or bool(c.data.strip())
            elif isinstance(c, Element):
                has_text = has_text or (id(c) in texty and c.tag not in NON_TEXT)
                has_media = has_media or id(c) in media
        if has_text:
            texty.add(id(el))
        if has_media:
            media.add(id(el))
    return texty, media


def _block_between_words(el: Element, index: SiblingIndex) -> bool:
    """An empty block with running text right on both sides (``a<div></div>b`` shows two lines): without
    it the two words would run together. Between blocks or at a run's space it parts nothing."""
    par = el.parent
    if par is None:
        return False
    kids = par.children
    i = index(el)
    if i == 0 or i == len(kids) - 1:
        return False
    before, after = kids[i - 1], kids[i + 1]
    if isinstance(before, Text):
        if not before.data or before.data[-1].isspace():
            return False
    elif not isinstance(before, Element) or before.tag in BLOCK_TAGS:
        return False
    if isinstance(after, Text):
        return bool(after.data) and not after.data[0].isspace()
    return isinstance(after, Element) and after.tag not in BLOCK_TAGS


def _in_running_text(el: Element, index: SiblingIndex) -> bool:
    """``el`` has words or phrases on both sides on its line (whitespace skipped; through the inline
    elements holding it: ``our<a><span><br></span>main page</a>``). Between blocks or at a line's start or
    end a break separates nothing."""
    return _phrase_side(el, -1, index) and _phrase_side(el, 1, index)


def _phrase_side(el: Element, step: int, index: SiblingIndex) -> bool:
    """A word or an inline element is next to ``el`` on the side ``step`` points to (-1 before, 1 after),
    looking through the inline elements holding it."""
    cur = el
    while cur.parent is not None:
        kids = cur.parent.children
        i = index(cur) + step
        while 0 <= i < len(kids):
            n = kids[i]
            i += step
            if isinstance(n, Text):
                if n.data.strip():
                    return True
                continue
            return isinstance(n, Element) and n.tag in INLINE_TAGS
        if cur.parent.tag not in INLINE_TAGS:
            return False
        cur = cur.parent
    return False


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    title = normalize_space(ctx.meta.title or "").lower()
    # 1. empty elements, bottom-up (removing an empty element changes no other element's verdict)
    order = list(root.iter(include_self=False))
    texty, media = _texts_and_media(order)
    index = SiblingIndex()  # (the loop runs bottom-up: a node's earlier siblings do not move meanwhile)
    for el in reversed(order):
        if el.parent is None or el.tag in KEEP_EMPTY or ctx.protected_kind(el):
            continue
        if id(el) not in texty and id(el) not in media and not el.get("data-tex"):
            at = index(el)
            if el.tag not in BLOCK_TAGS and holds_break(el) and _in_running_text(el, index):
                # "555-0100<span><br></span>Mobile" shows two lines (editors wrap breaks in styling spans):
                # a line break stands in for it. Between blocks (a spacer after a paragraph) it goes.
                ctx.replace(
                    el, ctx.new_element("br"), STRUCTURE, "empty", "empty element (a line break kept)", at
                )
            elif el.tag not in BLOCK_TAGS and holds_space(el):
                # It still parts the words on its two sides ("help<strong> </strong>more", a spacer
                # <span>&nbsp; </span>): a space stands in for it.
                ctx.replace(el, ctx.new_text(" "), STRUCTURE, "empty", "empty element (a space kept)", at)
            elif el.tag in BLOCK_TAGS and _block_between_words(el, index):
                # "line<div></div>line" shows two lines: a line break stands in for it
                ctx.replace(
                    el, ctx.new_element("br"), STRUCTURE, "empty", "empty block (a line break kept)", at
                )
            else:
                ctx.remove(el, STRUCTURE, "empty", "empty element", at)
    # 2. one title: a heading at the top of the article that repeats the page title. Only <h1>/<h2> (and
    # title-named blocks) are the page's headline, as in Readability's duplicate-title check: an <h3> that
    # repeats the title is a post's own heading inside the article (blog templates), which article bodies
    # keep (measured on the five development sets: dragnet-dev +0.0008 F1, l3s-gn1 +0.0001, others equal).
    if title:
        heads = [
            e
            for e in root.iter(include_self=False)
            if e.tag in TITLE_HEADINGS
            or (e.tag in ("p", "div", "span") and tokens_of(e.get("class")) & TITLE_TOKENS)
        ]
        for h in heads[:3]:
            if h.parent is not None and _near_top(root, h) and same_title(normalize_space(h.text()), title):
                ctx.remove(h, STRUCTURE, "duplicate-title", "heading repeats the article title")
                break
    # 2b. the headline: an <h1> before any article text is the page's headline (the result carries the
    # title; sites often word the <h1> differently from og:title)
    first_h1 = next((e for e in root.iter(include_self=False) if e.tag == "h1"), None)
    if first_h1 is not None and first_h1.parent is not None and _near_top(root, first_h1, limit=1):
        ctx.remove(
            first_h1, STRUCTURE, "headline", "headline at the top of the article (carried as the title)"
        )
    # 3. layout tables: cells become blocks
    # (only tables an earlier stage judged: a protection check judges a table lazily)
    for t in [e for e in root.iter() if e.tag == "table" and ctx.judged_table_kind(e) == "layout"]:
        if t.parent is None:
            continue
        for cell in [
            e for e in t.iter(include_self=False) if e.tag in ("tbody", "thead", "tfoot", "tr", "td", "th")
        ]:
            if cell.tag in ("td", "th"):
                cell.tag = "div"
            else:
                ctx.unwrap_later(cell, STRUCTURE, "layout-table", "layout table row unwrapped")
        t.tag = "div"
    ctx.flush_unwraps()
    # 4. paragraphs from <br><br> runs in divs of inline content
    for div in [e for e in root.iter() if e.tag == "div"]:
        _br_paragraphs(ctx, div)
    # 5. wrappers that add nothing (not in debug mode: keep evidence)
    # Bottom-up, so a wrapper is judged on its children as they are once the wrappers inside it are gone.
    # The splices are batched (``unwrap_later``): ``blocks_only`` answers for the children an element will
    # have (an unwrapped child stands for its own children), so no child list is rebuilt per unwrap.
    if not ctx.options.debug:
        unwrapped: set[int] = set()
        blocks_only: dict[int, bool] = {}  # id of an unwrapped element → its children are all blocks

        def only_blocks(el: Element) -> bool:
            for k in el.children:
                if isinstance(k, Text):
                    if k.data.strip():
                        return False
                elif isinstance(k, Element):
                    if id(k) in unwrapped:
                        if not blocks_only[id(k)]:
                            return False
                    elif k.tag not in BLOCK_TAGS:
                        return False
            return True

        for el in reversed(list(root.iter(include_self=False))):
            if el.parent is None or el.tag not in UNWRAP_TAGS or ctx.protected_kind(el) or el.get("data-tex"):
                continue
            if el.tag == "span" or el.tag in ("font", "big", "small", "u", "center"):
                if (
                    not el.attrs
                    or all(k in ("class", "style", "id", "dir", "lang") for k in el.attrs)
                    and el.tag != "span"
                    or (el.tag == "span" and not set(el.attrs) - {"class", "style", "id"})
                ):
                    blocks_only[id(el)] = only_blocks(el)
                    unwrapped.add(id(el))
                    ctx.unwrap_later(el, STRUCTURE, "wrapper", f"presentational <{el.tag}> unwrapped")
                continue
            if only_blocks(el):
                blocks_only[id(el)] = True
                unwrapped.add(id(el))
                ctx.unwrap_later(el, STRUCTURE, "wrapper", f"<{el.tag}> wrapper of blocks unwrapped")
            elif el.tag != "div":
                el.tag = "div"
        ctx.flush_unwraps()


def _near_top(root: Element, h: Element, limit: int = 200) -> bool:
    """Fewer than ``limit`` characters of text before ``h`` in the root."""
    before = 0
    for e in root.iter_nodes():
        if e is h:
            return before < limit
        if isinstance(e, Text):
            before += len(e.data.strip())
    return False


def _br_paragraphs(ctx: Context, div: Element) -> None:
    kids = div.children
    if not any(isinstance(k, Element) and k.tag == "br" for k in kids):
        return
    if any(isinstance(k, Element) and k.tag in BLOCK_TAGS for k in kids):
        return
    # split on runs of 2+ <br>
    groups: list[list] = [[]]
    i = 0
    brs = 0
    while i < len(kids):
        k = kids[i]
        if isinstance(k, Element) and k.tag == "br":
            j = i
            n = 0
            while j < len(kids) and _br_or_space(kids[j]):
                if isinstance(kids[j], Element):
                    n += 1
                j += 1
            if n >= 2:
                brs += 1
                groups.append([])
                for x in kids[i:j]:
                    if isinstance(x, Element):
                        groups[-2].append(("drop", x))
                i = j
                continue
        groups[-1].append(("keep", k))
        i += 1
    if brs == 0:
        return
    for g in groups:
        for action, node in g:
            if action == "drop" and node.parent is not None:
                ctx.remove(node, STRUCTURE, "br-run", "line breaks turned into a paragraph break")
    new_children = []
    for g in groups:
        nodes = [n for a, n in g if a == "keep"]
        if not any((isinstance(n, Text) and n.data.strip()) or isinstance(n, Element) for n in nodes):
            continue
        p = ctx.new_element("p")
        for n in nodes:
            p.append(n)
        new_children.append(p)
    for p in new_children:
        div.append(p)


def _br_or_space(node: Node) -> bool:
    return isinstance(node, Element) and node.tag == "br" or isinstance(node, Text) and not node.data.strip()
