"""Every rule table in one place, built once (as Readability's REGEXPS), each rule a ``Rule`` record.

A rule is data: an ``id`` (what the removal log's ``rule`` field says, stable across releases), what it
``match``es (a compiled selector, a set of class/id tokens, a regular expression or a predicate), an optional
``guard`` (a callable that spares a matching block, e.g. one that reads as prose) and a ``reason`` in words.
Stages apply the tables; no rule is a string interpreted elsewhere, and no id is parsed back from a reason.

Class/id patterns match whole *tokens* of a class or id (split on ``-``, ``_``, spaces and camelCase), never
substrings: ``share`` matches ``share-bar`` but not ``shareholder``; ``ad`` matches ``ad-slot`` but not
``adventure`` or ``header``. Over-broad selectors are the top defect class in this field, so every rule here
fires on a fixture and has a look-alike fixture where legitimate content survives (tests/test_rules.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Generic, TypeVar

from .dom import Element, Node, Text, normalize_space
from .measure import Stat
from .selectors import Pred, compile_selector
from .textstats import BLOCK_TAGS, text_units
from .thresholds import (
    BIO_BOX_MAX_UNITS,
    ICON_MAX,
    PHRASE_BLOCK_MAX_NODES,
    PHRASE_CONTEXT_MARKS,
    PHRASE_CONTEXT_UNITS,
    PHRASE_LINE_MAX_NODES,
    PHRASE_NEIGHBOUR_PARAGRAPHS,
    PHRASE_SHORT_LINE_MAX_LINKS,
    PHRASE_SIBLINGS_MAX,
    PIXEL_MAX,
    PROSE_MAX_LINK_DENSITY,
    PROSE_MIN_MARKS,
    PROSE_MIN_UNITS,
    PROSE_UNITS_WITHOUT_PARAGRAPH,
    QUOTED_POST_MIN_UNITS,
    SIBLING_PROSE_MARKS,
    SIBLING_PROSE_UNITS,
    THREAD_MIN_ITEMS,
)

M = TypeVar("M")
# A guard spares a block the rule matched: True means "keep it" (it reads as prose, it is a byline span...).
Guard = Callable[[Element, Stat], bool]


@dataclass(frozen=True)
class Rule(Generic[M]):
    """One rule: ``id`` is logged as the removal's ``rule``; ``guard`` (if any) spares a matching block."""

    id: str
    match: M
    reason: str
    guard: Guard | None = None


# --- scoring: class/id tokens that raise or lower a candidate's weight --------------------------------------
POSITIVE_TOKENS = frozenset(
    """article body content entry hentry h-entry main page post text blog story prose markdown
    articlebody storybody postbody entrycontent rich""".split()
)
NEGATIVE_TOKENS = frozenset(
    """hidden banner combx comment comments com contact foot footer footnote masthead media meta outbrain
    promo promoted related scroll share shoutbox sidebar skyscraper sponsor sponsored shopping tags tool
    widget nav navbar navigation menu breadcrumb breadcrumbs pagination pager social newsletter subscribe
    signup advert advertisement ad ads byline author dateline cookie popup modal recirc recommended
    trending teaser teasers""".split()
)
# Blocks never worth scoring as article candidates (still kept if they end up inside the root).
UNLIKELY_TOKENS = frozenset(
    """banner breadcrumbs breadcrumb combx comment comments community cover disqus extra footer gdpr header
    legends menu related remark replies rss shoutbox sidebar skyscraper social sponsor supplemental
    ad ads advert agegate pagination pager popup yom-remote nav navbar navigation cookie consent
    newsletter subscribe signup share sharing recirc recommended trending promo outbrain taboola
    rodape cabecalho fusszeile kopfzeile kommentare comentarios commentaires reacties werbung anzeige
    publicidad publicidade publicite relacionados verwandte similaires""".split()
)
COMMENT_TOKENS = frozenset(
    {
        "comment",
        "comments",
        "commentlist",
        "disqus",
        "replies",
        "respond",
        "discussion",
        "kommentare",
        "comentarios",
        "commentaires",
        "reacties",
    }
)
MAYBE_TOKENS = frozenset("and article body column content main shadow story post entry".split())
# The heading of an author's box ("About me", "About the author"): such a block is never the article
# (select_root._bio_box) and goes from inside it (remove_by_selector.headed_bio_box), unless the page itself
# is about them.
BIO_HEADING = re.compile(r"^(about (me|the author|the blogger|this blog|us)|(the )?author)\W*$", re.I)


def bio_headed(el: Element, title: str, heading_tags: frozenset[str]) -> bool:
    """``el``'s first element child is a heading (a tag of ``heading_tags``) saying "About me" / "About the
    author" (``BIO_HEADING``), and the page is not the one about them: the heading is not in ``title`` (the
    page's title, normalized and lower-cased). Asked of every element scoring walks: no child list made."""
    first: Element | None = None
    for c in el.children:
        if isinstance(c, Element):
            first = c
            break
    if first is None or first.tag not in heading_tags:
        return False
    heading = normalize_space(first.text())
    return bool(BIO_HEADING.match(heading)) and heading.lower() not in title


UNLIKELY_ROLES = frozenset(
    "menu menubar complementary navigation alert alertdialog dialog banner contentinfo search".split()
)


# --- guards (shared with remove_low_score through signals.py) -----------------------------------------------
def reads_as_prose(st: Stat) -> bool:
    """Several clauses, low link density and a real amount of text: a section of the article."""
    return (
        st.units >= PROSE_MIN_UNITS
        and st.marks >= PROSE_MIN_MARKS
        and st.link_density < PROSE_MAX_LINK_DENSITY
        and (st.paragraphs >= 1 or st.units >= PROSE_UNITS_WITHOUT_PARAGRAPH)
    )


def paragraph_worth(units: int, marks: int) -> bool:
    """Text of ``units`` with ``marks`` clauses reads as a paragraph by the sibling step's test
    (``SIBLING_PROSE_UNITS``, ``SIBLING_PROSE_MARKS``): a post's own writing or a ``<br>`` line of prose,
    not a label, a caption or a form's heading. One test, so the stages that count such runs agree."""
    return units > SIBLING_PROSE_UNITS and marks >= SIBLING_PROSE_MARKS


THREAD_TOKENS = frozenset({"comment", "comments", "reply", "replies", "avatar", "vcard", "says", "permalink"})


def looks_like_thread(el: Element) -> bool:
    """Two or more repeated items (li, article, comment-classed blocks) or reply/avatar markup."""
    items = 0
    for e in el.iter(include_self=False):
        toks = tokens_of(e.get("class") + " " + e.get("id"))
        if (
            toks & THREAD_TOKENS
            or e.tag in ("li", "article")
            and e.parent is not None
            and e.parent.tag != "ol"
        ):
            items += 1
        if e.tag in ("form", "textarea", "time"):
            items += 1
        if items >= THREAD_MIN_ITEMS:
            return True
    return False


def _unless_prose(el: Element, st: Stat) -> bool:
    """The same words name real sections ("Related work"): a block reading as prose stays."""
    return reads_as_prose(st)


def _unless_prose_or_quoted_post(el: Element, st: Stat) -> bool:
    """A block reading as prose stays (``_unless_prose``), and so does one holding a quoted post: an
    embedded tweet, Instagram or Facebook post is a ``<blockquote>`` of someone's words, and its wrapper is
    often named for the network (``social-media-embed``, ``social-post``), which the share-bar tokens take.
    A share bar holds links and buttons, never a quotation."""
    return reads_as_prose(st) or quotes_a_post(el)


def quotes_a_post(el: Element) -> bool:
    """``el`` is or holds a ``<blockquote>`` with ``QUOTED_POST_MIN_UNITS`` of text outside links."""
    for q in el.iter():
        if q.tag == "blockquote" and _units_outside_links(q) >= QUOTED_POST_MIN_UNITS:
            return True
    return False


def _units_outside_links(el: Element) -> int:
    return sum(text_units(t) for t in texts_outside_links(el))


def texts_outside_links(el: Element) -> Iterator[str]:
    """The texts of ``el`` that no ``<a>`` holds (``el`` itself aside): its own words beside its links."""
    return (
        n.data
        for n in el.iter_nodes()
        if isinstance(n, Text) and not any(a.tag == "a" for a in n.ancestors() if a is not el)
    )


def _unless_prose_section(el: Element, st: Stat) -> bool:
    """ "comment-on-method" is a section of the article, not a comment thread: prose without thread markup."""
    return reads_as_prose(st) and not looks_like_thread(el)


def _unless_essay_or_attribution(el: Element, st: Stat) -> bool:
    """A long block about the author is an essay, and an author line inside a quotation is the quote's
    attribution ("— name", also in an embedded post). Any other block named for the author goes whatever
    its tag: a bio paragraph (``<p class="bio">``, "X is a reporter for Y.") and a byline
    (``<p class="author">``, "by X in Y", "Written by X, edited by Y") are out of the golds of scrapinghub,
    l3s-gn1 and readability-dev (Readability.js takes an author-named element as the byline and removes it
    from the text); dragnet-dev keeps bylines on some blogs and leaves out bios (its pages go both ways,
    more up than down)."""
    return st.units > BIO_BOX_MAX_UNITS or any(a.tag == "blockquote" for a in el.ancestors())


def _unless_title_block_or_prose(el: Element, st: Stat) -> bool:
    """Only header/footer-like containers go; one holding the <h1> or reading as prose is the article's."""
    if el.tag not in ("header", "footer", "div", "section", "aside"):
        return True
    return reads_as_prose(st) or bool(st.headings and el.find("h1") is not None)


INLINE_TAGS = frozenset(
    "a abbr b bdi cite code dfn em font i kbd mark q s samp small span strong sub sup time u var".split()
)


# Commas and sentence ends of any script; not colons (times and labels: "Posted 10:25am by").
_SENTENCE_MARK = re.compile(r"[,،、，;；]|[.!?。！？](?=\s|$)|[。！？]")


def enclosing_block(node: Node) -> Element | None:
    """The nearest ancestor of ``node`` that is not an inline element (``INLINE_TAGS``): the block whose
    line ``node`` is on."""
    block = node.parent
    while block is not None and block.tag in INLINE_TAGS:
        block = block.parent
    return block


def phrase_in_prose(el: Element) -> bool:
    """An inline element inside a sentence: its line (in the nearest block, one holding no further blocks;
    lines end at ``<br>``) has sentence text of its own outside links and ``el``.

    Class/id token rules are written for blocks (an overlay, a share bar); on a phrase in the middle of a
    sentence (``<a class="popup">the full report</a>``) removing the phrase breaks the sentence. A share row
    of links or a lone "Subscribe" span has no such text around it and still goes.
    """
    if el.tag not in INLINE_TAGS or _contact_link(el):
        return False
    block = enclosing_block(el)
    if block is None:
        return False
    # A paragraph is small: reading at most PHRASE_BLOCK_MAX_NODES nodes keeps this linear per element (a body
    # of 10,000 sibling spans would otherwise be read once per span). A bigger block (a book chapter written
    # straight into one table cell between <br>s) is read only around the phrase, on its own line.
    nodes = (
        list(islice(block.iter_nodes(), PHRASE_BLOCK_MAX_NODES + 1))
        if len(block.children) < PHRASE_BLOCK_MAX_NODES
        else None
    )
    if nodes is None or len(nodes) > PHRASE_BLOCK_MAX_NODES:
        line = _line_among_siblings(el, block)
        if line is None:
            return False
        before, after = line
    elif any(isinstance(n, Element) and n is not block and n.tag in BLOCK_TAGS for n in nodes):
        return False  # a container of blocks, not a paragraph: its other text is not this phrase's sentence
    else:
        before, after = _line_around(el, block, nodes)
    if not after.strip() and before.rstrip().endswith((".", "!", "?", "。", "！", "？")):
        return False  # after the last sentence of the line: an appended "Continued..." link, not a phrase
    text = before + " " + after
    units = text_units(text)
    if el.find("img") is not None:
        return False
    if units >= PHRASE_CONTEXT_UNITS and len(_SENTENCE_MARK.findall(text)) >= PHRASE_CONTEXT_MARKS:
        return text_units(el.text()) <= units  # a phrase, not a hover card or link list beside a short line
    return nodes is not None and _short_line_in_prose(block, text, el)


# A paragraph's text ends a sentence: its last mark, maybe before closing quotes or brackets.
_ENDS_SENTENCE = re.compile(r"[.!?。！？…][\"'”’»)\]]*\s*$")


def _short_line_in_prose(block: Element, around: str, el: Element) -> bool:
    """A short paragraph of running prose (a line of dialogue, a one-sentence paragraph) holding the phrase:
    the block is a ``<p>`` that ends a sentence, the phrase has words of the sentence beside it (``around``,
    outside links: not only punctuation), and one of the ``PHRASE_NEIGHBOUR_PARAGRAPHS`` nearest paragraphs
    on either side (a dialogue runs several short lines) is prose in its own right (``PHRASE_CONTEXT_UNITS``
    of text with a sentence mark). Removing the phrase would break that sentence,
    and the class rule would leave the rest of the line anyway. A share row or a "Sign up" line has no
    sentence end of its own, and a lone linked sentence has no words beside it. A line with another link
    beside the phrase needs ``PHRASE_CONTEXT_UNITS`` of words outside links (a span's own among them): a
    dialogue line carries one note, while a post's meta line offers actions ("Post a comment or leave a
    trackback: Trackback URL.")."""
    if block.tag != "p" or not any(ch.isalpha() for ch in around):
        return False
    if _links_beside(block, el) > PHRASE_SHORT_LINE_MAX_LINKS:
        own = around if el.tag == "a" else around + " " + " ".join(texts_outside_links(el))
        if text_units(own) < PHRASE_CONTEXT_UNITS:
            return False
    if not _ENDS_SENTENCE.search(block.text()):
        return False
    parent = block.parent
    if parent is None or len(parent.children) > PHRASE_SIBLINGS_MAX:
        return False
    kids = parent.children
    at = kids.index(block)
    for step in (-1, 1):  # the nearest paragraphs on each side (white space between them skipped)
        i, seen = at + step, 0
        while 0 <= i < len(kids) and seen < PHRASE_NEIGHBOUR_PARAGRAPHS:
            sib = kids[i]
            i += step
            if sib.__class__ is Text and not sib.data.strip():
                continue
            if not isinstance(sib, Element) or sib.tag != "p":
                break  # the run of paragraphs ends here
            seen += 1
            t = sib.text()
            if text_units(t) >= PHRASE_CONTEXT_UNITS and _SENTENCE_MARK.search(t):
                return True
    return False


def _links_beside(block: Element, el: Element) -> int:
    """The links of ``block`` outside ``el`` (a hover card's own links are the phrase's)."""
    return sum(
        1
        for n in block.iter_nodes()
        if isinstance(n, Element) and n.tag == "a" and n is not el and not any(a is el for a in n.ancestors())
    )


def _line_among_siblings(el: Element, block: Element) -> tuple[str, str] | None:
    """The text before and after ``el`` on its line in a block too big to read whole, read from its
    neighbours (outside links): the line ends at a ``<br>`` or a block on either side. At most
    ``PHRASE_LINE_MAX_NODES`` nodes are read each way (a line that long has its sentence), so the cost per
    phrase is bounded. None when ``block`` has more than ``PHRASE_SIBLINGS_MAX`` children (not searched for
    ``el``) or an inline element holding ``el`` also holds a block."""
    if len(block.children) > PHRASE_SIBLINGS_MAX:
        return None
    top = el
    while top.parent is not block:
        if top.parent is None:
            return None
        top = top.parent
    before: list[str] = []
    after: list[str] = []
    if top is not el:  # the text around el in the inline element holding it (``<font>… <a>x</a> …</font>``)
        line = before
        for n in islice(top.iter_nodes(), PHRASE_LINE_MAX_NODES):
            if n is el:
                line = after
            elif isinstance(n, Element) and n.tag in BLOCK_TAGS:
                return None
            elif isinstance(n, Text) and not _inside_link_or(n, el, block):
                line.append(n.data)
    kids = block.children
    at = kids.index(top)  # (at most PHRASE_SIBLINGS_MAX children, searched at C speed)
    left = _side_of_line(reversed(kids[max(0, at - PHRASE_LINE_MAX_NODES) : at]))
    right = _side_of_line(kids[at + 1 : at + 1 + PHRASE_LINE_MAX_NODES])
    return " ".join([*reversed(left), *before]), " ".join([*after, *right])


def _side_of_line(siblings: Iterable[Node]) -> list[str]:
    """The texts of ``siblings`` (walking away from a phrase) up to the first ``<br>`` or block, outside
    links, in walking order; at most ``PHRASE_LINE_MAX_NODES`` nodes read, nested ones included."""
    out: list[str] = []
    budget = PHRASE_LINE_MAX_NODES
    for n in siblings:
        if isinstance(n, Text):
            out.append(n.data)
            budget -= 1
        elif isinstance(n, Element):
            if n.tag == "br" or n.tag in BLOCK_TAGS:
                break
            inner = list(islice(n.iter_nodes(), budget + 1))
            budget -= len(inner)
            if budget < 0 or any(isinstance(e, Element) and e.tag in BLOCK_TAGS for e in inner):
                break  # (an inline element holding a block: the line ends there)
            if n.tag != "a":
                out.extend(t.data for t in inner if isinstance(t, Text) and not t.under_tag(LINK_TAG, n))
        if budget <= 0:
            break
    return out


LINK_TAG = frozenset({"a"})  # a phrase line's words inside a link are the link's, not the line's


def _contact_link(el: Element) -> bool:
    """A ``mailto:`` link is contact data, which the author-contact rule treats as boilerplate too."""
    links = [el] if el.tag == "a" else [a for a in el.iter(include_self=False) if a.tag == "a"]
    return any(a.get("href").strip().lower().startswith("mailto:") for a in links)


def _line_around(el: Element, block: Element, nodes: list[Node]) -> tuple[str, str]:
    """The text before and after ``el`` on its line in ``block`` (``nodes``: the block's nodes in order;
    lines end at ``<br>``), outside links."""
    before: list[str] = []
    after: list[str] = []
    line = before
    for n in nodes:
        if isinstance(n, Element):
            if n is el:
                line = after
            elif n.tag == "br" and not any(a is el for a in n.ancestors()):
                if line is after:
                    break
                before.clear()
            continue
        if isinstance(n, Text) and n.data.strip() and not _inside_link_or(n, el, block):
            line.append(n.data)
    return " ".join(before), " ".join(after)


def _inside_link_or(n: Text, el: Element, block: Element) -> bool:
    """``n`` sits in ``el`` or in a link, below ``block``."""
    for a in n.ancestors():
        if a is block:
            return False
        if a is el or a.tag == "a":
            return True
    return False


# --- remove_by_selector ----------------------------------------------------------------------------------
def _exact(selector: str, reason: str) -> Rule[Pred]:
    return Rule(selector, compile_selector(selector), reason)


# Exact selectors: structural boilerplate whose meaning is certain. The id is the selector.
EXACT_RULES: tuple[Rule[Pred], ...] = (
    _exact("nav", "navigation element"),
    _exact("[role=navigation]", "ARIA navigation landmark"),
    _exact("[role=complementary]", "ARIA complementary landmark (sidebar)"),
    _exact("[role=dialog]", "dialog"),
    _exact("[role=alertdialog]", "alert dialog"),
    _exact("[role=banner]", "ARIA banner landmark"),
    _exact("[role=contentinfo]", "ARIA contentinfo landmark (site footer)"),
    _exact("form", "form (search, login, newsletter)"),
    _exact("button", "button"),
    _exact("input", "form control"),
    _exact("select", "form control"),
    _exact("textarea", "form control"),
    _exact("[itemprop=comment]", "schema.org comment"),
    _exact("footer", "<footer> of the article or page (tags, author box, comment policy)"),
    _exact("[data-ad-slot]", "ad slot"),
    _exact("ins.adsbygoogle", "ad slot"),
)

# Partial class/id token patterns: a block whose class or id has one of the tokens, unless its guard
# spares it.
PARTIAL_RULES: tuple[Rule[frozenset[str]], ...] = (
    Rule(
        "share",
        frozenset({"share", "sharebar", "shares", "sharetools", "sharing", "social", "socials"}),
        "share/social bar",
        _unless_prose_or_quoted_post,
    ),
    Rule(
        "newsletter",
        frozenset({"newsletter", "optin", "signup", "subscribe", "subscription"}),
        "newsletter or subscription ask",
        _unless_prose,
    ),
    Rule(
        "comments",
        frozenset(
            {
                "comentarios",
                "comment",
                "commentaires",
                "commentlist",
                "comments",
                "disqus",
                "kommentare",
                "reacties",
                "replies",
                "respond",
            }
        ),
        "comments section",
        _unless_prose_section,
    ),
    Rule(
        "related",
        frozenset(
            {
                "morestories",
                "outbrain",
                "readnext",
                "recirc",
                "recommendations",
                "recommended",
                "related",
                "taboola",
                "trending",
            }
        ),
        "related or recommended stories",
        _unless_prose,
    ),
    Rule(
        "ads",
        frozenset(
            {
                "ad",
                "ads",
                "adslot",
                "adunit",
                "advert",
                "advertisement",
                "anzeige",
                "dfp",
                "gpt",
                "publicidad",
                "publicidade",
                "publicite",
                "sponsor",
                "sponsored",
                "werbung",
            }
        ),
        "advertisement",
    ),
    Rule(
        "promo",
        frozenset({"cta", "paywall", "promo", "promoted", "promotion", "teaser", "upsell"}),
        "promotion or teaser",
        _unless_prose,
    ),
    Rule("cookie-consent", frozenset({"consent", "cookie", "cookies", "gdpr"}), "cookie or consent banner"),
    Rule("popup", frozenset({"lightbox", "modal", "overlay", "popup"}), "pop-up or modal", _unless_prose),
    Rule("navigation-aid", frozenset({"breadcrumb", "breadcrumbs", "pager", "pagination"}), "navigation aid"),
    Rule("sidebar-widget", frozenset({"sidebar", "widget", "widgets"}), "sidebar widget", _unless_prose),
    Rule("page-tools", frozenset({"print", "toolbar", "tools"}), "page tools", _unless_prose),
    Rule("skip-link", frozenset({"skip", "skiplink", "skiplinks"}), "skip link"),
    # ai2html (a newsroom tool that exports an Illustrator chart as HTML) lays the chart's text over its
    # image as absolutely positioned labels, once per artboard (one per screen width): without the page's
    # CSS they read as a run of axis numbers repeated two or three times ("$915 billion 600 300 0 17 18
    # ..."). Readability drops the box by this name too (its unlikely-candidate pattern).
    Rule("chart-labels", frozenset({"ai2html"}), "infographic label layer (ai2html chart export)"),
    Rule("ticker", frozenset({"breakingnews", "marquee", "newsticker", "ticker"}), "news ticker"),
    Rule(
        "author-bio",
        # "authorinfo" is the one joined form of a rule word that names only boilerplate on the five sets (bio
        # boxes, a byline list, a comment form's name fields: 68 kept shingles, none gold); other joined forms
        # name the article's own containers ("commentbody", "sidebars", "pageheader", "authored"), see the
        # README's class-name section, so tokens are not split into dictionary words.
        frozenset({"aboutauthor", "author", "authorbio", "authorbox", "authorinfo", "bio"}),
        "author bio box",
        _unless_essay_or_attribution,
    ),
    Rule("tag-list", frozenset({"categories", "tagcloud", "taglist", "tags"}), "tag list", _unless_prose),
    Rule(
        "page-header-footer",
        frozenset({"footer", "header", "masthead"}),
        "page header or footer",
        _unless_title_block_or_prose,
    ),
)

# --- resolve_deferred: plugin objects ----------------------------------------------------------------------
# An <object> shows its data only when the browser renders that type itself; for anything else (Flash,
# Java, Silverlight, any ActiveX classid: no browser runs plugins since 2021) it shows the object's fallback
# content instead, and that is what a reader sees (often a poster image and the video's description).
OBJECT_NATIVE_TYPES = re.compile(r"^(image/|text/|application/(xhtml\+xml|pdf|xml)$)", re.I)
OBJECT_NATIVE_EXTENSIONS = re.compile(
    r"\.(png|jpe?g|gif|webp|avif|svg|bmp|ico|html?|xhtml|txt|pdf)(\?.*)?$", re.I
)

# --- remove_hidden_and_tiny_media -------------------------------------------------------------------------
# Hidden elements, in the order they are checked: layout from the live DOM wins over attributes and styles.
_DISPLAY_NONE = re.compile(r"display\s*:\s*none", re.I)
_VIS_HIDDEN = re.compile(r"visibility\s*:\s*(hidden|collapse)", re.I)


def _computed(prop: str, *values: object) -> Callable[[Element], bool]:
    def match(el: Element) -> bool:
        return bool(el.layout) and el.layout is not None and el.layout.get(prop) in values

    return match


def _hidden_attribute(el: Element) -> bool:
    return "hidden" in el.attrs and el.get("hidden").lower() != "until-found"


def _aria_hidden_block(el: Element) -> bool:
    """aria-hidden on icons and presentational math duplicates is handled elsewhere; on blocks with text it
    marks closed dialogs and duplicates that are not shown to readers (but see ``PULL_QUOTE_TOKENS``)."""
    if el.get("aria-hidden") != "true" or el.tag in ("svg", "span", "i", "img", "math"):
        return False
    return text_units(el.text()) > 0 and el.find("math") is None


# A pull quote repeats a line of the article in large type beside it: sites mark it aria-hidden so that screen
# readers do not read the line twice, but every sighted reader sees it (a visible pull quote is kept too), so
# remove_hidden_and_tiny_media keeps one that only that rule would remove.
PULL_QUOTE_TOKENS = frozenset({"pullquote", "pullquotes"})


HIDDEN_RULES: tuple[Rule[Callable[[Element], bool]], ...] = (
    Rule("computed:display-none", _computed("display", "none"), "computed display:none"),
    Rule(
        "computed:visibility-hidden",
        _computed("visibility", "hidden", "collapse"),
        "computed visibility:hidden",
    ),
    Rule("computed:opacity-0", _computed("opacity", 0, "0"), "computed opacity:0"),
    Rule("[hidden]", _hidden_attribute, "hidden attribute"),
    Rule(
        "[style*=display:none]",
        lambda el: bool(_DISPLAY_NONE.search(el.get("style"))),
        "inline style display:none",
    ),
    Rule(
        "[style*=visibility:hidden]",
        lambda el: bool(_VIS_HIDDEN.search(el.get("style"))),
        "inline style visibility:hidden",
    ),
    Rule("[aria-hidden=true]", _aria_hidden_block, "aria-hidden block"),
)

# Media that carries nothing. ``match`` gets the element and its size (None when unknown); ``reason`` is a
# template filled with the size.
ICON_TOKENS = frozenset(
    {"icon", "icons", "ico", "emoji", "avatar", "logo", "sprite", "glyph", "badge", "spinner"}
)
TRACKER_URL = re.compile(
    r"(pixel|beacon|tracking|track|analytics|doubleclick|/b/ss/|scorecardresearch|facebook\.com/tr|\.gif\?)",
    re.I,
)


def _num(v: str) -> float | None:
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*(px)?\s*$", v or "")
    return float(m.group(1)) if m else None


def media_size(el: Element) -> tuple[float | None, float | None]:
    """The image's size: declared (``width``/``height`` attributes, inline style) first, then the live box.

    Why declared first: a live page measures a broken or blocked image as the browser's 16×16 placeholder,
    so a tracking pixel declared ``width="1"`` would look like an icon there and survive, while CPython (no
    layout) removes it; the author's declared size is the same in every runtime.
    """
    w, h = _num(el.get("width")), _num(el.get("height"))
    style = el.get("style")
    if style:
        mw = re.search(r"(?<![-\w])width\s*:\s*(\d+(?:\.\d+)?)px", style)
        mh = re.search(r"(?<![-\w])height\s*:\s*(\d+(?:\.\d+)?)px", style)
        w = float(mw.group(1)) if mw else w
        h = float(mh.group(1)) if mh else h
    lay = el.layout
    if lay and lay.get("w") is not None:
        w = w if w is not None else float(lay["w"])
        h = h if h is not None else float(lay["h"])
    return w, h


SizeMatch = Callable[[Element, float | None, float | None], bool]


def _pixel(el: Element, w: float | None, h: float | None) -> bool:
    return w is not None and h is not None and w <= PIXEL_MAX and h <= PIXEL_MAX


def _tracker(el: Element, w: float | None, h: float | None) -> bool:
    thin = (w is not None and w <= PIXEL_MAX) or (h is not None and h <= PIXEL_MAX)
    return el.tag == "img" and thin and bool(TRACKER_URL.search(el.get("src"))) and not el.get("alt")


def _small_icon(el: Element, w: float | None, h: float | None) -> bool:
    if w is None or h is None or w > ICON_MAX or h > ICON_MAX:
        return False
    toks = tokens_of(el.get("class") + " " + el.get("id"))
    return bool(toks & ICON_TOKENS) or el.tag == "svg" or "icon" in el.get("src").lower()


def _svg_icon(el: Element, w: float | None, h: float | None) -> bool:
    return (
        el.tag == "svg" and w is None and bool(tokens_of(el.get("class") + " " + el.get("id")) & ICON_TOKENS)
    )


TINY_RULES: tuple[Rule[SizeMatch], ...] = (
    Rule("tracking-pixel", _pixel, "tracking pixel ({w:g}×{h:g})"),
    Rule("tracking-pixel-url", _tracker, "tracking pixel"),
    Rule("icon", _small_icon, "icon ({w:g}×{h:g})"),
    Rule("icon-svg-class", _svg_icon, "icon (svg with icon class)"),
)

# --- remove_by_pattern: whole-block boilerplate text ----------------------------------------------------
# Matched against the normalized text of short blocks only (see MAX_PATTERN_BLOCK); a sentence using these
# words inside a long paragraph is never touched. The whole block must match.
# One tool of an old news template's tool row (page-tool-label): print, send or e-mail the story, its feed.
_PAGE_TOOL = (
    r"(print(er)?[- ]friendly( page| version)?|"
    r"(send|e-?mail) this( (article|story|page))?( to (a )?friends?)?( by e-?mail)?|"
    r"e-?mail[- ]a[- ]friend|e-?mail article|subscribe to (the )?rss( feed)?)"
)
TEXT_RULES: tuple[Rule[re.Pattern[str]], ...] = tuple(
    Rule(rid, re.compile(p, re.I), reason)
    for rid, p, reason in (
        (
            "share-prompt",
            # the word, what is shared and where or with whom, or a separator and the services; not a
            # sentence of the text ("Share your page and let us know ... below!", "Share this information,
            # please?")
            r"^(share|teilen|partager|compartir)( this| the)?( article| story| post| page| link)?"
            r"(\s*[:|»›-].{0,80}|\s+(on|via|with|to)\b.{0,80}|\s*[!.]?)$",
            "share prompt",
        ),
        (
            "newsletter-signup",
            # one sentence: a second sentence makes it the author's own note ("Sign up for X, a paid weekly
            # newsletter from me about ... Your first month is free.", "Join us for our free webinar ... .
            # We will cover ...")
            r"^(?!.*[.!?]\s+\S)(sign up|subscribe|register|join)\b.{0,40}\b(newsletter|updates|inbox|"
            r"mailing list|free|alerts)\b.{0,200}$",
            "newsletter ask",
        ),
        (
            # The ask after a label or a lead-in sentence ("Headlines in Your Inbox: Sign up for our e-mail
            # alerts.", "There's plenty more where that came from. Sign up for X today to get the free daily
            # newsletter delivered to your inbox."): the site's own list ("our", "the free") or its inbox
            # line. An author's note about a newsletter of theirs names it ("Sign up for X, a paid weekly
            # newsletter from me") and stays; so does "You can also subscribe to this newsletter here".
            "newsletter-ask",
            r"^.{0,160}\b(sign up|subscribe|register)( now| today)? (for|to) (our|the free|a free)\b"
            r"[^.!?]{0,60}\b(newsletters?|e-?mail( news)? alerts?|alerts)\b.{0,100}$|"
            r"^.{0,200}\bnewsletter delivered to your inbox\b.{0,60}$",
            "newsletter ask",
        ),
        (
            "newsletter-inbox",
            r"^(to )?(get|receive)\b.{0,80}\b(newsletter|delivered to your inbox|in your inbox)\b.{0,160}$",
            "newsletter ask",
        ),
        (
            "read-more-prompt",
            r"^((read more|more from|see also|you may also like|you might also like|most read)\b.{0,120}|"
            # "Related", "Popular", "Recommended" also start sentences ("Related to each other: for
            # example, ...", "Popular bloggers discuss ..."): as prompts they stand alone, take a separator,
            # name what they list, or end the line with a colon
            r"(related|popular|recommended)(\s*([:»›|]|$).{0,120}|\s+(stories|story|articles?|posts?|"
            r"links?|content|coverage|topics?|videos?|searches|reading|news|items?|products?|questions?|"
            r"pages?|galleries|gallery|photos?|and suggested|on|from|for|in|now|today|this week|to this|"
            r"the)\b.{0,120}|\b.{0,120}:))$",
            "read-more or related prompt",
        ),
        (
            "click-here",
            r"^(click|tap) here to (subscribe|sign up|read more|continue)\b.{0,120}$",
            "call to action",
        ),
        ("follow-us", r"^follow us( on)?\b.{0,120}$", "social follow prompt"),
        # "(c) 2008, The Herald." and "(© 2008 The Agency. All Rights Reserved. ...)" are the same line
        (
            "copyright-line",
            # "Copyright" also starts sentences ("Copyright protects the way an idea is written down ..."): a
            # notice has a year, a mark or "reserved", or is a label of a few words ("Copyright Notice")
            r"^\(?(all rights reserved|copyright\b(?=.*(\b(19|20)\d\d\b|©|\(c\)|reserved))|©|\(c\)\s*\d{4}\b)"
            r".{0,200}$|^copyright(\s+[\w&'-]+){0,6}\.?$",
            "copyright line",
        ),
        ("all-rights-reserved", r"^.{0,120}\ball rights reserved\.?$", "copyright line"),
        (
            "advertisement-label",
            r"^(advertisement|advert|anzeige|publicidad|publicité|sponsored( content| links)?|"
            r"story continues below( advertisement)?|ad|advts?\s*:?)$",
            "advertisement label",
        ),
        (
            # "Watch" and "See more" start sentences of the text ("Watch the duet he sang here.", "See more
            # by the author on ..."): as prompts they stand alone or take a separator ("WATCH: ..."). A
            # "Listen to X live at 9" line is a station's promotion in every development set.
            "related-story-prompt",
            r"^((also on [\w.]+|also read|read also|more on this|related stories|listen\b)"
            r"\s*[:»›]?\s*.{0,160}|(see more|don'?t miss|watch)(\s*[:»›|]\s*.{0,160})?)$",
            "related-story prompt",
        ),
        (
            "like-this-story",
            r"^(like this (story|article|post)\?.{0,80}|if you (enjoyed|liked) this (story|article|post),? "
            r"(please |why not |then )?(consider|share|subscrib|leav|follow|sign)\b.{0,200})$",
            "share prompt",
        ),
        (
            # links to the neighbouring stories of a news site or a blog: "Previous story: X", "Previous: X |
            # Next: Y", a blog's "« X | Main | Y »", and its one-sided forms on the newest and the oldest
            # post ("« X | Main", "Main | Y »"), "Blog Home" for "Main". A bare "Next:" starts a recipe's
            # step, so it stays.
            "post-navigation",
            r"^((previous|next|prev|older|newer) (story|article|post|entry)\s*[:»›].{1,160}"
            r"|previous\s*:.{1,160}\|\s*next\s*:.{1,160}|«.{1,160}\|\s*(main|blog home)(\s*\|.{1,160})?"
            r"|(main|blog home)\s*\|.{1,160}»)$",
            "links to the previous and next stories",
        ),
        (
            "read-also-prompt",
            r"^\(?(leggi anche|lesen sie auch|mehr zum thema|lire aussi|à lire aussi|leia também|veja também|"
            r"lea también|vea también|lees ook|czytaj też|читайте также)\b.{0,200}$",
            "read-more prompt",
        ),
        (
            "author-contact",
            r"^(have a (news )?tip|write to|reach the (reporter|writer|author)s?|contact the (reporter|"
            r"writer|author))\b.{0,200}$",
            "author contact line",
        ),
        (
            # the writer's address line under a story ("X can be reached at x@example.org", "X is a writer for
            # Y. He may be reached at ...", "Email X at x@example.org or follow him @x")
            "reached-at-line",
            # an address or a phone number after it (not a profile link: "X can be reached at
            # http://twitter.com/x" is in a gold)
            r"^.{0,160}\b(can|may) be reached at\b(?=.{0,60}(@|\(at\)|\"at\"|\d{3}))(?!\s*https?:).{0,120}$|"
            r"^\(?e-?mail (him|her|[\w.]+( [\w.]+)?) at \S+@.{0,160}$",
            "author contact line",
        ),
        (
            "follow-on-network",
            r"^follow (us|@?[\w.]+|the [\w\s.]{1,40}?)( on| at)? (facebook|twitter|instagram|linkedin|"
            r"youtube|tiktok|x)\b.{0,160}$",
            "social follow prompt",
        ),
        ("subscribe-to-our", r"^(subscribe to|join) (our|the)\b.{0,200}$", "subscription ask"),
        (
            # A newsroom's ask for readers' tips under its stories ("When news happens: send photos, videos
            # and tip-offs to <number>, or email us.", "When you see news happening: SMS/MMS: <number>", "If
            # you have any news tips ..., contact us at <address>", with the editor's name after a <br>):
            # the label and a channel at once, or the site's own "contact us". "When news happens in a
            # small town, ..." and an editor quoted ("if you have any news tips, ... call the sender back")
            # are prose.
            "news-tip-ask",
            r"^(when (you see )?news (happens|is happening|happening)\s*[:,-]?\s*"
            r"(send|sms|mms|text|e-?mail|call)\b.{0,200}|"
            r"if you have (a |any )?(news )?(tips?|tip-offs?)\b[^.!?]{0,160}\b"
            r"(contact|e-?mail|call|text|send|write to) us\b.{0,200})$",
            "news-tip ask",
        ),
        (
            # The site's note that it does not answer for the sites it links to, under a story's links:
            # the whole block ("Example News is not responsible for the content of external sites."); a
            # sentence that goes on ("... external sites, the court found, ...") is prose.
            "external-sites-note",
            r"^.{0,80}\b(is|are) not responsible for the content of (external|other|third[- ]party|linked)"
            r"( internet)? (web ?)?sites\.?$",
            "external-sites disclaimer",
        ),
        ("citation-disclaimer", r"^(citation|disclaimer)\s*:.{0,400}$", "citation or disclaimer boilerplate"),
        (
            "copyright-notice",
            r"^(this (document|article|material|story|content) (is subject to copyright|"
            r"may not be (re)?published)\b.{0,300}|"
            # a newspaper's reprint terms under every article ("... governed by our Subscriber Agreement")
            r"this copy is for your personal,? non-?commercial use\b.{0,360})$",
            "copyright notice",
        ),
        (
            # the same reprint terms behind the reprint desk's label ("Example Reprints: This copy is for
            # ..."), at the top of a print page: a label ending in "Reprint(s):", not any lead-in ("Note: this
            # copy is ..." in a text stays)
            "reprint-notice",
            r"^[\w .&'-]{0,40}\breprints?\s*:\s*"
            r"this copy is for your personal,? non-?commercial use\b.{0,360}$",
            "copyright notice",
        ),
        (
            # a print page's source line at its foot: the sentence and the address alone ("This article was
            # printed from the typed pages of ..." in a text stays)
            "printed-from-line",
            r"^this (article|story|page|post|document) was printed from\s*:?\s*(https?://|www\.)\S+$",
            "print page source line",
        ),
        (
            "comment-prompt",
            r"^(leave a (comment|reply)|comments?|\d+ comments?|add a comment|post a comment|"
            # old news templates' link to their reader comments
            r"have your say( on this (story|article))?( read comments)?|add your comments?)$",
            "comment prompt",
        ),
        (
            "page-tool-label",
            r"^(skip to (main )?content|back to top|print( this)?( article| page)?|"
            r"email( this)?( article)?|"
            # the in-page link past a box or an ad slot inside the article (to an anchor after it)
            r"continue reading (the )?main (story|article|content)|"
            r"(the )?(article|story) continues( below)?|"
            # a text-size control's label beside its (icon) buttons
            # ("Adjust Text Size": the control's verb with it, the label alone)
            r"((adjust|change|increase|decrease|resize)( the)? )?(text|font) size|"
            # old news templates' tool rows: "Printer friendly page", "Send this article to Friends by
            # E-Mail", "Printer-friendly version Email-a-friend Respond"
            rf"{_PAGE_TOOL}([\s|·•]+({_PAGE_TOOL}|respond))*)$",
            "page tool",
        ),
        ("loading-placeholder", r"^(loading|loading\.\.\.|loading…)$", "loading placeholder"),
        (
            # what a player says about itself in its fallback or status box ("This video is no longer
            # available", "Your browser does not support the video tag"): never part of the story
            "player-status",
            r"^(this (video|clip) is (no longer available|(currently )?(un)?available|not available|"
            r"(playable|not playable))\b.{0,80}|your browser does(n'?t| not) support (the )?(html5 )?"
            r"(video|audio)\b.{0,40}|(video|clip) (is )?(unavailable|not available)|"
            # a slideshow's or player's fallback where scripts do not run
            r"this (slideshow|gallery|video|player|content) requires javascript\.?)$",
            "video player status message",
        ),
        (
            # a template's reading-time estimate ("5 min read", "Reading time: 3 minutes", Portuguese
            # "Tempo de leitura: 1 minuto"): the result carries the reading time
            "reading-time",
            r"^((reading time|read time|tempo de leitura|tiempo de lectura|temps de lecture|lesezeit)"
            r"\s*[:：]?\s*(about |approx\.? |ca\. )?\d{1,3}\s*(min|mins|minutes?|minutos?|minuten)\.?|"
            r"\d{1,3}\s*(min|mins|minutes?)\.? read)$",
            "reading time estimate",
        ),
        (
            "interface-label",
            r"^(caption|close|hide caption|toggle caption|expand|enlarge|enlarge this image|show more|"
            r"view larger( image| photo| picture)?|click (the )?((photo|image|picture) )?to enlarge|"
            r"image copyright|"
            r"[‹«<]?\s*back to (the )?(story|article)|"
            r"show less|"
            r"view (the )?(gallery|slideshow|comments)|open gallery|play video|watch video|next|previous|"
            r"prev|"
            r"continue reading|more|see more|tags?|topics?|filed under|share|tweet|pin|email|"
            r"print|"
            # the text of a pull quote's decorative quote marks, for screen readers
            r"[“\"]?\s*(start|end) quote)\s*[:»›>]?$",
            "interface label",
        ),
        (
            # A post template's line of tags or categories ("Filed under: Pop, Celebs", "Topics: uber,
            # libertarians, sharing economy", "Tags: Chicken, slow-cooker"): the label and its terms, no
            # sentence ("Tags: an old word for labels." ends like one and stays). Not "Keywords:", which
            # papers print with their abstract.
            "tag-line",
            r"^(tags?|tagged( with)?|topics?|filed under|categor(y|ies)|labels?|related topics)\s*[:：]\s*"
            r"[^.!?:：]{1,200}$",
            "the post's tags or categories",
        ),
        (
            "media-credit",
            r"^\(?((photo|image|picture|foto|photograph|illustration|video|graphic)s?( credit)?|credit|"
            r"source)\s*[:：|]\s*.{1,80}$",
            "media credit line",
        ),
        (
            "gallery-counter",
            r"^(image|photo|slide|picture|foto)?\s*\d{1,3}\s*(of|/|de|von|sur)\s*\d{1,3}$",
            "gallery counter",
        ),
        (
            "posted-date-line",
            r"^(posted|published|updated|last updated|modified|first published)( on| at)?\b(?=.*\d).{0,60}$",
            "date line",
        ),
        (
            # Blog templates' line under a post (WordPress's default theme and its many copies): when it was
            # posted, where it is filed, how to follow the replies. Only with those template parts: a post
            # may well say "This post was posted from my phone".
            "post-metadata-line",
            r"^(this (entry|post) was posted\b.{0,200}\b(filed under|categori[sz]ed in|tagged)\b.{0,250}|"
            r"you can follow any responses to this (entry|post) through\b.{0,300})$",
            "post metadata line",
        ),
        (
            # A comment system's offer of the thread as a feed ("You can follow this conversation by
            # subscribing to the comment feed for this post.", "Follow any comments here with the RSS feed
            # for this post.", "Subscribe to: Post Comments (Atom)"), alone or after a post's permalink
            # line: interface text of the thread, left behind when the thread's box has no comment name.
            # What is followed is the conversation or its comments, and the means is a feed: a sentence
            # about feeds or about following a discussion in general ("I track my feed reader's responses")
            # is not the offer.
            "comment-feed",
            r"^(.{0,160}?[.!?]\s+)?(you can )?(follow|subscribe to|track|keep track of)\s+"
            r"(this (conversation|discussion|thread)|(any |all |the )?(comments|responses|replies)"
            r"( here| (to|on) this (entry|post|article|story))?)\b.{0,40}?"
            r"\b(by subscribing to|with|through|via|using|in)\s+(the |our |this )?.{0,20}?\bfeed\b.{0,60}$|"
            r"^subscribe to:?\s+(post )?comments\b.{0,30}$",
            "comment feed offer",
        ),
        (
            # a blog's trackback box: the line before the ping address (the address, the trackbacks listed
            # under it and a bare "trackback" link in a post's footer row are left: dragnet-dev's gold keeps
            # them on some blogs)
            "trackback-label",
            r"^(trackbacks?\s*\(\d+\)|trackback url( for this (entry|post))?\s*:?|"
            r"the ur[il] to trackback this (entry|post) is\s*:?|trackbacks are closed\b.{0,60})$",
            "trackback label",
        ),
        (
            "published-date-line",
            r"^(this (article|story|post) (was|is) (originally )?(published|updated)|updated|"
            r"published)\b.{0,60}$",
            "date line",
        ),
    )
)
# Words a text rule cannot match a block without (one of them, in lower case), so remove_by_pattern can skip
# the pattern without running it. Why it is exact: the words are ASCII, and under re.I an ASCII letter
# matches only its two cases and four special letters (FOLD_SPECIALS: dotted and dotless i, long s, Kelvin
# sign), so in a block without those the lower-cased text holds the word wherever the pattern matches it.
# Listed only for a rule whose first character can be anything (remove_by_pattern dispatches the others on
# the block's first character) and whose pattern is costly: a ``.{0,120}`` prefix tried at every length. A
# test checks the list against its rule on random blocks.
TEXT_RULE_WORDS: dict[str, tuple[str, ...]] = {
    "all-rights-reserved": ("all rights reserved",),
    "newsletter-ask": ("newsletter", "alert"),
    "reached-at-line": ("reached at", "mail"),
    "external-sites-note": ("not responsible for the content",),
    "reprint-notice": ("reprint",),
    "comment-feed": ("feed", "subscribe to"),
}
# Text rules that also judge a block holding a picture (remove_by_pattern skips the others there: a line
# beside an image is its caption): the comment feed's offer comes with the feed's little icon.
TEXT_RULES_BESIDE_MEDIA = frozenset({"comment-feed"})
FOLD_SPECIALS = frozenset("\u0130\u0131\u017f\u212a")  # what re.I also matches to an ASCII letter
# A site's legal notice ending the article (remove_by_pattern.remove_closing_notice): a copyright line, an
# "All rights reserved" line, the wire services' "may not be published, broadcast, rewritten or
# redistributed", a trade mark notice, the terms-of-use reminder. Matched against one line (up to <br> or a
# block edge), not a block: old templates put it after the last paragraph in the same cell or <div>, or join
# two notices with <br>. "All rights reserved" in the middle of a longer line ("... All rights reserved. See
# the site info page. Product details may change ...") is a note the gold keeps; the notice ends with it.
LEGAL_NOTICE = re.compile(
    # "Copyright" starts notices and sentences ("Copyright law protects ..."): a notice has a year, a mark or
    # "reserved", or is the word and a capitalized name ("Copyright Example News Network")
    r"^(\(?\s*(©|\(c\)|copyright\b|all rights reserved)(?=.*(\b(19|20)\d\d\b|©|\(c\)|reserved)).{0,300}"
    r"|\(?\s*(copyright|©|\(c\))(\s+(?-i:[A-Z])[\w&.,'-]*){1,6}"
    r"|.{0,120}\ball rights reserved\b[.)]?"
    r"|.{0,160}\bmay not be (re)?published, broadcast, rewritten,? or redistributed\b.{0,100}"
    r"|.{0,160}\bis a (registered )?trade ?mark of\b.{0,120}"
    r"|.{0,60}\b(use of this (web ?)?site constitutes acceptance|before using this (web ?)?site)\b.{0,200})$",
    re.I,
)
MAX_PATTERN_BLOCK = 420  # characters: longer blocks are prose, never boilerplate by pattern
# Every LEGAL_NOTICE alternative needs one of these, in any case: the pattern is ASCII, so in an ASCII
# text its case-insensitive match folds ASCII letters only, and a text whose lower-case form has none of
# them cannot match (a test checks ``legal_notice`` against the pattern). Most blocks asked have none.
LEGAL_NOTICE_WORDS = (
    "(c)",
    "copyright",
    "all rights reserved",
    "may not be ",
    "mark of",
    "use of this",
    "before using this",
)


def legal_notice(text: str) -> bool:
    """``LEGAL_NOTICE.match(text)``, without running the pattern on an ASCII text that has none of
    LEGAL_NOTICE_WORDS (the pattern's ``.{0,160}`` prefixes are tried at every position up to there)."""
    if text.isascii():
        low = text.lower()
        if not any(w in low for w in LEGAL_NOTICE_WORDS):
            return False
    return LEGAL_NOTICE.match(text) is not None


# Promotional text with low link density (Readability keeps it): commercial imperatives in a short block.
# "deal" in "a big deal", "a great deal of", "a good deal" is prose, not an offer (a story's line of dialogue
# "Will they make a big deal about it?" was removed as a promotion)
PROMO_TEXT = re.compile(
    r"\b(subscribe|subscription|sign up|newsletter|(?<!big )(?<!great )(?<!good )deals?|discount|save \d+|"
    r"\d+ ?% off|percent off|coupon|promo code|free trial|buy now|shop now|order now|limited time|"
    r"download (our|the) app|get the app|unlock|premium|members? only)\b",
    re.I,
)

# --- callouts --------------------------------------------------------------------------------------------
CALLOUT_TYPES = (
    "note",
    "tip",
    "important",
    "warning",
    "caution",
    "info",
    "danger",
    "success",
    "question",
    "example",
    "quote",
    "abstract",
    "todo",
    "bug",
    "failure",
    "hint",
    "attention",
    "error",
)
CALLOUT_ALIASES = {
    "info": "note",
    "hint": "tip",
    "attention": "warning",
    "danger": "caution",
    "error": "caution",
    "failure": "caution",
    "bug": "caution",
    "success": "tip",
    "question": "note",
    "example": "note",
    "quote": "note",
    "abstract": "note",
    "todo": "note",
    "secondary": "note",
    "primary": "note",
}

# --- titles ------------------------------------------------------------------------------------------------
# Class tokens of a title: a callout's title bar (callouts drops it for the type marker) and an article
# headline (normalize_output drops one repeating the page title). One set for both: the merged set changes
# no fixture and no benchmark page. tokens_of joins parts: "admonition-title" → "admonitiontitle".
TITLE_TOKENS = frozenset(
    """title heading headline titulo titre titel entrytitle posttitle articletitle markdownalerttitle
    admonitiontitle callouttitle admonitionheading alerttitle""".split()
)

# --- byline / dates -------------------------------------------------------------------------------------
BYLINE_TOKENS = frozenset({"byline", "author", "authors", "writer", "contributor", "by", "dateline"})
BYLINE_TEXT = re.compile(r"^\s*(by|von|par|por|door|di|av)\s+(.{2,80})$", re.I)

TITLE_SEPARATORS = re.compile(r"\s+[|\-–—\\/>»·•]\s+|\s*[｜]\s*")


_TOKEN_SPLIT = re.compile(r"[-_:.\s]+|(?<=[a-z])(?=[A-Z])")
_TOKENS_MEMO: dict[str, frozenset[str]] = {}
_TOKENS_MEMO_MAX = 20_000  # entries; emptied when full (memory stays bounded in a server)
_TOKENS_MEMO_CHARS = 500  # longer values are split every time, never kept


def tokens_of(value: str) -> frozenset[str]:
    """Tokens of a class or id value: split on separators and camelCase, lower-cased.

    Joined forms are included too (``share-bar`` → ``share``, ``bar``, ``sharebar``) so tables can name
    both. Remembered by value: the same class strings recur on a page and every stage asks again.
    """
    found = _TOKENS_MEMO.get(value)
    if found is not None:
        return found
    out: set[str] = set()
    no_upper = value == value.lower()  # most values: no camelCase boundary, nothing to lower-case
    for word in value.split():
        if no_upper or word == word.lower():
            # the same parts in the same order as below, without the regular expression (its camelCase
            # branch, tried at every character, was most of the time of a value seen for the first time)
            lower = word.replace("-", " ").replace("_", " ").replace(":", " ").replace(".", " ").split()
        else:
            lower = [p.lower() for p in _TOKEN_SPLIT.split(word) if p]
        out.update(lower)
        if len(lower) > 1:
            out.add("".join(lower))
    found = frozenset(out)
    if len(value) <= _TOKENS_MEMO_CHARS:
        if len(_TOKENS_MEMO) >= _TOKENS_MEMO_MAX:
            _TOKENS_MEMO.clear()
        _TOKENS_MEMO[value] = found
    return found


# --- embedded video players (normalize_structures.normalize_embeds, video.watch_url) ------------------------
@dataclass(frozen=True)
class VideoProvider:
    """A video host whose embedded player has a public watch page.

    ``host`` matches the player URL's host name; ``path`` (matched on the path, or on ``query`` when that is
    set: the name of the query parameter holding the id) captures the video id; ``watch`` is the watch-page
    URL with ``{id}`` in place. The player URL itself is not what a reader wants: it is a bare player page,
    often with ``autoplay=1`` and tracking parameters, and some (``youtube-nocookie``) show nothing outside
    an iframe.
    """

    name: str
    host: re.Pattern[str]
    path: re.Pattern[str]
    watch: str
    reason: str
    query: str = ""


def _vp(name: str, host: str, path: str, watch: str, reason: str, query: str = "") -> VideoProvider:
    return VideoProvider(name, re.compile(host, re.I), re.compile(path), watch, reason, query)


_ID = r"([\w-]{4,64})"  # video ids are letters, digits, '-' and '_' (no '/', '?', '#', quotes or spaces)
VIDEO_PROVIDERS: tuple[VideoProvider, ...] = (
    _vp(
        "YouTube",
        r"^(www\.|m\.)?youtube(-nocookie)?\.com$",
        rf"^/(?:embed|v|e)/{_ID}",
        "https://www.youtube.com/watch?v={id}",
        "/embed/ID (iframe) and /v/ID (old Flash object) are players; /watch?v=ID is the video's page",
    ),
    _vp(
        "YouTube",
        r"^youtu\.be$",
        rf"^/{_ID}$",
        "https://www.youtube.com/watch?v={id}",
        "the short-link host used in some embeds",
    ),
    _vp(
        "Vimeo",
        r"^player\.vimeo\.com$",
        r"^/video/(\d{3,15})",
        "https://vimeo.com/{id}",
        "player.vimeo.com/video/N is the player; vimeo.com/N is the video's page",
    ),
    _vp(
        "Dailymotion",
        r"^(www\.)?dailymotion\.com$",
        rf"^/embed/video/{_ID}",
        "https://www.dailymotion.com/video/{id}",
        "/embed/video/ID is the player; /video/ID is the video's page",
    ),
    _vp(
        "Dailymotion",
        r"^geo\.dailymotion\.com$",
        "",
        "https://www.dailymotion.com/video/{id}",
        "the newer player takes the id as ?video=ID",
        query="video",
    ),
    _vp(
        "TED",
        r"^embed\.ted\.com$",
        r"^/talks/([\w-]{2,200})",
        "https://www.ted.com/talks/{id}",
        "embed.ted.com/talks/SLUG is the player; www.ted.com/talks/SLUG is the talk's page",
    ),
    _vp(
        "Twitch",
        r"^player\.twitch\.tv$",
        "",
        "https://www.twitch.tv/videos/{id}",
        "the player takes a recorded video as ?video=ID (v prefix optional); its page is /videos/ID",
        query="video",
    ),
    _vp(
        "Streamable",
        r"^(www\.)?streamable\.com$",
        rf"^/(?:e|o|s)/{_ID}",
        "https://streamable.com/{id}",
        "/e/ID is the player; /ID is the video's page",
    ),
    _vp(
        "Loom",
        r"^(www\.)?loom\.com$",
        rf"^/embed/{_ID}",
        "https://www.loom.com/share/{id}",
        "/embed/ID is the player; /share/ID is the recording's page",
    ),
    _vp(
        "Bilibili",
        r"^player\.bilibili\.com$",
        "",
        "https://www.bilibili.com/video/{id}",
        "the player takes the id as ?bvid=BV...; its page is /video/BV...",
        query="bvid",
    ),
)
# Any other player is recognised by a word of its host or path (``video.example.org/embed/1``,
# ``example.org/player/1``): linked as it is (http(s) only, autoplay-like parameters removed).
VIDEO_URL_WORDS = frozenset({"video", "videos", "player", "videoplayer", "vid", "embedvideo"})
# Query parameters a player page reads as "start playing / muted / looping" on open: never in a link.
AUTOPLAY_PARAMS = frozenset({"autoplay", "auto_play", "autostart", "auto_start", "muted", "mute", "loop"})
# A player's title attribute that names the player, not the video (YouTube's embed code writes
# "YouTube video player" on every video): the figcaption, or "Video", is used instead.
GENERIC_PLAYER_TITLE = re.compile(
    r"^\s*(?:(?:youtube|vimeo|dailymotion|twitch|jw|brightcove|html5)\s+)?(?:video\s+|media\s+)?"
    r"(?:player|embed(?:ded)?(?:\s+(?:video|content|player))?|iframe|frame)\s*$|^\s*(?:embedded\s+)?video\s*$",
    re.I,
)

# --- an article's own closing sections (remove_low_score, remove_by_pattern) --------------------------------
# A heading saying "See also", "External links", "Further reading", "References", "Sources", "Bibliography"
# or "Notes" (a wiki's "See also [edit]" too) opens the article's own list of links or works: Readability
# keeps these sections and readability-dev's gold has them. As a line of text "See also ..." stays a
# read-more prompt; as a heading with its list it is a section of the article. A related-stories block has
# its own headings (``TEASER_HEADING``).
SEE_ALSO_HEADING = re.compile(
    r"^(see also|external links|further reading|references|sources|bibliography|notes)\b", re.I
)
SEE_ALSO_LOOKBACK = 3  # the heading is one of the few blocks right before the list (a portal box between)


# --- a trailing teaser block (remove_by_pattern.remove_trailing_teasers) ------------------------------------
# The heading of a related-stories block: the whole heading is one of these phrases. Not here, on purpose:
# "see also", "further reading", "sources", "references", "more information", "similar posts" (an article's
# own list of links; Wikipedia's "See also" is part of the article). A trailing ellipsis is the template's
# ("You may also like...", "Other stories…"): the same phrase. "Headlines" with one word before it ("Sports
# Headlines") names a section's list of stories.
TEASER_HEADING = re.compile(
    r"^(related( (stories|articles|posts|news|coverage|content|links))?|"
    r"more (stories|news|articles|headlines|coverage)( (from|in|on|about)\b.{0,40})?|"
    r"more (from|in|on) .{1,40}|also read|read next|"
    r"you (may|might) also (like|be interested in|enjoy)|recommended( for you| stories| reading)?|"
    r"(popular|most (popular|read|viewed|shared))( (stories|articles|now|this week|today))?|"
    r"top stories|latest (news|stories|headlines|articles)|other (stories|news|articles)|"
    r"([\w-]+ )?headlines)\s*(\.\.\.|…)?\s*[:»›]?$",
    re.I,
)

# --- a comment thread closing the root (remove_by_selector.remove_trailing_thread) --------------------------
# The heading opening a comment thread: its whole text is one of these phrases. Not here, on purpose: a bare
# "Comment", "Discussion", "Responses" or "Reactions" (article sections, a table's column header).
THREAD_HEADING = re.compile(
    r"^((\d+|no|one|two|three)\s+)?(reader |user |your )?comments\s*(\(\d+\))?$|"
    r"^(\d+|no|one) (comment|response|reply|replies|responses|thoughts?)( (on|to) .{1,120})?$|"
    r"^(comments are (now )?closed.{0,40}|leave a (comment|reply)|post a comment|add (a|your) comment|"
    r"have your say|join the discussion)$",
    re.I,
)
# A bare "Comments" is also a section of a style guide ("## Comments" about code comments): such a heading,
# like an id or anchor name "comments", opens a thread only with evidence of one after it.
THREAD_HEADING_BARE = re.compile(r"^comments$", re.I)
# Evidence of a thread: items named as comments or replies, and short lines that are their author lines
# ("Posted by: X", "X says:", "X wrote") or speak of comments; a short line holding a date is evidence too
# (signals.thread_evidence).
THREAD_ITEM_TOKENS = frozenset(
    {"comment", "comments", "commentbody", "reply", "replies", "avatar", "vcard", "says", "permalink"}
)
# The comment system's form fields (signals.interface_evidence): a reply box, its name and e-mail fields, the
# sort and filter controls above the thread.
THREAD_FORM_FIELDS = frozenset({"form", "textarea", "input", "select", "button", "fieldset"})
THREAD_AUTHOR_LINE = re.compile(
    r"^(\W*(comment\s*)?#?\d+\W*)?(posted|written|submitted)\s+by\b|\b(says|wrote)\s*:?$|"
    r"\b(comments?|commenters?)\b",
    re.I,
)
# A clock time in a comment's short head line ("11.06.12 at 11:06 am", "10:46 pm"): numeric dates that
# ``normalize_date`` does not read still come with one (select_root's thread shape).
THREAD_CLOCK = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?![\d:])")
# A date written in a comment's head in a form ``normalize_date`` does not read ("10. Jul, 2012", "11.06.12",
# "6 novembre 2012"): a day, any month word, a year, or three numbers. The month word is any word, not a
# table of month names, so that any language's head is read; it is asked only of a short line opening an
# item of a run of look-alike items (select_root._dated_head), where "3 people, 2012" does not occur.
THREAD_HEAD_DATE = re.compile(
    r"(?<!\d)(\d{1,2}\.?\s*[^\W\d_]{3,}\.?,?\s+\d{4}|[^\W\d_]{3,}\.?\s+\d{1,2}(st|nd|rd|th)?,?\s+\d{4}|"
    r"\d{1,4}[./-]\d{1,2}[./-]\d{2,4})(?!\d)"
)
# Separators between a commenter's name and the date in one line ("Name - August 8, 2012",
# "10. Jul, 2012 / Name says:", "Name | 3 May 2012", "Name says: March 3, 2012"): a part that holds no date is
# the name. A live blog's "Updated March 3, 2012 at 4:12 pm" has no separator, so it is a date alone.
THREAD_HEAD_SEPARATOR = re.compile(r"\s[-\u2013\u2014|/\u00b7\u2022]\s|\b(?:says|wrote|writes)\s*:?")
# A commenter's head that names its author with a verb instead of a date ("Name wrote:", "by Name writes:"):
# a theme that prints the date at the end of the comment, or a collapsed reply showing its title and author.
THREAD_HEAD_AUTHOR = re.compile(r"\b(says|wrote|writes)\s*:?$", re.I)
# Names (id, anchor name) only comment threads and their forms carry: no article section is called so, so
# they need no further evidence (a bare "comments" id is also a style guide's "## Comments" section).
THREAD_NAME_TOKENS = frozenset(
    """disqus commentlist commentform commentsection commentsarea commentsblock commentswrapper respond
    leavecomment postcomment postcomments addcomment usercomments readercomments kommentare comentarios
    commentaires reacties""".split()
)
