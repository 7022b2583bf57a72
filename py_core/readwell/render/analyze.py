"""What render mode adds to the extract JSON, computed from the snapshot's layout and the extraction.

One entry point, ``analyze``: the rendered document (with boxes and font sizes) and the core's result in,
``blocks``, ``outline``, ``images`` and ``product`` out. Pure Python on the snapshot, so it is tested
without a browser too.
"""

from __future__ import annotations

import html
import re
from typing import Any

from ..dom import Document, Element, css_path
from ..extract import Result
from .blocks import MAIN, Block, Thresholds, Weights, block_id, find_blocks
from .product import product_info
from .structure import images, outline

SRC_ATTR = re.compile(r'\ssrc="([^"]*)"')


def root_element(doc: Document, result: Result) -> Element | None:
    """The element the core chose as the article root (``result.root`` is its CSS path in ``doc``)."""
    if not result.root or doc.body is None:
        return None
    cache: dict[int, dict[int, tuple[int, int]]] = {}
    for el in doc.html.iter():
        if css_path(el, cache) == result.root:
            return el
    return None


def analyze(
    doc: Document,
    result: Result,
    viewport_height: int = 800,
    thresholds: Thresholds | None = None,
    weights: Weights | None = None,
) -> dict[str, Any]:
    """``blocks``, ``outline``, ``images`` and ``product`` (None unless a product page) for the JSON."""
    root = root_element(doc, result)
    blocks = find_blocks(
        doc, root, result.removals, result.title, result.text, viewport_height, thresholds, weights
    )
    index = {b.el.nid: (block_id(i + 1), b) for i, b in enumerate(blocks)}

    def holder(el: Element) -> tuple[str, Block] | None:
        for e in (el, *el.ancestors()):
            if e.nid in index:
                return index[e.nid]
        return None

    def in_main(el: Element) -> bool:
        h = holder(el)
        return h is not None and h[1].role == MAIN

    def block_of(el: Element) -> str | None:
        h = holder(el)
        return h[0] if h else None

    kept = {html.unescape(m) for m in SRC_ATTR.findall(result.content_html or "")}
    return {
        "blocks": [b.to_dict(i + 1) for i, b in enumerate(blocks)],
        "outline": outline(doc.body, in_main),
        "images": images(doc.body, result.url, in_main, kept, block_of),
        "product": product_info(doc, result.url),
    }
