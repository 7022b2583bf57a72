"""Visual blocks of a rendered page: segmentation into boxes, each with a role and an importance score.

Why this shape: a reader (or a model) wants to know what each region of the page *is*: the article, the
navigation, the comments, the ads. The core already decides the article (the chosen root); everything else on
the page is what the root is not. Segmentation follows the page's structure (VIPS-like, much simpler): a
container splits into its children until a child is a unit (a landmark, an element the core's own rule
vocabulary names, a non-container, or something small). Roles come from general evidence, strongest first:

1. the core's chosen root is ``main_content``; blocks the core removed inside it by a named rule keep the
   rule's meaning (comments, related, ads, ...);
2. landmark elements and ARIA roles (``nav``, ``footer``, ``role=search``, ...), forms by their fields;
3. the core's class/id vocabulary (``readwell.rules.PARTIAL_RULES``: the words that make it remove a block);
4. position and size relative to the main content (above and wide: header; beside and narrow: sidebar;
   below: footer / related / comments), link density and the shape of the links.

No site lists. Everything works from the snapshot's layout (boxes, font sizes) and the extraction result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..context import LogEntry
from ..dom import NON_TEXT, Document, Element, Text, css_path, normalize_space
from ..measure import Stat, measure
from ..rules import PARTIAL_RULES, looks_like_thread, tokens_of
from ..textstats import BLOCK_TAGS, word_count

MAIN, NAV, HEADER, FOOTER, SIDEBAR = "main_content", "navigation", "header", "footer", "sidebar"
RELATED, COMMENTS, COMMENT_FORM, SEARCH, ADS, OTHER = (
    "related",
    "comments",
    "comment_form",
    "search",
    "ads",
    "other",
)
HEADER_OR_FOOTER = "header|footer"  # placeholder until the page's height is known
ROLES = (MAIN, NAV, HEADER, FOOTER, SIDEBAR, RELATED, COMMENTS, COMMENT_FORM, SEARCH, ADS, OTHER)

# Landmark elements; header/footer only count as page regions outside an article/section (inside they are the
# article's own header, which is part of a unit anyway).
LANDMARK_TAGS = {"nav": NAV, "header": HEADER, "footer": FOOTER, "aside": SIDEBAR}
ARIA_ROLES = {
    "navigation": NAV,
    "menubar": NAV,
    "menu": NAV,
    "banner": HEADER,
    "contentinfo": FOOTER,
    "complementary": SIDEBAR,
    "search": SEARCH,
    "comment": COMMENTS,
}
# The core's class/id rule ids (readwell.rules.PARTIAL_RULES and the exact rules) -> role.
# "page-header-footer" is decided by position; share bars, newsletters and pop-ups are ``other`` (the issue
# names no role for them); rules not listed here leave the role to position.
RULE_ROLES = {
    "comments": COMMENTS,
    "[itemprop=comment]": COMMENTS,
    "related": RELATED,
    "ads": ADS,
    "promo": ADS,
    "[data-ad-slot]": ADS,
    "ins.adsbygoogle": ADS,
    "sidebar-widget": SIDEBAR,
    "[role=complementary]": SIDEBAR,
    "navigation-aid": NAV,
    "nav": NAV,
    "[role=navigation]": NAV,
    "footer": FOOTER,
    "[role=contentinfo]": FOOTER,
    "[role=banner]": HEADER,
    "page-header-footer": HEADER_OR_FOOTER,  # decided by position
    "share": OTHER,
    "newsletter": OTHER,
    "cookie-consent": OTHER,
    "popup": OTHER,
    "tag-list": NAV,
}
# Regions split further when they hold other regions (a header's menu and search form are their own blocks;
# the rest of the header stays "header").
SPLIT_REGIONS = frozenset({HEADER, FOOTER, SIDEBAR, HEADER_OR_FOOTER})
# Stages whose removals inside the root mark page regions (not the structure clean-ups of later stages).
CARVE_STAGES = frozenset({"select_root", "remove_low_score", "remove_by_selector"})
# IAB standard ad sizes (w, h) in CSS px: an iframe or empty slot of one of these sizes is an ad slot.
AD_SIZES = frozenset(
    {(300, 250), (728, 90), (160, 600), (300, 600), (320, 50), (970, 90), (970, 250), (336, 280), (468, 60)}
)
# Tags that are never split: their children are one unit (a list, a table, a paragraph, a figure...).
ATOMIC = frozenset(
    """p ul ol dl table figure form h1 h2 h3 h4 h5 h6 pre blockquote img picture video audio iframe
    embed object canvas svg article address details""".split()
)
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
INVISIBLE_DISPLAY = frozenset({"none", "contents"})  # "contents" has no box of its own: its children do


@dataclass(frozen=True)
class Thresholds:
    """Segmentation and position thresholds, each with its reason (configurable with the other weights)."""

    # text sizes are readwell.textstats units (characters, CJK x3)
    # a container this small is one unit: splitting a byline box or a two-line teaser helps nobody
    unit_max_chars: int = 150
    unit_max_height: int = 160
    # a block with no words still counts if it shows this much area (an image, a video, an ad slot)
    media_min_area: int = 10_000
    # beside the main content and at most this share of the page width: a sidebar column
    sidebar_max_width: float = 0.42
    # at least this share of the page width: a full-width band (header, footer)
    band_min_width: float = 0.6
    # a region word on an element this tall (share of the page) names a layout wrapper, not a region
    wrapper_min_height: float = 0.6
    # link density from which a block is made of links (navigation, related lists)
    link_dense: float = 0.5
    # average words per link from which links read as headlines (related stories) rather than menu items
    headline_link_words: float = 4.0
    # comments: at least this much text below the main content, thread-shaped (the core's looks_like_thread)
    comments_min_chars: int = 200
    # the headline block above the article: at most this much text, at most this far above it (px)
    title_block_max_chars: int = 400
    title_max_gap: int = 600
    title_overlap: float = 0.8  # share of the shorter side's words shared with the extracted title
    # a removal inside the root big enough to be its own block
    carve_min_chars: int = 100


@dataclass(frozen=True)
class Weights:
    """Importance = weighted sum of these features in [0, 1], times ROLE_FACTOR; main content is 1.0."""

    words: float = 0.35  # text amount relative to the biggest block: what there is to read
    area: float = 0.15  # box area relative to the biggest block: what takes the page's space
    center: float = 0.15  # horizontal closeness to the page's centre line
    text: float = 0.2  # 1 - link density: prose rather than links
    fold: float = 0.15  # within the first two viewport heights: what a reader sees first


# Boilerplate roles are down-weighted: a big footer is still a footer.
ROLE_FACTOR = {NAV: 0.5, HEADER: 0.6, FOOTER: 0.4, ADS: 0.3, SEARCH: 0.5, SIDEBAR: 0.7, COMMENT_FORM: 0.5}


@dataclass
class Block:
    el: Element
    role: str
    evidence: str
    st: Stat
    words: int = 0
    importance: float = 0.0
    box: dict[str, int] = field(default_factory=dict)
    text: str | None = None  # the main content's: what the core kept, not all text under the root

    def to_dict(self, i: int) -> dict[str, Any]:
        return {
            "id": block_id(i),
            "role": self.role,
            "importance": round(self.importance, 3),
            "box": self.box,
            "path": css_path(self.el),
            "tag": self.el.tag,
            "words": self.words,
            "link_density": round(self.st.link_density, 3),
            "evidence": self.evidence,
            "text_sample": normalize_space(self.text if self.text is not None else block_text(self.el))[:100],
        }


def block_id(i: int) -> str:
    return f"b{i}"


def block_text(el: Element) -> str:
    """The element's text with a space where block elements meet ("Item 1Item 2" would be one word)."""
    out: list[str] = []
    stack: list[Any] = [el]
    while stack:
        n = stack.pop()
        if isinstance(n, str):
            out.append(n)
        elif isinstance(n, Text):
            out.append(n.data)
        elif isinstance(n, Element) and (n is el or n.tag not in NON_TEXT):
            spaced = n.tag in BLOCK_TAGS or n.tag in ("br", "td", "th", "li")
            if spaced:
                stack.append(" ")
            stack.extend(reversed(n.children))
            if spaced:
                out.append(" ")
    return "".join(out)


def visible_box(el: Element) -> dict[str, int] | None:
    """The element's page box when it is shown (layout from the snapshot), else None."""
    lay = el.layout
    if not lay:
        return None
    if lay.get("display") in INVISIBLE_DISPLAY or lay.get("visibility") == "hidden":
        return None
    if (lay.get("opacity") or 0) <= 0:
        return None
    w, h = int(lay.get("w") or 0), int(lay.get("h") or 0)
    if w <= 1 or h <= 1:
        return None
    return {"x": int(lay.get("x") or 0), "y": int(lay.get("y") or 0), "w": w, "h": h}


def find_blocks(
    doc: Document,
    root: Element | None,
    removals: list[LogEntry],
    title: str | None,
    main_text: str | None,
    viewport_height: int,
    th: Thresholds | None,
    weights: Weights | None,
) -> list[Block]:
    """Blocks of the page in document order (``Block.to_dict`` is the JSON; see README "Render mode")."""
    th = th or Thresholds()
    body = doc.body
    if body is None:
        return []
    stats = measure(body)
    seg = _Segmenter(body, stats, root, th)
    seg.walk(body)
    main_box = None
    if root is not None:
        carved = seg.carve(root, removals, doc)
        main_box = _kept_box(root, carved) if carved else visible_box(root)
        for b in seg.blocks:
            if b.el is root:
                b.box = main_box or b.box
                b.text = main_text
    page = _page_box(body, seg.blocks)
    for b in seg.blocks:
        if not b.role and main_box is not None and _holds_title(b, title, main_box, th):
            b.role, b.evidence = MAIN, "the article's title, above the main content"
        if not b.role or b.role == HEADER_OR_FOOTER:
            b.role, b.evidence = _by_position(b, main_box, page, th)
    _score(seg.blocks, page, viewport_height, weights or Weights())
    order = {el.nid: i for i, el in enumerate(body.iter())}
    return sorted(seg.blocks, key=lambda b: order.get(b.el.nid, 0))


class _Segmenter:
    """Top-down split of the body into unit blocks; roles from explicit evidence are set on the way."""

    def __init__(self, body: Element, stats: dict[int, Stat], root: Element | None, th: Thresholds) -> None:
        self.stats = stats
        self.root = root
        self.th = th
        self.blocks: list[Block] = []
        self.root_path: set[int] = set()
        self.body_box = visible_box(body) or {"x": 0, "y": 0, "w": 1, "h": 1}
        if root is not None:
            self.root_path = {root.nid, *(a.nid for a in root.ancestors())}

    def walk(self, el: Element, inherited: str = "", why: str = "") -> None:
        st = self.stats.get(el.nid, Stat())
        if el is self.root:
            self._emit(el, MAIN, "core: chosen root", st)
            return
        box = visible_box(el)
        if el.nid not in self.root_path and box is None:
            return  # hidden (its subtree included) or boxless
        if el.nid in self.root_path:  # an ancestor of the article: split around it
            for c in _content_children(el, self.stats):
                self.walk(c, inherited, why)
            return
        role, ev = _explicit_role(el, st, box)
        if not role and inherited:
            role, ev = inherited, why
        if st.units == 0 and not self._media(el, box):
            return
        kids = _content_children(el, self.stats)
        if role and _wraps_page(box, self.body_box, self.th):
            role = ev = ""  # too big to be that region: split it, and do not pass the word down
        elif role and role != inherited and not (role in SPLIT_REGIONS and _holds_regions(el)):
            self._emit(el, role, ev, st)  # a region with a meaning: one unit
            return
        if self._unit(el, st, box, kids):
            self._emit(el, role, ev, st)
            return
        if len(kids) == 1:
            self.walk(kids[0], role, ev)
            return
        for c in kids:
            self.walk(c, role, ev)

    def _media(self, el: Element, box: dict[str, int] | None) -> bool:
        return box is not None and box["w"] * box["h"] >= self.th.media_min_area

    def _unit(self, el: Element, st: Stat, box: dict[str, int] | None, kids: list[Element]) -> bool:
        if el.tag in ATOMIC or not kids:
            return True
        if len(kids) == 2 and kids[0].tag in HEADINGS:
            return True  # a titled group ("More stories" + its list): the title belongs to what it names
        h = box["h"] if box else 0
        return st.units <= self.th.unit_max_chars and h <= self.th.unit_max_height

    def _emit(self, el: Element, role: str, evidence: str, st: Stat) -> None:
        self.blocks.append(Block(el, role, evidence, st, box=visible_box(el) or _union_box(el)))

    def carve(self, root: Element, removals: list[LogEntry], doc: Document) -> set[int]:
        """Parts the core removed from inside its root (siblings it did not join, low-score widgets, named
        boilerplate) are not main content: each is segmented like the rest of the page, with the rule's
        meaning as a hint. Returns the ids of the carved elements."""
        by_id = doc.by_id()
        taken: set[int] = set()
        for e in removals:
            if e.stage not in CARVE_STAGES:
                continue
            el = by_id.get(e.node_id)
            if el is None or el is root or root not in el.ancestors() or visible_box(el) is None:
                continue
            if el.nid in taken or any(a.nid in taken for a in el.ancestors()):
                continue
            st = self.stats.get(el.nid, Stat())
            if st.units < self.th.carve_min_chars and not self._media(el, visible_box(el)):
                continue
            taken.add(el.nid)
            hint = RULE_ROLES.get(e.rule, "")
            self.walk(el, hint, f"core: removed inside the root by {e.rule}" if hint else "")
        return taken


def _content_children(el: Element, stats: dict[int, Stat]) -> list[Element]:
    """Element children that show something: text, or a box (a media/ad slot is judged later)."""
    out = []
    for c in el.element_children:
        if c.tag in ("script", "style", "noscript", "template", "link", "meta"):
            continue
        st = stats.get(c.nid)
        if (st is not None and st.units > 0) or visible_box(c) is not None:
            out.append(c)
    return out


def _holds_regions(el: Element) -> bool:
    """A page header or footer holding its own navigation, search form or complementary parts."""
    return any(
        d.tag in ("nav", "form", "aside") or d.get("role").strip().lower() in ARIA_ROLES
        for d in el.iter(include_self=False)
    )


def _wraps_page(box: dict[str, int] | None, page: dict[str, int], th: Thresholds) -> bool:
    """A page-wide wrapper that happens to be a form or carry a region word (ASP.NET's form around
    everything, a "sidebar-layout" div): too big to be one region, so it is split like any container."""
    if box is None:
        return False
    return box["h"] >= th.wrapper_min_height * page["h"] and box["w"] >= th.band_min_width * page["w"]


def _explicit_role(el: Element, st: Stat, box: dict[str, int] | None) -> tuple[str, str]:
    """Role from markup evidence: ARIA role, landmark element, form fields, the core's rule vocabulary."""
    aria = el.get("role").strip().lower()
    if aria in ARIA_ROLES:
        return ARIA_ROLES[aria], f"role={aria}"
    if el.tag in LANDMARK_TAGS and not _inside_article(el):
        return LANDMARK_TAGS[el.tag], f"<{el.tag}>"
    if el.tag == "form" or el.find("form") is not None and st.units < 300:
        r = _form_role(el)
        if r:
            return r
    if el.tag == "iframe" or el.tag == "ins" or (box and st.units == 0):
        if box and (box["w"], box["h"]) in AD_SIZES:
            return ADS, f"ad slot size {box['w']}x{box['h']}"
    toks = tokens_of(el.get("class") + " " + el.get("id"))
    if not toks:
        return "", ""
    for rule in PARTIAL_RULES:
        if rule.id in RULE_ROLES and toks & rule.match:
            if rule.guard is not None and rule.id != "comments" and rule.guard(el, st):
                continue  # the core would spare it too (prose under a "related" class)
            return RULE_ROLES[rule.id], f"core rule {rule.id}"
    return "", ""


def _form_role(el: Element) -> tuple[str, str] | None:
    fields = [e for e in el.iter() if e.tag in ("input", "textarea", "select")]
    if any(f.tag == "textarea" for f in fields):
        return COMMENT_FORM, "form with a text area"
    for f in fields:
        kind = f.get("type").lower()
        name = (f.get("name") + " " + f.get("id") + " " + f.get("placeholder")).lower()
        if kind == "search" or f.get("name").lower() in ("q", "s", "query") or "search" in name:
            return SEARCH, "form with a search field"
    return None


def _inside_article(el: Element) -> bool:
    return any(a.tag in ("article", "main", "section") or a.get("role") == "main" for a in el.ancestors())


def _kept_box(root: Element, carved: set[int]) -> dict[str, int] | None:
    """The box of what the core kept of its root: the union of the boxes outside the carved parts."""
    boxes: list[dict[str, int]] = []
    stack = [root]
    while stack:
        el = stack.pop()
        for c in el.element_children:
            if c.nid in carved:
                continue
            if any(d.nid in carved for d in c.iter(include_self=False)):
                stack.append(c)  # holds a carved part: look at its children
                continue
            b = visible_box(c)
            if b is not None and c.tag not in ("script", "style"):
                boxes.append(b)
    return _union(boxes) if boxes else visible_box(root)


def _union(boxes: list[dict[str, int]]) -> dict[str, int]:
    x0 = min(b["x"] for b in boxes)
    y0 = min(b["y"] for b in boxes)
    x1 = max(b["x"] + b["w"] for b in boxes)
    y1 = max(b["y"] + b["h"] for b in boxes)
    return {"x": x0, "y": y0, "w": x1 - x0, "h": y1 - y0}


def _union_box(el: Element) -> dict[str, int]:
    boxes = [b for b in (visible_box(e) for e in el.iter()) if b]
    return _union(boxes) if boxes else {"x": 0, "y": 0, "w": 0, "h": 0}


def _page_box(body: Element, blocks: list[Block]) -> dict[str, int]:
    b = visible_box(body) or {"x": 0, "y": 0, "w": 0, "h": 0}
    right = max([b["x"] + b["w"], *(x.box["x"] + x.box["w"] for x in blocks)])
    bottom = max([b["y"] + b["h"], *(x.box["y"] + x.box["h"] for x in blocks)])
    return {"x": 0, "y": 0, "w": max(1, right), "h": max(1, bottom)}


def _holds_title(b: Block, title: str | None, main: dict[str, int], th: Thresholds) -> bool:
    """A short block above the article that holds the extracted title: the headline (often with the byline
    and date) sits outside the element the core chose, but it is part of the article."""
    if b.st.units > th.title_block_max_chars:
        return False
    if b.box["y"] + b.box["h"] > main["y"] + 2 or main["y"] - b.box["y"] > th.title_max_gap:
        return False
    if b.el.tag == "h1" or b.el.find("h1") is not None and b.st.units <= th.unit_max_chars:
        return True  # the page's top heading right above the article
    want = _tokens(title or "")
    if len(want) < 3:
        return False
    have = _tokens(b.el.text())
    # the page's title may carry the site name, the headline may be shortened: most words in common
    return len(want & have) >= th.title_overlap * min(len(want), len(have))


def _tokens(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.lower()) if len(w) > 1}


def _link_words(el: Element) -> float:
    """Average words per link: headlines (related stories) are long, menu items short."""
    links = [a for a in el.iter() if a.tag == "a" and a.get("href")]
    if not links:
        return 0.0
    return sum(word_count(a.text()) for a in links) / len(links)


def _by_position(
    b: Block, main: dict[str, int] | None, page: dict[str, int], th: Thresholds
) -> tuple[str, str]:
    """Role from where the block sits relative to the main content and the page, and from its links."""
    box, st = b.box, b.st
    wide = box["w"] >= th.band_min_width * page["w"]
    narrow = box["w"] <= th.sidebar_max_width * page["w"]
    links = st.link_density >= th.link_dense
    headlines = links and _link_words(b.el) >= th.headline_link_words
    if b.role == HEADER_OR_FOOTER:
        return (HEADER if box["y"] + box["h"] / 2 < page["h"] / 2 else FOOTER), b.evidence
    if main is None:
        if links:
            return NAV, "link-dense"
        return OTHER, "no main content to place it against"
    m_top, m_bottom = main["y"], main["y"] + main["h"]
    top, bottom = box["y"], box["y"] + box["h"]
    beside = min(bottom, m_bottom) - max(top, m_top) >= 0.5 * min(box["h"], main["h"]) and (
        box["x"] >= main["x"] + main["w"] - 2 or box["x"] + box["w"] <= main["x"] + 2
    )
    if beside and narrow:
        return (RELATED if headlines else SIDEBAR), "beside the main content, narrow"
    if bottom <= m_top + 2:
        if wide and top < 0.5 * page["w"] and not headlines:
            return (NAV if links else HEADER), "above the main content, full width"
        if links:
            return (RELATED if headlines else NAV), "above the main content, links"
        return HEADER, "above the main content"
    if top >= m_bottom - 2:
        if st.units >= th.comments_min_chars and not links and looks_like_thread(b.el):
            return COMMENTS, "below the main content, thread-shaped"
        if headlines:
            return RELATED, "below the main content, headline links"
        if wide and bottom >= page["h"] - max(400, 0.15 * page["h"]):
            return FOOTER, "at the bottom of the page, full width"
        if links:
            return NAV, "below the main content, links"
        return OTHER, "below the main content"
    if links:
        return (RELATED if headlines else NAV), "links"
    return OTHER, "no evidence"


def _score(blocks: list[Block], page: dict[str, int], viewport_height: int, w: Weights) -> None:
    for b in blocks:
        b.words = word_count(b.text if b.text is not None else block_text(b.el))
    max_words = max([b.words for b in blocks] + [1])
    max_area = max([b.box["w"] * b.box["h"] for b in blocks] + [1])
    half = page["w"] / 2
    for b in blocks:
        if b.role == MAIN:
            b.importance = 1.0
            continue
        cx = b.box["x"] + b.box["w"] / 2
        s = (
            w.words * b.words / max_words
            + w.area * (b.box["w"] * b.box["h"]) / max_area
            + w.center * max(0.0, 1 - abs(cx - half) / half)
            + w.text * (1 - b.st.link_density)
            + w.fold * (1.0 if b.box["y"] < 2 * viewport_height else 0.0)
        )
        b.importance = min(0.99, s * ROLE_FACTOR.get(b.role, 1.0))
