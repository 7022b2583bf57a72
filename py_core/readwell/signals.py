"""Shared judgements: what several stages (and the readerable check) ask of an element.

Why one module: a stage holds its ``run(ctx)`` and its own helpers; when two stages need the same verdict
(can this block hold the article? is it prose? is it named as boilerplate?) the verdict lives here, so
stages never import each other and a judgement is changed in one place.
"""

from __future__ import annotations

from .dom import Element
from .measure import Stat
from .rules import (
    COMMENT_TOKENS,
    EXACT_SELECTORS,
    MAYBE_TOKENS,
    NEGATIVE_TOKENS,
    PARTIAL_PATTERNS,
    POSITIVE_TOKENS,
    UNLIKELY_ROLES,
    UNLIKELY_TOKENS,
    tokens_of,
)
from .selectors import compile_selector
from .textstats import hidden_reason
from .thresholds import (
    ARTICLE_BODY_WEIGHT,
    ARTICLE_TAG_UNITS,
    BIO_BOX_MAX_UNITS,
    CLASS_WEIGHT,
    HEADER_MAX_PARAGRAPHS,
    MOST_OF_PAGE,
    PROSE_MAX_LINK_DENSITY,
    PROSE_MIN_MARKS,
    PROSE_MIN_UNITS,
    PROSE_UNITS_WITHOUT_PARAGRAPH,
    THREAD_MIN_ITEMS,
)

# Elements that never hold the article: not scored, not counted by the readerable check.
UNLIKELY_TAGS = frozenset({"nav", "footer", "aside", "menu", "form", "dialog", "button", "select"})
SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "head", "svg", "math", "iframe", "object"})


def class_weight(el: Element) -> int:
    """+25 for article-ish class/id tokens, -25 for boilerplate ones (Readability's weights)."""
    w = 0
    for value in (el.get("class"), el.get("id")):
        if not value:
            continue
        toks = tokens_of(value)
        if toks & NEGATIVE_TOKENS:
            w -= CLASS_WEIGHT
        if toks & POSITIVE_TOKENS:
            w += CLASS_WEIGHT
    if el.get("itemprop") == "articleBody":
        w += ARTICLE_BODY_WEIGHT
    return w


def article_holders(body: Element, stats: dict[int, Stat]) -> set[int]:
    """Ids of elements that contain the page's main landmark: ``<main>``, ``[role=main]``,
    ``[itemprop=articleBody]`` or an ``<article>`` with real text. Such a block is a wrapper, whatever its
    class says (themes name content wrappers "theiaStickySidebar" or "container penci_sidebar")."""
    out: set[int] = set()
    for e in body.iter():
        if (
            e.tag == "main"
            or e.get("role") == "main"
            or e.get("itemprop") == "articleBody"
            or (e.tag == "article" and stats[e.nid].units >= ARTICLE_TAG_UNITS)
        ):
            out.update(a.nid for a in e.ancestors())
    return out


def is_unlikely(
    el: Element, stats: dict[int, Stat], body_units: int, holders: set[int] | None = None
) -> str | None:
    """Why ``el`` cannot hold the article (skipped by scoring), or None."""
    if el.tag in ("body", "html", "a"):
        return None
    if holders and el.nid in holders and not hidden_reason(el):
        return None
    hidden = hidden_reason(el)
    if hidden:
        return hidden
    role = el.get("role")
    if el.tag == "dialog" or role in ("dialog", "alertdialog"):
        return "dialog"
    st = stats[el.nid]
    # A wrapper holding most of the page's text is never "unlikely" by its name or by being a <form>
    # (ASP.NET wraps whole pages in one form; themes name wrappers "page-header-wrap").
    toks = tokens_of(el.get("class") + " " + el.get("id"))
    if (
        body_units
        and st.units > MOST_OF_PAGE * body_units
        and (el.tag in ("form", "div", "section", "main") or not role)
        and not toks & COMMENT_TOKENS
    ):
        return None  # (comment threads are the one boilerplate that often outweighs the article)
    if el.tag in UNLIKELY_TAGS:
        return f"<{el.tag}> element"
    if el.tag == "header" and st.paragraphs < HEADER_MAX_PARAGRAPHS:
        return "<header> element"
    if role in UNLIKELY_ROLES:
        return f"role={role}"
    bad = toks & UNLIKELY_TOKENS
    if bad and not toks & MAYBE_TOKENS:
        return f"unlikely class/id token {sorted(bad)[0]!r}"
    return None


_EXACT = tuple((compile_selector(sel), sel, reason) for sel, reason in EXACT_SELECTORS)


def match_exact(el: Element) -> tuple[str, str] | None:
    """(selector, reason) of the first exact rule matching ``el``."""
    for pred, sel, reason in _EXACT:
        if pred(el):
            return sel, reason
    return None


def reads_as_prose(st: Stat) -> bool:
    """Several clauses, low link density and a real amount of text: a section of the article."""
    return (
        st.units >= PROSE_MIN_UNITS
        and st.marks >= PROSE_MIN_MARKS
        and st.link_density < PROSE_MAX_LINK_DENSITY
        and (st.paragraphs >= 1 or st.units >= PROSE_UNITS_WITHOUT_PARAGRAPH)
    )


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


def match_partial(el: Element, st: Stat) -> tuple[str, str] | None:
    value = f"{el.get('class')} {el.get('id')}".strip()
    if not value:
        return None
    toks = tokens_of(value)
    for pattern, guard, reason in PARTIAL_PATTERNS:
        hit = toks & pattern
        if not hit:
            continue
        if guard == "unless-prose" and reads_as_prose(st):
            continue
        if guard == "unless-prose-section" and reads_as_prose(st) and not looks_like_thread(el):
            continue  # "comment-on-method": a section of the article, not a comment thread
        if guard == "bio-box" and (st.units > BIO_BOX_MAX_UNITS or el.tag in ("p", "span", "a", "address")):
            continue  # a byline span is metadata, not a bio box
        if guard == "outside-root-top" and el.tag not in ("header", "footer", "div", "section", "aside"):
            continue
        if guard == "outside-root-top" and (reads_as_prose(st) or st.headings and el.find("h1") is not None):
            continue
        return f"[class/id~={sorted(hit)[0]}]", reason
    return None
