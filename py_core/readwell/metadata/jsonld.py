"""JSON-LD: the schema.org Article-family object a page describes itself with, and its values as strings.

Pages break their JSON-LD in a few usual ways (HTML comments or CDATA around it, raw newlines in strings,
trailing commas): the reader repairs those and gives up quietly on anything else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..dom import Document, Element, normalize_space
from .head import unescape_once

ARTICLE_TYPES = frozenset(
    """Article NewsArticle BlogPosting ReportageNews AnalysisNewsArticle OpinionNewsArticle ReviewNewsArticle
    BackgroundNewsArticle TechArticle ScholarlyArticle Report SocialMediaPosting LiveBlogPosting Recipe
    HowTo APIReference MedicalScholarlyArticle SatiricalArticle DiscussionForumPosting""".split()
)
MAX_DEPTH = 6  # @graph / mainEntity nesting followed; real pages use 2-3, deeper is a hostile page
MAX_ITEMS = 200  # items of one list followed (a page listing thousands of teasers costs no more)
MAX_NAMES = 20  # authors read from one value
_URL = re.compile(r"^https?://")
_CONTROLS = re.compile(r"[\x00-\x1f]")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _json_loads_lenient(raw: str) -> Any:
    raw = raw.strip().removeprefix("<!--").removesuffix("-->").strip()
    raw = raw.removeprefix("//<![CDATA[").removesuffix("//]]>").strip()
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        pass
    try:  # common breakage: raw newlines/tabs in strings, trailing commas
        return json.loads(_TRAILING_COMMA.sub(r"\1", _CONTROLS.sub(" ", raw)))
    except (ValueError, RecursionError):
        return None


def _flatten(obj: Any, out: list[dict[str, Any]], depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        return
    if isinstance(obj, list):
        for o in obj[:MAX_ITEMS]:
            _flatten(o, out, depth + 1)
    elif isinstance(obj, dict):
        out.append(obj)
        if "@graph" in obj:
            _flatten(obj["@graph"], out, depth + 1)
        main = obj.get("mainEntity")
        if isinstance(main, dict | list):
            _flatten(main, out, depth + 1)


def _types(o: dict[str, Any]) -> set[str]:
    t = o.get("@type")
    if isinstance(t, str):
        return {t.rsplit("/", 1)[-1]}
    if isinstance(t, list):
        return {x.rsplit("/", 1)[-1] for x in t if isinstance(x, str)}
    return set()


def jsonld_objects(doc: Document, scripts: list[Element] | None = None) -> list[dict[str, Any]]:
    """Every object of every ``application/ld+json`` script, ``@graph`` and ``mainEntity`` flattened.

    ``scripts``: the document's ``<script>`` elements when the caller has them (``elements_by_tag``)."""
    out: list[dict[str, Any]] = []
    for s in doc.root.iter() if scripts is None else scripts:
        if s.tag == "script" and s.get("type").strip().lower() == "application/ld+json":
            data = _json_loads_lenient(s.text())
            if data is not None:
                _flatten(data, out)
    return out


def jsonld_article(doc: Document, scripts: list[Element] | None = None) -> dict[str, Any] | None:
    """The page's Article-family object (or a WebPage with a headline or date), None when there is none."""
    objs = jsonld_objects(doc, scripts)
    arts = [o for o in objs if _types(o) & ARTICLE_TYPES]
    if not arts:
        arts = [o for o in objs if _types(o) & {"WebPage"} and (o.get("headline") or o.get("datePublished"))]
    if not arts:
        return None
    # Prefer the one with the most fields (a page may list teasers as Article too).
    return max(arts, key=lambda o: (bool(o.get("articleBody")), bool(o.get("headline")), len(o)))


def ld_text(v: Any) -> str:
    """A scalar value as text; objects, lists and booleans are not text."""
    if isinstance(v, str):
        return normalize_space(unescape_once(v))
    if isinstance(v, int | float) and not isinstance(v, bool):
        return str(v)
    return ""


def names(v: Any) -> list[str]:
    """Person or organization names of a value (``"A"``, ``{"name": "A"}``, lists of both); URLs are not
    names (``author`` is often a profile link)."""
    if isinstance(v, str):
        return [normalize_space(v)] if v.strip() and not _URL.match(v.strip()) else []
    if isinstance(v, dict):
        return names(v.get("name"))
    if isinstance(v, list):
        out: list[str] = []
        for x in v[:MAX_NAMES]:
            out.extend(n for n in names(x) if n not in out)
        return out
    return []


def image_url(v: Any) -> str:
    """The URL of an image value: a string, an ImageObject (``url``, ``contentUrl``, ``@id``), or the
    first of a list."""
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, dict):
        return image_url(v.get("url") or v.get("contentUrl") or v.get("@id"))
    if isinstance(v, list) and v:
        return image_url(v[0])
    return ""


def _first_name(v: Any) -> str:
    found = names(v)
    return found[0] if found else ""


# Properties whose schema.org value is an object or a list, with how each becomes one string; any other
# property is read as text (``ld_text``).
_SHAPES: dict[str, Callable[[Any], str]] = {
    "author": lambda v: ", ".join(names(v)),  # several authors: one byline "A, B"
    "creator": lambda v: ", ".join(names(v)),
    "publisher": _first_name,  # an Organization: its name is the site name
    "image": image_url,
}


def ld_value(ld: dict[str, Any], key: str) -> str:
    """Property ``key`` of the article object as one string ("" when absent or not usable)."""
    return _SHAPES.get(key, ld_text)(ld.get(key))
