"""The heading outline and the images of a rendered page, with where they sit.

Why levels from visual size as well as tags: pages pick heading tags for styling (an ``h3`` larger than the
``h2``, a page with no ``h1``); a reader goes by what looks bigger. ``level`` is the rank of the heading's
look (font size, then weight) among the page's shown headings, 1 = the most prominent; ``tag_level`` is the
tag's. Without layout (a static parse) the levels are the tags'.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin

from ..dom import Element, normalize_space
from .blocks import visible_box

HEADING_TAG = re.compile(r"^h([1-6])$")
MAX_HEADING_CHARS = 300  # longer "headings" are styled paragraphs: not outline entries
MIN_IMAGE_SIDE = 24  # px; smaller images are icons, bullets and tracking pixels
LAZY_SRC_ATTRS = ("data-src", "data-lazy-src", "data-original")  # a placeholder src with the real one here
PLACEHOLDER = re.compile(r"^data:|blank\.gif|spacer|placeholder|1x1", re.I)


def _tag_level(el: Element) -> int | None:
    m = HEADING_TAG.match(el.tag)
    if m:
        return int(m.group(1))
    if el.get("role").strip().lower() == "heading":
        lvl = el.get("aria-level").strip()
        return int(lvl) if lvl.isdigit() and 1 <= int(lvl) <= 6 else 2  # ARIA's default level is 2
    return None


def outline(body: Element, in_main: Callable[[Element], bool]) -> list[dict[str, Any]]:
    """Shown headings as a tree: ``{level, tag_level, text, font_size, in_main, box, children}``."""
    found: list[tuple[Element, int, str]] = []
    for el in body.iter():
        lvl = _tag_level(el)
        if lvl is None:
            continue
        text = normalize_space(el.text())
        if not text or len(text) > MAX_HEADING_CHARS:
            continue
        if el.layout is not None and visible_box(el) is None:
            continue  # hidden heading (a collapsed menu's title, an off-screen accessibility label)
        found.append((el, lvl, text))
    looks = sorted({_look(el, lvl) for el, lvl, _ in found}, reverse=True)
    rank = {lk: i + 1 for i, lk in enumerate(looks)}
    flat: list[dict[str, Any]] = []
    for el, lvl, text in found:
        lay = el.layout or {}
        flat.append(
            {
                "level": min(6, rank[_look(el, lvl)]) if el.layout else lvl,
                "tag_level": lvl,
                "text": text,
                "font_size": lay.get("font_size"),
                "in_main": in_main(el),
                "box": visible_box(el),
                "children": [],
            }
        )
    return _tree(flat)


def _look(el: Element, tag_level: int) -> tuple[float, int, int]:
    """How prominent a heading looks: font size, weight, then the tag (h2 before h3 at equal looks)."""
    lay = el.layout or {}
    return (float(lay.get("font_size") or 0), int(lay.get("font_weight") or 400), -tag_level)


def _tree(flat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Nest each heading under the nearest earlier heading of a smaller level."""
    top: list[dict[str, Any]] = []
    stack: list[dict[str, Any]] = []
    for h in flat:
        while stack and stack[-1]["level"] >= h["level"]:
            stack.pop()
        (stack[-1]["children"] if stack else top).append(h)
        stack.append(h)
    return top


def images(
    body: Element,
    page_url: str | None,
    in_main: Callable[[Element], bool],
    kept_srcs: set[str],
    block_of: Callable[[Element], str | None],
) -> list[dict[str, Any]]:
    """Shown images: ``{src, alt, caption, box, in_article, in_main, block}``.

    ``in_article``: the image is in the extracted content (its URL is in ``content_html``); ``in_main``: it
    sits inside the main content's region; ``block``: the id of the block holding it."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for el in body.iter():
        if el.tag != "img":
            continue
        box = visible_box(el)
        if el.layout is not None and (box is None or min(box["w"], box["h"]) < MIN_IMAGE_SIDE):
            continue
        src = _src(el)
        if not src:
            continue
        url = urljoin(page_url, src) if page_url else src
        if url in seen:
            continue
        seen.add(url)
        out.append(
            {
                "src": url,
                "alt": normalize_space(el.get("alt")) or None,
                "caption": _caption(el),
                "box": box,
                "in_article": url in kept_srcs,
                "in_main": in_main(el),
                "block": block_of(el),
            }
        )
    return out


def _src(el: Element) -> str:
    src = el.get("src").strip()
    if not src or PLACEHOLDER.search(src):
        for name in LAZY_SRC_ATTRS:
            if el.get(name).strip():
                return el.get(name).strip()
        srcset = el.get("srcset").strip()
        if srcset:
            return srcset.split(",")[0].split()[0]
    return "" if src.startswith("data:") else src


def _caption(el: Element) -> str | None:
    """The figure's caption, else the image's title attribute."""
    for a in el.ancestors():
        if a.tag == "figure":
            cap = a.find("figcaption")
            if cap is not None:
                text = normalize_space(cap.text())
                if text:
                    return text
            break
        if a.tag in ("article", "main", "section", "body"):
            break
    return normalize_space(el.get("title")) or None
