"""What render mode adds to the extract JSON, computed from the snapshot's layout and the extraction.

One entry point, ``analyze``: the rendered document (with boxes and font sizes) and the core's result in,
``blocks`` out (later sections add the outline, images and product data). Pure Python on the snapshot, so
it is tested without a browser too.
"""

from __future__ import annotations

from typing import Any

from ..dom import Document, Element, css_path
from ..extract import Result
from .blocks import Thresholds, Weights, segment_page


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
    """``blocks`` for the render JSON."""
    root = root_element(doc, result)
    return {
        "blocks": segment_page(
            doc, root, result.removals, result.title, result.text, viewport_height, thresholds, weights
        ),
    }
