"""remove_by_selector: exact selectors and partial class/id token patterns (``rules.py``), logged as such,
and a comment thread closing the root (``remove_trailing_thread``; the thread is found by
``signals.trailing_thread``, which remove_low_score's trim after a sections climb also asks).

After ``remove_low_score``: most boilerplate is already gone by shape; these rules catch blocks that look
like prose (a newsletter ask, a comment thread) but are named as boilerplate. Partial patterns match whole
class/id tokens, and most carry a guard that keeps blocks reading as prose (``Related work`` sections).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..context import EXACT, PARTIAL, Context
from ..dom import Element, Text, nodes_after, normalize_space
from ..measure import Stat
from ..rules import (
    COMMENT_TOKENS,
    LINK_TAG,
    bio_headed,
    tokens_of,
)
from ..signals import match_exact, match_partial, same_title, trailing_thread
from ..textstats import BLOCK_TAGS as BLOCKS
from ..textstats import SUBHEADINGS, text_units
from ..thresholds import (
    BIO_BOX_MAX_UNITS,
    MOST_OF_ROOT_NAMED,
    POST_LABEL_MAX_WORDS,
    POST_MIN_UNITS,
    POST_TAIL_BOX_MAX_UNITS,
    POST_TITLE_MIN_WORDS,
    TITLE_BLOCK_HEADINGS,
    TITLED_POST_RULES,
)

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("remove_low_score",)


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    # First the thread (its start's "comments" name is also a token rule's), then the measures again: the
    # rules below weigh each block against the root's text without the thread.
    remove_trailing_thread(ctx, root, ctx.measure(root))
    title = normalize_space(ctx.meta.title or "").lower()
    # The cleaned title and the <title> as written: cleaning may keep the site's name rather than the post's
    # ("Post title - Blog name" under an <h1> naming the blog).
    raw = ctx.doc.root.find("title")
    titles = [t for t in {title, normalize_space(raw.text()).lower() if raw is not None else ""} if t]
    # The blog host's boxes after a titled post first: the "form" rule below would take their forms, not their
    # notes.
    remove_post_tail(ctx, root, titles)
    stats = ctx.measure(root)
    found: list[tuple[Element, str, str, str]] = []
    root_units = stats[root.nid].units
    stack = [c for c in root.children if isinstance(c, Element)]
    stack.reverse()
    protected = ctx.protected_in_walk(root)  # (the walk below descends into unprotected elements only)
    while stack:
        el = stack.pop()
        if protected(el):
            continue
        toks = tokens_of(el.get("class") + " " + el.get("id"))
        most = el.nid in ctx.core or (root_units and stats[el.nid].units > MOST_OF_ROOT_NAMED * root_units)
        if most and not toks & COMMENT_TOKENS:
            # A wrapper holding most of the article (ASP.NET's page-wide <form>) or the paragraphs scoring
            # chose (a theme's "widget" column holding the post) is never boilerplate.
            stack += reversed([c for c in el.children if isinstance(c, Element)])
            continue
        exact = match_exact(el)
        partial = match_partial(el, stats[el.nid]) if exact is None else None
        if exact is not None:
            found.append((el, EXACT, exact.id, exact.reason))
            continue
        titled = partial is not None and partial.id in TITLED_POST_RULES
        if titled and any(opens_with_title(el, t) for t in titles):
            partial = None  # the titled post itself (its class names its author): walk into it
        if partial is not None:
            found.append((el, PARTIAL, partial.id, partial.reason))
            continue
        if headed_bio_box(el, stats[el.nid], title):
            found.append((el, PARTIAL, "author-bio", "author bio box (by its heading)"))
            continue
        stack += reversed([c for c in el.children if isinstance(c, Element)])
    for el, kind, rule, reason in found:
        ctx.remove(el, kind, rule, reason)


def remove_post_tail(ctx: Context, root: Element, titles: list[str]) -> None:
    """After the titled post (``opens_with_title``, below the root, with ``POST_MIN_UNITS`` of text besides
    its headline), remove the short boxes following it (``POST_TAIL_BOX_MAX_UNITS``) that are a blog host's
    machinery by shape: a posting step (``posting_box``) or a ping address (``address_box``). With its
    class names masked the comment area's captcha note and trackback box followed short posts into the
    output; inside the post the same shapes (a how-to with a form, an address quoted in the prose) stay."""
    if not titles:
        return
    # (one walk of each element's opening for all the titles, and the heading it found is the post's)
    post = head = None
    for e in root.iter(include_self=False):
        head = opening_heading(e)
        if head is not None and restates_title(head, titles):
            post = e
            break
    if post is None or head is None:
        return
    if text_units(post.text()) - text_units(head.text()) < POST_MIN_UNITS:
        return  # a header holding only the headline: the post's body follows it
    stats = ctx.measure(root)
    found: list[tuple[Element, str]] = []
    for s in nodes_after(post, root):
        if not isinstance(s, Element):
            continue
        if s.nid not in stats or stats[s.nid].units > POST_TAIL_BOX_MAX_UNITS or ctx.is_protected(s):
            continue
        if posting_box(s):
            found.append((s, "a posting step after the post: short text beside a form with a submit"))
        elif address_box(s):
            found.append((s, "a ping address after the post: a label and an unlinked address"))
    for el, why in found:
        ctx.remove(el, PARTIAL, "post-tail", why)


SUBMIT_TYPES = frozenset({"submit", "image"})


def posting_box(el: Element) -> bool:
    """``el`` holds a form with a control that submits it (``<input type=submit|image>``, ``<button>``)."""
    for f in el.iter():
        if f.tag == "form":
            for c in f.iter(include_self=False):
                if c.tag == "button" or c.tag == "input" and c.get("type").strip().lower() in SUBMIT_TYPES:
                    return True
    return False


ADDRESS_LINE = re.compile(r"^(https?://|www\.)\S+$", re.I)


def address_box(el: Element) -> bool:
    """``el`` holds a block whose lines (split at ``<br>``) are two: a label ending in a colon
    (``POST_LABEL_MAX_WORDS`` at most) and an address written out, outside any link (a ping address is
    to copy, not to follow; an address the writer links stays a link)."""
    for b in el.iter():
        if b.tag not in ("p", "div", "dd", "li"):
            continue
        lines: list[str] = [""]
        linked = False
        for node in b.iter_nodes():
            if isinstance(node, Element):
                if node.tag == "br":
                    lines.append("")
                elif node is not b and node.tag in BLOCKS:
                    lines = []
                    break
            elif isinstance(node, Text):
                if node.under_tag(LINK_TAG, b):
                    linked = True
                lines[-1] += node.data
        lines = [normalize_space(x) for x in lines if normalize_space(x)]
        if (
            len(lines) == 2
            and not linked
            and lines[0].endswith((":", "："))
            and len(lines[0].split()) <= POST_LABEL_MAX_WORDS
            and ADDRESS_LINE.match(lines[1])
        ):
            return True
    return False


def opens_with_title(el: Element, title: str) -> bool:
    """``el``'s first heading (``TITLE_BLOCK_HEADINGS``), with no text before it, restates the page's title
    (``same_title``) in at least ``POST_TITLE_MIN_WORDS`` words: the block is the titled post, whatever a
    token of its class says. Blog themes flag the post's container with its author
    (``entry-author-<name>``), and when the root is a wrapper holding the post and a comment form, the
    post no longer holds most of the root and the author-bio rule took it; a bio box opens with the
    person's name or "About the author", not with the page's headline."""
    if not title:
        return False
    head = opening_heading(el)
    return head is not None and restates_title(head, (title,))


def opening_heading(el: Element) -> Element | None:
    """``el``'s first heading (``TITLE_BLOCK_HEADINGS``, below ``el``) when no text comes before it."""
    for node in el.iter_nodes():
        if isinstance(node, Text):
            if node.data.strip():
                return None
        elif isinstance(node, Element) and node is not el and node.tag in TITLE_BLOCK_HEADINGS:
            return node
    return None


def restates_title(head: Element, titles: Iterable[str]) -> bool:
    """``head``'s text restates one of ``titles`` (``same_title``) in at least ``POST_TITLE_MIN_WORDS``
    words (``opens_with_title``)."""
    text = normalize_space(head.text())
    if len(text.split()) < POST_TITLE_MIN_WORDS:
        return False
    return any(t and same_title(text, t) for t in titles)


def headed_bio_box(el: Element, st: Stat, title: str) -> bool:
    """A short block headed "About the author" / "About me" (``rules.BIO_HEADING``) inside the root: the
    author's box under the post, named by its heading where its class says nothing (``guestauthor``).
    Not on a page about them (the heading is in the title), and not a long block (an essay)."""
    if el.tag not in ("div", "section", "aside") or st.units > BIO_BOX_MAX_UNITS:
        return False
    return bio_headed(el, title, SUBHEADINGS)


def remove_trailing_thread(ctx: Context, root: Element, stats: dict[int, Stat]) -> None:
    """Remove the comment thread closing the root (``trailing_thread``): its start and everything after it."""
    found = trailing_thread(root, stats, ctx.core, ctx.is_protected)
    if found is None:
        return
    start, kind, tail = found
    why = f"comment thread: its {kind} and everything after it to the end of the article"
    ctx.remove(start, PARTIAL, "comment-thread", why)
    for n in tail:
        if n.parent is not None and (isinstance(n, Element) or isinstance(n, Text) and n.data.strip()):
            ctx.remove(n, PARTIAL, "comment-thread", why)
