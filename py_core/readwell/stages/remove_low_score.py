"""remove_low_score: blocks inside the root whose shape says "not article": link lists, teaser grids, promo
boxes, widgets with more images or inputs than text (Readability's conditional cleaning, with reasons).

After ``remove_hidden_and_tiny_media``: hidden elements are gone (they would distort densities) and before
selector and text-pattern rules (which are more specific, and whose look-alikes this stage must not have
already removed). Protected regions and blocks holding a large share of the root's text are never removed
here.
"""

from __future__ import annotations

import re

from ..context import SCORE, Context
from ..dom import (
    HTML_NS,
    NON_TEXT,
    Element,
    Node,
    SiblingIndex,
    Text,
    holds_break,
    holds_space,
    normalize_space,
)
from ..measure import Stat
from ..rules import (
    INLINE_TAGS,
    PROMO_TEXT,
    SEE_ALSO_HEADING,
    SEE_ALSO_LOOKBACK,
    enclosing_block,
    media_size,
    paragraph_worth,
    phrase_in_prose,
    quotes_a_post,
    reads_as_prose,
    texts_outside_links,
)
from ..sanitize import ALLOWED_TAGS, DROP_TAGS
from ..signals import class_weight, interface_evidence, match_exact, match_partial, trailing_thread
from ..textstats import BLOCK_TAGS, HEADINGS, clause_marks, headed_by_link, led_by_link, text_units
from ..thresholds import (
    BEST_BODY_SHARE,
    GLYPH_MAX_HEIGHT,
    GLYPH_MAX_WIDTH,
    LABEL_MAX_WORDS,
    LINK_DENSITY_LITTLE_TEXT,
    LINK_POST_ITEM_UNITS,
    LINK_POST_LIST_SHARE,
    LIST_INTRO_MIN_UNITS,
    MOST_OF_ROOT_SHAPE,
    PIXEL_MAX,
    PROSE_MIN_MARKS,
    PROSE_MIN_UNITS,
    SENTENCE_SPAN_MIN_UNITS,
    SIBLING_PROSE_LINK_DENSITY,
    SIBLING_PROSE_UNITS,
    SOURCELESS_IMAGES_TEXT_UNITS,
    TEASER_EXCERPTS_MAX_SHARE,
    TEASER_EXCERPTS_MIN_PART,
    TEASER_GROUP_MAX_SHARE,
    TEASER_LABEL_MAX_WORDS,
)

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("remove_hidden_and_tiny_media",)

# Elements ending a line of text (a nested block starts another line too, see ``_inside_block``).
LINE_BREAKS = frozenset(
    {"br", "hr", "p", "div", "li", "dd", "dt", "td", "th", "tr", "table", "ul", "ol", "dl"}
)

CANDIDATE_TAGS = frozenset(
    {
        "div",
        "section",
        "ul",
        "ol",
        "dl",
        "table",
        "aside",
        "header",
        "footer",
        "form",
        "figure",
        "nav",
        "span",
        "center",
        "font",
        "article",
    }
)


# Every element name HTML gives a meaning to, as far as this stage cares: anything else (``<fourthtag>``)
# is rendered as a plain element, and one holding blocks is judged like a <div> (``unknown_wrapper``).
KNOWN_TAGS = (
    BLOCK_TAGS
    | INLINE_TAGS
    | ALLOWED_TAGS
    | DROP_TAGS
    | frozenset("html body label legend fieldset main article nav search output meter progress".split())
)


def unknown_wrapper(el: Element) -> bool:
    """An element of no known name that holds blocks (a <div> by another name). One around a few words of
    a sentence is inline markup, and a custom element (``x-card``) or a prefixed one (``fb:like``) has
    its own behaviour: neither is judged here."""
    return (
        el.tag not in KNOWN_TAGS
        and el.ns == HTML_NS
        and "-" not in el.tag
        and ":" not in el.tag
        and any(c.tag in BLOCK_TAGS for c in el.element_children)
    )


CARD_SEPARATORS = frozenset({"br", "hr"})


def _signature(el: Element) -> tuple[str, str]:
    """Tag and first class: a template names its items alike first ("story-block") and then numbers or
    marks them apart ("pos-2 id1227..."), which a full class list would take for different kinds."""
    return el.tag, el.classes[0] if el.classes else ""


# A footnote's back-link: "[1]", "1", "*", "†" leading the note (``<div><a href="#ref1">[1]</a> Text</div>``).
FOOTNOTE_MARK = re.compile(r"^(\[\d{1,3}\]|\d{1,3}|[*\u2020\u2021^])$")


def footnote_led(el: Element) -> bool:
    """The block's first words are a footnote mark in a link (a back-link to where it is cited): a list of
    notes, each "led by a link" like a card, but every link is a number, not a headline."""
    for n in el.iter_nodes():
        if isinstance(n, Text) and n.data.strip():
            a = next((x for x in n.ancestors() if x.tag == "a"), None)
            return a is not None and FOOTNOTE_MARK.match(normalize_space(a.text())) is not None
    return False


# A sentence ends here (a dot in "example.com" or "07.45" is not one).
_SENTENCE_END_MARK = re.compile(r"[.!?\u3002\uff01\uff1f](?=\s|$)")


def label_led(el: Element) -> bool:
    """A card whose linked headline follows a short label: a section, source or date of at most
    ``TEASER_LABEL_MAX_WORDS`` words ("Market recaps - <a>Asia session</a> by X", "12 May: <a>...</a>"),
    and whose own words (outside links) end no sentence: a headline, a source and a date. An annotated list
    (a changelog entry, a cited source with a note) writes sentences of its own and is not a card."""
    label: list[str] = []
    linked = False
    for n in el.iter_nodes():
        if not (isinstance(n, Text) and n.data.strip()):
            continue
        a = next((x for x in n.ancestors() if x.tag == "a"), None)
        if a is not None:
            href = a.get("href")
            linked = bool(href) and not href.startswith("#")
            break
        label.append(n.data)
    if not linked or not label or len(" ".join(label).split()) > TEASER_LABEL_MAX_WORDS:
        return False
    return not any(_SENTENCE_END_MARK.search(t) for t in texts_outside_links(el))


# An excerpt cut short: the text ends in an ellipsis, maybe bracketed ("... the mysterious...", "[…]").
CUT_SHORT = re.compile(r"(\.\.\.|\u2026)\s*\]?$")


def teaser_group(el: Element, stats: dict[int, Stat], root_units: int) -> str | None:
    """Three or more similar children, each a short card led by a link: a related-stories grid or list.

    Link density alone misses teaser cards with a sentence of summary; the repeated, link-led shape is the
    signal. Prose list items (text first, links inside sentences) and long items never match.

    A group holding ``TEASER_GROUP_MAX_SHARE`` of the root or more may be the article itself (a news
    roundup whose items are linked headlines with a paragraph each); it is a teaser group only when its
    cards' summaries are excerpts cut short with an ellipsis (other pages' texts, quoted up to a length)
    and something else still holds ``1 - TEASER_EXCERPTS_MAX_SHARE`` of the root (a front page of
    excerpts is all excerpts).
    """
    # (a line break or rule between the cards is spacing, not an item: ``<div>card</div><br><div>card</div>``)
    kids = [k for k in el.element_children if k.tag not in CARD_SEPARATORS]
    if len(kids) < 3:
        return None
    sigs: dict[tuple[str, str], int] = {}
    for k in kids:
        sigs[_signature(k)] = sigs.get(_signature(k), 0) + 1
    sig, count = max(sigs.items(), key=lambda kv: kv[1])
    if count < 3 or count < 0.75 * len(kids):
        return None
    cards = [k for k in kids if _signature(k) == sig]
    card_units = 0
    for k in cards:
        s = stats.get(k.nid)
        if (
            s is None
            or s.units >= 800
            or not (led_by_link(k) or headed_by_link(k) or label_led(k))
            or footnote_led(k)
        ):
            return None
        card_units += s.units
    # Links in running text (a paragraph written without <p>: text, a link, more text) are alike and each
    # "led by a link" too. A block that opens with its own words, at least two sentences' worth and more
    # than the links hold, is that paragraph; a list of cards opens with a card, and a control bar's label
    # ("text size: A | A | A") is a few words.
    own_units = sum(text_units(c.data) for c in el.children if isinstance(c, Text))
    if own_units >= PROSE_MIN_UNITS and own_units > card_units and not led_by_link(el):
        return None
    share = stats[el.nid].units / max(root_units, 1)
    if share < TEASER_GROUP_MAX_SHARE:
        return f"teaser group: {count} similar items, each led by a link or a linked heading"
    excerpts = sum(1 for k in cards if CUT_SHORT.search(normalize_space(k.text())))
    if share < TEASER_EXCERPTS_MAX_SHARE and excerpts >= TEASER_EXCERPTS_MIN_PART * count:
        return f"teaser group: {count} items, each a linked headline and an excerpt cut short ({excerpts})"
    return None


def verdict(el: Element, st: Stat, root_units: int, fields: set[int] | None = None) -> str | None:
    """A reason to remove ``el`` or None. Each branch names the signal in words for the log.

    ``fields``: the ids of the elements that held a form field when the stage began (``field_holders``),
    so that the field test sees what the counts see (they include blocks removed inside ``el``); None reads
    ``el``'s subtree as it is."""
    if st.units == 0 and st.images == 0 and st.embeds == 0 and st.videos == 0:
        if el.tag in ("div", "section", "span", "aside", "header", "footer", "ul", "ol", "dl", "form"):
            # (white space or a line break parts words: normalize_output leaves a space or a break)
            return None if el.tag == "span" and (holds_space(el) or holds_break(el)) else "empty block"
        return None
    weight = class_weight(el)
    ld = st.link_density
    share = st.units / root_units if root_units else 1.0
    if share > MOST_OF_ROOT_SHAPE:
        return None  # most of the article lives here
    is_list = el.tag in ("ul", "ol", "dl")
    if is_list and st.list_items and ld > 0.6 and st.marks < max(3, st.list_items):
        return f"list of links ({st.list_items} items, link density {ld:.2f})"
    if weight < 0 and share < 0.25 and not reads_as_prose(st) and not quotes_a_post(el):
        # (an embedded post's wrapper is named for its network, "social-media-embed": rules.quotes_a_post)
        return f"negative class/id weight {weight} with {share:.0%} of the article text"
    if st.marks >= 10 and ld < 0.3:
        return None  # prose: plenty of clauses, few links
    p = st.paragraphs
    if (
        st.inputs > max(1, p // 3)
        and (el.nid in fields if fields is not None else has_form_field(el))
        and not post_above_form(el)
    ):
        return f"form-like block ({st.inputs} inputs, {p} paragraphs)"
    if st.images > 1 and p / st.images < 0.5 and el.tag != "figure" and st.units < 200 * st.images:
        pictures = st.images - images_in_sentences(el) - spacer_images(el)
        if pictures > 1 and not shows_no_picture(el):
            lines = p + prose_lines(el) if p / pictures < 0.5 else p
            if lines / pictures < 0.5:
                return f"image grid ({pictures} images, {p} paragraphs)"
    if (
        not is_list
        and st.list_items > p + 1
        and st.list_items > 2
        and ld > 0.3
        and el.tag not in ("ul", "ol")
    ):
        return f"more list items than paragraphs with link density {ld:.2f}"
    if weight < 25 and ld > LINK_DENSITY_LITTLE_TEXT and st.units < 800 and not written_addresses(el, st):
        return f"link density {ld:.2f} with little text ({st.units} units)"
    if weight >= 25 and ld > 0.5:
        return f"link density {ld:.2f}"
    if st.embeds == 1 and st.units < 75 or st.embeds > 1:
        return f"embed block with little text ({st.embeds} embeds)"
    if st.units < 200 and st.headings == 0 and p <= 1 and PROMO_TEXT.search(normalize_space(el.text())):
        return "promotional teaser text"
    return None


# A link whose text is an address written out ("http://example.org/x", "www.example.org").
WRITTEN_URL = re.compile(r"(https?://|www\.)\S+$", re.IGNORECASE)


def written_addresses(el: Element, st: Stat) -> bool:
    """``el``'s link density is over the line only because of addresses written out in its sentences: a
    link whose text is its URL ("learn more at http://example.org/a/long/path", a quoted tweet's
    "https://t.co/x") is the writer's words, and one long address outweighs the sentence around it in text
    units. Without those links the block is under the "little text" line, and it has words of its own
    (``SENTENCE_SPAN_MIN_UNITS`` outside links, a clause mark): a row of bare addresses still goes."""
    if not st.marks or st.units - st.link_units < SENTENCE_SPAN_MIN_UNITS:
        return False
    written = 0
    for a in el.iter():
        if a.tag == "a":
            t = a.text().strip()
            if WRITTEN_URL.match(t):
                written += text_units(t)
    return bool(written) and (st.link_units - written) / st.units <= LINK_DENSITY_LITTLE_TEXT


# What a visitor fills in. Buttons alone are controls of anything (a theme picker's "Preview" buttons, a
# carousel's arrows, a plan table's "Subscribe"): with a field they submit a form and count as its inputs,
# without one the block is no form (Readability's conditional cleaning counts only <input>s too).
FORM_FIELD_TAGS = frozenset({"input", "select", "textarea"})
LINK_OR_ITEM = frozenset({"a", "li"})  # words that are a link's or a list item's, not the block's own


def post_above_form(el: Element) -> bool:
    """``el`` is a post with its comment form below it: before the first child holding a field comes a
    heading of the form's own ("Leave a reply"; or the form block opens with it), and before that heading
    the block's own writing, a paragraph's worth by the sibling step's test (``SIBLING_PROSE_UNITS`` of
    text outside links and list items, ``SIBLING_PROSE_MARKS`` clauses). Or ``el`` wraps such a block (its
    first child holding a field is one).

    Without its class name ("post", "entry") a short post's block is judged by shape, and the form's six
    inputs outnumber the post's few paragraphs: the post went as a "form-like block" with its form. A comment
    form's own box (heading, a notice, fields), a newsletter box (heading or not, a blurb, a field) and a
    search box have nothing before their heading, or no heading between their words and the fields, and go
    as before; comments listed above a reply form are list items and do not count as the block's writing."""
    kids = el.element_children
    i = next((j for j, k in enumerate(kids) if k.tag in FORM_FIELD_TAGS or has_form_field(k)), None)
    if i is None:
        return False
    holder = kids[i]
    if not i:
        return post_above_form(holder)  # a wrapper: is the block holding the first field such a post?
    if kids[i - 1].tag in HEADINGS:
        before = kids[: i - 1]
    elif holder.element_children and holder.element_children[0].tag in HEADINGS:
        before = kids[:i]
    else:
        return False
    units = marks = 0
    for b in before:
        for node in b.iter_nodes():
            if isinstance(node, Text) and not node.under_tag(LINK_OR_ITEM, b):
                units += text_units(node.data)
                marks += clause_marks(node.data)
    return paragraph_worth(units, marks)


def prose_lines(el: Element) -> int:
    """Lines of text in ``el`` written with ``<br>``s (runs outside ``<p>``s and links that a ``<br>``
    starts or ends, at any depth) that read as a paragraph by the sibling step's test:
    ``SIBLING_PROSE_UNITS`` of text, ``SIBLING_PROSE_MARKS`` clauses.

    A post written with ``<br>``s instead of ``<p>``s has no paragraphs to count, and with two pictures
    it went as an "image grid" (the post's block, or the wrapper holding its title and that block). An
    image grid's captions in ``<br>`` lines are labels ("The harbour at dawn"), a few words each, and
    still do not count; nor do captions in blocks of their own (a ``<div>`` under each photo, however
    long: counting those lowered l3s-gn1, 7 pages). Text in a ``<p>`` is counted as its paragraph; a script's
    or style sheet's text is no line at all (``NON_TEXT``, as ``measure`` has it)."""
    n = units = marks = 0
    after_br = False  # the line being read started at a <br>
    end = object()  # marks the end of a block on the stack: its last line ends there
    stack: list[object] = list(reversed(el.children))
    while stack:
        node = stack.pop()
        if node is end or (isinstance(node, Element) and node.tag in LINE_BREAKS):
            at_br = isinstance(node, Element) and node.tag == "br"
            n += (after_br or at_br) and paragraph_worth(units, marks)
            units = marks = 0
            after_br = at_br
        if isinstance(node, Element):
            if node.tag in ("p", "a") or node.tag in NON_TEXT:
                continue  # a paragraph (counted), a link's words (not the block's own), code (no words)
            if node.tag in LINE_BREAKS:
                stack.append(end)
            stack.extend(reversed(node.children))
        elif isinstance(node, Text):
            units += text_units(node.data)
            marks += clause_marks(node.data)
    return n + (after_br and paragraph_worth(units, marks))


def has_form_field(el: Element) -> bool:
    """``el`` holds a field to fill in."""
    return any(e.tag in FORM_FIELD_TAGS for e in el.iter(include_self=False))


def field_holders(root: Element) -> set[int]:
    """The ids of the elements under ``root`` (itself included) holding a form field."""
    holders: set[int] = set()
    for e in root.iter(include_self=False):
        if e.tag in FORM_FIELD_TAGS:
            for a in e.ancestors():
                if a.nid in holders:
                    break
                holders.add(a.nid)
                if a is root:
                    break
    return holders


def shows_no_picture(el: Element) -> bool:
    """None of the block's images has a source (lazy images whose loader never ran, placeholders as
    ``data:`` URIs): they show nothing, so they do not make the block an image grid, and the block is judged
    on its text; this much text (``SOURCELESS_IMAGES_TEXT_UNITS``) is an article's, e.g. a blog post with
    many inline images."""
    for img in el.iter(include_self=False):
        src = (img.get("src") or img.get("data-src")).strip().lower() if img.tag == "img" else ""
        if src and not src.startswith("data:"):
            return False
    return text_units(el.text()) >= SOURCELESS_IMAGES_TEXT_UNITS  # its text now (stats lag behind removals)


def spacer_images(el: Element) -> int:
    """Images ``PIXEL_MAX`` thin in one direction: a table layout's spacer (``width="5" height="1"``) or a
    drawn rule line (203×1). They show no picture, so they do not make a block an image grid: an old
    template's fact box beside the story (a heading, four bullet lines, a spacer cell and a dashed rule) and
    a photo's caption cell went as grids. (Images thin in both directions are tracking pixels, removed
    before this stage.)"""
    n = 0
    for img in el.iter(include_self=False):
        if img.tag == "img":
            w, h = media_size(img)
            if (w is not None and w <= PIXEL_MAX) or (h is not None and h <= PIXEL_MAX):
                n += 1
    return n


def images_in_sentences(el: Element) -> int:
    """Images with words before and after them on their line: a formula drawn as an image, a quotation
    mark or an emoji in a sentence. They are the sentence's glyphs, not pictures of an image grid."""
    n = 0
    for img in el.iter(include_self=False):
        if img.tag == "img" and _words_around(img):
            n += 1
    return n


def _glyph_sized(img: Element) -> bool:
    w, h = media_size(img)
    return w is not None and h is not None and w <= GLYPH_MAX_WIDTH and h <= GLYPH_MAX_HEIGHT


def _words_around(img: Element) -> bool:
    """Whether ``img``'s line (in its nearest block, lines end at line breaks) has words before and after it
    (text in blocks nested in that block is on other lines)."""
    block = enclosing_block(img)
    if block is None:
        return False
    before = after = False
    seen = False
    for node in block.iter_nodes():
        if node is img:
            seen = True
        elif isinstance(node, Element) and node.tag in LINE_BREAKS and node is not block:
            if seen:
                break
            before = False
        elif isinstance(node, Text) and node.data.strip() and not _inside_block(node, block):
            if seen:
                after = True
                break
            before = True
    return before and after


def _inside_block(node: Text, block: Element) -> bool:
    """``node`` sits in a block nested in ``block`` (another line: a caption paragraph below a picture)."""
    for a in node.ancestors():
        if a is block:
            return False
        if a.tag not in INLINE_TAGS:
            return True
    return False


def names_boilerplate(el: Element, st: Stat) -> bool:
    """The block is named as boilerplate (exact selector or class/id pattern): remove_by_selector's job, so
    the log names the rule that really applies and disabling that stage brings the block back."""
    return match_exact(el) is not None or match_partial(el, st) is not None


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    stats = ctx.measure(root)
    root_units = stats[root.nid].units
    fields = field_holders(root)
    # Bottom-up: inner blocks first, so an outer container is judged on what survives inside it.
    order = [
        e
        for e in root.iter(include_self=False)
        if e.tag in CANDIDATE_TAGS or e.tag == "td" or unknown_wrapper(e)
    ]
    removed: set[int] = set()
    body = body_of_best(root, ctx.core, stats) | link_post_lists(root, stats, root_units)
    index = SiblingIndex()  # (bottom-up: a block's earlier siblings do not move before it is judged)
    thread = worded_thread(ctx, root, stats)
    for el in reversed(order):
        if el.parent is None or ctx.is_protected(el) or any(a.nid in removed for a in el.ancestors()):
            continue
        if el.tag == "table" and ctx.judged_table_kind(el) == "data":
            continue
        if el.nid in ctx.core:
            continue  # holds the paragraphs scoring chose: a post wrapper with its tag lists is not a widget
        if el.nid in body:
            continue  # the body of the block scoring chose (a photo post's pictures and lines, see below)
        st = stats[el.nid]
        # (the verdict first: most elements have none, and the two exemptions below only read the tree)
        if el.tag == "td":
            # a layout table's cell holding cards ("<td><div>card</div><br><div>card</div>..."): only
            # the group shape is asked of a cell (its table is judged as a block)
            table = next((a for a in el.ancestors() if a.tag == "table"), None)
            why = (
                teaser_group(el, stats, root_units)
                if table is not None and ctx.judged_table_kind(table) != "data"
                else None
            )
        else:
            why = verdict(el, st, root_units, fields) or teaser_group(el, stats, root_units)
        if not why or names_boilerplate(el, st):
            continue  # named by class/id or tag: remove_by_selector removes it and logs the exact rule
        if el.tag in SEE_ALSO_TAGS and in_see_also_section(el, index):
            continue  # the article's own "See also" list (Readability keeps it)
        if in_heading(el):
            continue  # part of a heading's line: "History [edit]" keeps its link, as in Readability
        if el.tag == "span" and sentences_of_paragraph(el, st):
            continue  # a <p>'s own sentences in a styling <span>: paragraphs are not judged here
        if st.units and phrase_in_prose(el):
            continue  # a linked phrase inside a sentence (<span><a>…</a></span>) is the sentence's words
        if el.tag in LIST_TAGS and why.startswith(LINK_LIST_VERDICTS) and introduced_list(el, stats):
            continue  # the article's own annotated list, between its paragraphs
        if why:
            # (read before the removal detaches it: see ``thumbnail_list``)
            holders = list(el.ancestors()) if thumbnail_list(el, st) else []
            label = label_of_last_group(el) if why.startswith(GROUP_VERDICTS) else None
            ctx.remove(el, SCORE, f"{el.tag}:low-score", why, index(el))
            if label is not None and label.nid not in ctx.core and not ctx.is_protected(label):
                # (the label's few words stay in its ancestors' stats: outer blocks are judged as before)
                ctx.remove(label, SCORE, f"{label.tag}:low-score", "label of a removed group", index(label))
                removed.add(label.nid)
            for anc in holders:
                s_anc = stats.get(anc.nid)
                if s_anc is None:
                    break
                s_anc.images -= st.images
                if anc is root:
                    break
            removed.add(el.nid)
            shrink(stats, el, st, root)
            if thread is not None and thread[0].within(el):
                cut_thread(ctx, thread, el, stats, root, removed)
                thread = None
    trim_after_climb(ctx, root)


def shrink(stats: dict[int, Stat], el: Element, st: Stat, root: Element) -> None:
    """``el`` (measured ``st``) was removed: its ancestors' stats up to ``root`` shrink, so outer blocks are
    judged on what is left."""
    for anc in el.ancestors():
        s = stats.get(anc.nid)
        if s is None:
            break
        s.units -= st.units
        s.link_units -= st.link_units
        s.marks -= st.marks
        s.paragraphs -= st.paragraphs
        s.images -= st.images
        s.list_items -= st.list_items
        s.inputs -= st.inputs
        s.embeds -= st.embeds
        s.videos -= st.videos
        s.headings -= st.headings
        if anc is root:
            break


Thread = tuple[Element, str, list[Node]]


def worded_thread(ctx: Context, root: Element, stats: dict[int, Stat]) -> Thread | None:
    """The comment thread closing the root (``signals.trailing_thread``), read before this stage removes
    anything, when its start is a line that says so ("Comments", "Have your say") and the comment system's
    controls follow it (``signals.interface_evidence``); else None.

    Why: remove_by_selector cuts such a thread from its start to the end of the root, but it runs after this
    stage, and the comment box's head (the count line with its "Add your comment" control, or the heading
    above the form) is a short, link-heavy block that this stage removes first. With the start gone, nothing
    was left to cut, and the rest of the box stayed: the system's help texts and login lines, a sort form. A
    start known by its name is left to remove_by_selector's name rules (a teaser's comment count named so
    inside a "Features" list is no thread start: this stage takes the list). Dates do not count as the
    controls: a "Comments" label in a toolbar followed by the article's dated schedule is not a thread."""
    found = trailing_thread(root, stats, ctx.core, ctx.is_protected)
    if found is None or found[1] not in ("heading", "bare heading") or not interface_evidence(found[2]):
        return None
    return found


def cut_thread(
    ctx: Context, thread: Thread, block: Element, stats: dict[int, Stat], root: Element, removed: set[int]
) -> None:
    """``block``, just removed, held the thread's start (``worded_thread``): the rest of the thread after it
    goes too, as remove_by_selector would have cut it."""
    start, kind, tail = thread
    why = f"comment thread: its {kind} went with a low-score block, and everything after it to the end"
    for n in tail:
        if n.parent is None or any(a is block for a in n.ancestors()):
            continue  # (gone with the block)
        if isinstance(n, Element):
            st = stats.get(n.nid)
            ctx.remove(n, SCORE, "comment-thread", why)
            removed.add(n.nid)
            if st is not None:
                shrink(stats, n, st, root)
        elif isinstance(n, Text) and n.data.strip():
            ctx.remove(n, SCORE, "comment-thread", why)


LIST_TAGS = frozenset({"ul", "ol"})


def link_post_lists(root: Element, stats: dict[int, Stat], root_units: int) -> set[int]:
    """The ids of the link lists under ``root`` and of their wrappers below it when those lists together are
    the article: a link post (a weekly roundup, "quickies") whose text is headlines.

    Each list alone is a "list of links", and a wrapper holding two of them "more list items than
    paragraphs"; a list holding over half of the root is kept (``MOST_OF_ROOT_SHAPE``), but a roundup split
    into its list and a "More:" list was removed piece by piece, and the post was declined. Outermost lists
    over ``LINK_DENSITY_LITTLE_TEXT`` that together hold ``LINK_POST_LIST_SHARE`` of the root, with items of
    ``LINK_POST_ITEM_UNITS`` on average (headlines, not a menu's words), are kept with the blocks holding
    them. A short post with a "Link love" or "Popular" list after it has its own paragraphs: the lists hold
    less of it, and go as before."""
    if not root_units:
        return set()
    lists: list[Element] = []
    total = items = 0
    stack = [c for c in root.element_children]
    while stack:
        e = stack.pop()
        if e.tag in LIST_TAGS:
            st = stats.get(e.nid)
            if st is not None and st.link_density > LINK_DENSITY_LITTLE_TEXT:
                lists.append(e)
                total += st.units
                items += st.list_items
            continue  # (a list inside a list is part of it)
        stack.extend(e.element_children)
    if total < LINK_POST_LIST_SHARE * root_units or total < LINK_POST_ITEM_UNITS * items:
        return set()
    out: set[int] = set()
    for e in lists:
        out.add(e.nid)
        for a in e.ancestors():
            if a is root or a.nid in out:
                break
            out.add(a.nid)
    return out


def thumbnail_list(el: Element, st: Stat) -> bool:
    """``el`` is a list of teaser cards with linked thumbnails (each picture in a link, and titles as
    words of the list's own). Once it is removed, its pictures are taken off its ancestors' image counts.

    The counts of the other removed blocks stay stale on purpose (see ``run``: the thresholds were tuned
    with "this wrapper held boilerplate" as evidence, and bringing every count up to date lowered
    l3s-gn1). But a "More to read" list set inside a how-to step or beside a gallery's label left its two
    thumbnails in the step's counts, and the step (one paragraph and its photo) went as an "image grid".
    A bar of icon links (share buttons: pictures without words) and a strip of unlinked photos keep
    counting."""
    if st.images < 2 or el.tag not in ("ul", "ol") or not normalize_space(el.text()):
        return False
    return all(
        any(a.tag == "a" for a in img.ancestors()) for img in el.iter(include_self=False) if img.tag == "img"
    )


def body_of_best(root: Element, core: frozenset[int], stats: dict[int, Stat]) -> set[int]:
    """The ids of the blocks under scoring's best element that hold most of its text
    (``BEST_BODY_SHARE``, each level measured against the best element) and an amount of prose of their own
    outside links (``PROSE_MIN_UNITS``, ``PROSE_MIN_MARKS``): the body of the post.

    The core (best element and its ancestors) is never removed by shape; when the root is wider than the
    best element (a split-article climb over the post's own wrappers), the post's body below it was judged
    against the whole root and could go as a widget: a photo post's body (its lines and six photos in one
    ``<div>``) went as an "image grid" and left only its first line. A gallery strip, a share row or a
    related list beside the body holds less than half of the post's text and is judged as before."""
    if root.nid not in core:
        return set()  # the root is not the best element or its ancestor (an explicit or learned choice)
    best = root
    while True:  # down the core to the best element
        nxt = next((c for c in best.element_children if c.nid in core), None)
        if nxt is None:
            break
        best = nxt
    whole = stats[best.nid].units if best.nid in stats else 0
    out: set[int] = set()
    cur = best
    while True:
        nxt = None
        for c in cur.element_children:
            st = stats.get(c.nid)
            if (
                st is not None
                and st.units > BEST_BODY_SHARE * whole
                and st.units - st.link_units >= PROSE_MIN_UNITS
                and st.marks >= PROSE_MIN_MARKS
            ):
                nxt = c
                break
        if nxt is None:
            return out
        out.add(nxt.nid)
        cur = nxt


SEE_ALSO_TAGS = frozenset({"ul", "ol", "div"})


def in_see_also_section(el: Element, index: SiblingIndex) -> bool:
    """``el`` (or the block it opens, two levels up at most) comes right after a "See also" heading: the
    nearest heading among the ``SEE_ALSO_LOOKBACK`` blocks before it says so. Wikipedia wraps the list in
    a multi-column ``<div>`` and may set a portal box between heading and list."""
    cur = el
    for _ in range(3):
        par = cur.parent
        if par is None:
            return False
        kids = par.children
        j = index(cur) - 1
        seen = 0  # element siblings read before ``cur``, nearest first
        while j >= 0 and seen < SEE_ALSO_LOOKBACK:
            h = kids[j]
            j -= 1
            if isinstance(h, Element):
                seen += 1
                if h.tag in HEADINGS:
                    return SEE_ALSO_HEADING.match(normalize_space(h.text())) is not None
        if seen:
            return False
        cur = par
    return False


def in_heading(el: Element) -> bool:
    """``el`` is an inline element inside a heading (through inline ancestors only). Headings are judged
    whole (remove_by_selector, normalize_output's title rules); a phrase of one is not a block, and judging
    it by link density takes words out of the heading (a wiki section's "[edit]" link, which Readability and
    its reader view keep, and the linked part of a heading)."""
    if el.tag not in INLINE_TAGS:
        return False
    block = enclosing_block(el)
    return block is not None and block.tag in HEADINGS


_SENTENCE_END = (".", "!", "?", "…")
_CLOSERS = "\"'”’)»"


def sentences_of_paragraph(el: Element, st: Stat) -> bool:
    """A ``<span>`` inside a ``<p>`` (through inline ancestors only) whose text ends a sentence, with a
    clause mark and ``SENTENCE_SPAN_MIN_UNITS`` of text outside links: the paragraph's own sentences.

    Blog editors wrap a whole paragraph in ``<span style="color: ...">``; its links (a post linking three
    recipes or three candidates) then judge that span like a widget, and the paragraph goes although
    paragraphs are never candidates here. A link row ("Filed under X, Y", "Read next: X") ends in no
    sentence mark, and a credit line ("Photos by A, B and C.") has too few words of its own. Spans only: old
    templates set an author note under the article in a ``<font>`` (l3s-gn1, one page down with it)."""
    if not st.marks or st.units - st.link_units < SENTENCE_SPAN_MIN_UNITS:
        return False
    block = enclosing_block(el)
    if block is None or block.tag != "p":
        return False
    return normalize_space(el.text()).rstrip(_CLOSERS).endswith(_SENTENCE_END)


AFTER_CLIMB_REASON = (
    "after the article's block, inside the wrapper the sections climb took, "
    "and not a continuation of its prose"
)


def trim_after_climb(ctx: Context, root: Element) -> None:
    """Remove the service boxes that follow the article's block inside the wrapper select_root's sections
    climb took as the root (``Context.sections_climb``).

    The climb (``select_root._sections``) takes the root up from the candidate while the candidate holds
    under ``PROSE_SHARE_TO_CLIMB`` of an ancestor's prose: the article split across sibling blocks. The
    wrapper it reaches also holds what the template sets after the article: share and "more from" boxes,
    newsletter asks, ad slots, reader comments, short link lists, job and product listings. What the shape
    rules above leave of them goes here, at every level from the candidate up to the wrapper, unless it
    continues the article (``continues_article``), is an ``<article>`` (or holds one), is named as
    boilerplate (remove_by_selector's rules take it, and its trailing-thread cut needs it), is protected or
    a data table, has no text (a picture is left to the media rules), or is a cell beside a candidate that is
    itself a table cell. Blocks before the candidate (headline, byline, lead) are not touched, and the walk
    stops at the comment thread that remove_by_selector will cut (``signals.trailing_thread``):
    that cut takes the thread and everything after it, and needs the thread's heading and items to
    recognise it (removing them here first left a long comment that reads as prose).

    The cells beside a candidate cell are the row's other columns, not boxes after the article: a site
    menu column beside the story cell is in readability-dev's gold (hukumusume 0.815 -> 0.476 without this
    guard). It is fitted to that one page: keeping every cell beside any cell of the candidate's chain
    lowered l3s-gn1 (four pages whose column of ads and station boxes follows the story's cell), so it
    stays narrow."""
    climb = ctx.sections_climb
    if climb is None:
        return
    cand, wrapper = climb
    chain: list[Element] = []  # the candidate and its ancestors below the wrapper
    cur: Element | None = cand
    while cur is not wrapper:
        if cur is None:
            return  # the candidate left the wrapper (replaced by an earlier stage)
        chain.append(cur)
        cur = cur.parent
    if not wrapper.within(root):
        return
    stats = ctx.measure(root)
    thread = trailing_thread(root, stats, ctx.core, ctx.is_protected)
    for inner in chain:
        parent = inner.parent
        assert parent is not None
        kids = parent.children
        beside_cell = inner is cand and parent.tag == "tr"
        for sib in kids[kids.index(inner) + 1 :]:
            if sib.__class__ is not Element:
                continue
            assert isinstance(sib, Element)
            if thread is not None and thread[0].within(sib):
                return  # the comment thread remove_by_selector cuts, with everything after it
            st = stats.get(sib.nid)
            if st is None or st.units == 0 or (beside_cell and sib.tag in ("td", "th")):
                continue
            if sib.nid in ctx.core or sib.nid in ctx.lead or ctx.is_protected(sib):
                continue
            if sib.tag == "table" and ctx.table_kind(sib) == "data":
                continue
            if continues_article(sib, st) or holds_article(sib) or names_boilerplate(sib, st):
                continue
            ctx.remove(sib, SCORE, "after-climbed-candidate", AFTER_CLIMB_REASON)


def continues_article(el: Element, st: Stat) -> bool:
    """``el``, after the article's block, carries on its text: a section that reads as prose
    (``reads_as_prose``), or a paragraph of its own (a ``<p>``, or a block whose own text runs carry
    ``SIBLING_PROSE_UNITS``: a "continue reading" part written with ``<br>``s) that passes the sibling
    step's prose test (``SIBLING_PROSE_UNITS`` of text, under ``SIBLING_PROSE_LINK_DENSITY`` links,
    ``SIBLING_PROSE_MARKS`` clauses). A comment table, a job or product listing or a row of labels has
    its text in cells and items, not in a paragraph of its own."""
    if not reads_as_prose(st) and not (
        st.link_density < SIBLING_PROSE_LINK_DENSITY and paragraph_worth(st.units, st.marks)
    ):
        return False
    if el.tag == "p" or (st.paragraphs and reads_as_prose(st)):
        return True
    return sum(text_units(c.data) for c in el.children if isinstance(c, Text)) > SIBLING_PROSE_UNITS


def introduced_list(el: Element, stats: dict[int, Stat]) -> bool:
    """``el`` (a list) sits inside the article's prose: the element right before it is a ``<p>`` holding a
    sentence that introduces it (``LIST_INTRO_MIN_UNITS``, under ``SIBLING_PROSE_LINK_DENSITY`` links), the
    article goes on after it (a later sibling is a paragraph by the sibling step's test), and every item
    says something of its own beside its link ("Title – 15.7%", "Get it for $40"): the post's list of
    examples, not a teaser list (headlines only) or a "Related" list closing the post."""
    parent = el.parent
    if parent is None:
        return False
    sibs = parent.element_children
    i = sibs.index(el)
    if i == 0:
        return False
    intro = sibs[i - 1]
    st = stats.get(intro.nid)
    if (
        intro.tag != "p"
        or st is None
        or st.units < LIST_INTRO_MIN_UNITS
        or st.link_density > SIBLING_PROSE_LINK_DENSITY
        or not st.marks
    ):
        return False
    items = [c for c in el.element_children if c.tag == "li"]
    if len(items) < 2 or any(not _ANNOTATION.search(" ".join(texts_outside_links(li))) for li in items):
        return False
    for later in sibs[i + 1 :]:
        ls = stats.get(later.nid)
        if later.tag == "p" and ls is not None and continues_article(later, ls):
            return True
    return False


_ANNOTATION = re.compile(r"\w")
# the verdicts ``introduced_list`` answers: the list's links ("list of links", "link density ...")
LINK_LIST_VERDICTS = ("list of links", "link density")
# Verdicts on a group of links, cards or pictures: the short line above such a group is its label.
GROUP_VERDICTS = ("list of links", "link density", "teaser group", "image grid", "promotional teaser")
_LABEL_END = re.compile(r"[.!?。！？…][\"'”’)\]]*\s*$")
_LABEL_TAGS = HEADINGS | {"p", "div", "span", "strong", "b", "em", "dt"}


def label_of_last_group(el: Element) -> Element | None:
    """The label line above ``el`` (a group about to be removed), when ``el`` is the last content of its
    parent: the nearest element before it (white space and line breaks skipped) is a heading or a short
    line (``LABEL_MAX_WORDS`` words or fewer, no sentence end, no picture but an icon, no block inside)
    and nothing but white space, line breaks and empty elements follows ``el``. "Latest", "In pictures",
    "More on this story" name the group; with the group gone they name nothing (a heading whose section
    goes on after the group stays: the group is then not its section's last content)."""
    parent = el.parent
    if parent is None:
        return None
    kids = parent.children
    at = kids.index(el)
    for k in kids[at + 1 :]:
        if k.__class__ is Text:
            if k.data.strip():
                return None
        elif isinstance(k, Element) and k.tag not in CARD_SEPARATORS and (k.text().strip() or k.find("img")):
            return None
    i = at - 1
    while i >= 0:
        k = kids[i]
        if k.__class__ is Text and not k.data.strip():
            i -= 1
        elif isinstance(k, Element) and k.tag in CARD_SEPARATORS:
            i -= 1
        else:
            break
    lab = kids[i] if i >= 0 else None
    if not isinstance(lab, Element):
        return None
    if lab.tag in INLINE_TAGS and el.tag in INLINE_TAGS:
        return None  # spans on one line (a byline's "Posted by" before its removed time): no label line
    if lab.tag not in _LABEL_TAGS or any(d.tag == "img" and not _glyph_sized(d) for d in lab.iter()):
        return None  # (an icon before the label's words is its glyph)
    if any(d.tag in BLOCK_TAGS for d in lab.iter(include_self=False)):
        return None
    text = lab.text().strip()
    if not text or len(text.split()) > LABEL_MAX_WORDS or _LABEL_END.search(text):
        return None
    return lab


def holds_article(el: Element) -> bool:
    """``el`` is or holds an ``<article>`` element: the page marks it as an article of its own."""
    return el.tag == "article" or any(e.tag == "article" for e in el.iter(include_self=False))
