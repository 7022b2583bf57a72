"""Article metadata: title, byline, dates, site, language, direction, excerpt, lead image, canonical, favicon.

Each field's sources, in order of trust, are the data in ``sources.SOURCES`` (JSON-LD, OpenGraph and other
``<meta>``, head elements, then the body near the chosen root). Modules: ``jsonld`` (the page's Article
object), ``head`` (``<meta>``, ``<link>``, ``<title>``), ``body`` (values near the root), and the pure
helpers ``dates``, ``titles``, ``bylines``. Every value is a plain string without control characters;
escaping happens where values are rendered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, replace
from typing import Any
from urllib.parse import urljoin

from ..dom import Document, Element, css_path, normalize_space
from ..render_html import strip_controls
from ..urls import base_url, is_safe_url, scheme_of
from .body import body_byline, body_dates, first_image, first_paragraph, root_dir, root_heading
from .bylines import clean_byline
from .dates import normalize_date
from .head import elements_by_tag, link_hrefs, meta_map, title_text, unescape_once
from .jsonld import jsonld_article, jsonld_objects, ld_value
from .sources import SOURCES, Source
from .titles import clean_title

__all__ = [
    "SOURCES",
    "Metadata",
    "RootFacts",
    "clean_byline",
    "clean_title",
    "complete_metadata",
    "head_metadata",
    "jsonld_article",
    "jsonld_objects",
    "meta_map",
    "normalize_date",
    "root_dir",
    "unescape_once",
]

RTL_LANGS = frozenset({"ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ckb", "iw"})
MAX_LANG_CHARS = 35  # BCP 47 tags in practice; a longer "language" is junk
_URL = re.compile(r"^https?://")


@dataclass
class Metadata:
    """The metadata of one page; its fields are ``Result``'s fields of the same names."""

    title: str | None = None
    byline: str | None = None
    published: str | None = None
    modified: str | None = None
    site_name: str | None = None
    lang: str | None = None
    dir: str | None = None
    excerpt: str | None = None
    lead_image: str | None = None
    canonical_url: str | None = None
    favicon: str | None = None

    def without_controls(self) -> Metadata:
        """Page strings minus control characters (terminal escapes in a CLI's JSON, YAML front matter that
        no longer parses)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        return Metadata(**{k: strip_controls(v) if isinstance(v, str) else v for k, v in values.items()})


def _byline_text(v: str) -> str | None:
    """A free-text byline from a ``<meta>``: a URL is not a name; "By ...", dates and roles go."""
    return None if _URL.match(v) else clean_byline(v.lstrip("@"))


def _tidy_steps(base: str | None) -> dict[str, Callable[[str], str | None]]:
    """The per-source steps ``Source.tidy`` names (``url`` needs the page's base URL)."""
    return {
        "": lambda v: v,
        "byline": _byline_text,
        "date": normalize_date,
        "handle": lambda v: v.lstrip("@"),  # twitter:site "@example" → "example"
        "locale": lambda v: v.replace("_", "-"),  # og:locale "en_US" → "en-US"
        "lower": str.lower,
        "url": lambda v: _abs_http(base, v),
    }


_HEAD_TAGS = frozenset({"meta", "script", "h1"})


class _Head:
    """The head-time readers of ``Source.where``, over one document."""

    def __init__(self, doc: Document, url: str | None, elements: list[Element] | None = None) -> None:
        self.doc = doc
        found = elements_by_tag(doc, _HEAD_TAGS, elements)  # one walk of the page instead of three
        self.meta = meta_map(doc, found["meta"])
        self.ld = jsonld_article(doc, found["script"]) or {}
        self.base = base_url(doc, url)
        body = doc.body
        self.h1s = [normalize_space(h.text()) for h in found["h1"] if h.within(body)][:5]
        self.tidy = _tidy_steps(self.base)

    def candidates(self, src: Source) -> Iterator[str]:
        if src.where == "jsonld":
            yield ld_value(self.ld, src.key)
        elif src.where == "meta":
            yield self.meta.get(src.key, "")
        elif src.where == "html":
            yield self.doc.html.get(src.key)
        elif src.where == "body-attr":
            yield self.doc.body.get(src.key)
        elif src.where == "title":
            yield title_text(self.doc)
        elif src.where == "h1":
            yield self.h1s[0] if self.h1s else ""
        elif src.where == "link":
            yield from link_hrefs(self.doc, frozenset(src.key.split()))
        elif src.where == "site-root":
            if self.base and scheme_of(self.base) in ("http", "https"):
                yield urljoin(self.base, src.key)
        # "body" sources are read by complete_metadata, once the root is known

    def first(self, name: str) -> str | None:
        """The field's first non-empty value from the head sources of ``SOURCES``."""
        for src in SOURCES[name].order:
            for raw in self.candidates(src):
                value = self.tidy[src.tidy](raw) if raw else None
                if value:
                    return value
        return None


def head_metadata(doc: Document, url: str | None, elements: list[Element] | None = None) -> Metadata:
    """Everything knowable without the root (read before the pipeline: it drops a heading that repeats the
    title and a line that repeats the byline). ``elements``: ``list(doc.root.iter())`` when the caller has
    it (``Document.copy`` makes it)."""
    head = _Head(doc, url, elements)
    site = head.first("site_name")
    title_raw = head.first("title")
    lang = head.first("lang")
    lang = normalize_space(lang)[:MAX_LANG_CHARS] if lang else None
    direction = head.first("dir") or ""
    if direction not in ("rtl", "ltr"):
        direction = "rtl" if lang and lang.split("-")[0].lower() in RTL_LANGS else "ltr"
    return Metadata(
        title=(clean_title(title_raw, site, head.h1s) or None) if title_raw else None,
        byline=head.first("byline"),
        published=head.first("published"),
        modified=head.first("modified"),
        site_name=normalize_space(site) if site else None,
        lang=lang,
        dir=direction,
        excerpt=head.first("excerpt"),
        # The chosen share image must be usable; an unusable one does not fall through to the next source.
        lead_image=_abs_http(head.base, head.first("lead_image") or ""),
        canonical_url=head.first("canonical_url"),
        favicon=head.first("favicon"),
    ).without_controls()


class RootFacts:
    """What the result reads of the *input* page around the chosen root: the body readers of ``SOURCES``
    that look near the root (byline, dates, heading), the root's ``dir`` and its CSS path. Each is read once
    (remove_by_pattern asks for the byline, and the result asks again).

    ``root`` is the root's element in ``doc`` as the input had it (None: no root, or one the stages made).
    ``take`` reads now everything the result may ask for and lets go of the tree: a run that changes the
    input document itself (``extract.run_pipeline`` without the copy) takes them before its first removal.
    Asked afterwards for something not taken, it reads ``again()``, the input decoded anew."""

    def __init__(self, doc: Document | None, root: Element | None, nid: int | None) -> None:
        self.nid = nid  # the working root's node id (None: no root), to tell which root these are about
        self.has_root = root is not None
        self._doc = doc
        self._root = root
        self._again: Callable[[], tuple[Document, Element | None]] | None = None
        self._read: dict[str, Any] = {}

    def _value(self, key: str, reader: Callable[[Document, Element | None], Any]) -> Any:
        if key not in self._read:
            if self._doc is None:
                assert self._again is not None
                self._doc, self._root = self._again()
            self._read[key] = reader(self._doc, self._root)
        return self._read[key]

    def path(self) -> str | None:
        return self._value("path", lambda _, r: css_path(r) if r is not None else None)

    def byline(self) -> str | None:
        return self._value("byline", body_byline)

    def dates(self) -> tuple[str | None, str | None]:
        return self._value("time", body_dates)

    def heading(self) -> str | None:
        return self._value("heading", lambda _, r: root_heading(r) if r is not None else None)

    def dir(self) -> str | None:
        return self._value("dir", lambda _, r: root_dir(r))

    def take(self, md: Metadata, again: Callable[[], tuple[Document, Element | None]]) -> None:
        """Read what ``complete_metadata(md, self, ...)`` and ``remove_by_pattern`` will ask (the body
        sources of the fields ``md`` lacks), the path and ``dir``, then drop the tree."""
        self.path()
        self.dir()
        for name, spec in SOURCES.items():
            if not getattr(md, name):
                for src in spec.order:
                    if src.where == "body" and src.key in _ROOT_READERS:
                        getattr(self, _ROOT_READERS[src.key])()
        self._doc = self._root = None
        self._again = again


# The ``body`` sources read in the input page near the root (``RootFacts``' methods); the others ("paragraph",
# "image") read the article the stages left.
_ROOT_READERS = {"byline": "byline", "time": "dates", "heading": "heading"}


def complete_metadata(
    md: Metadata,
    facts: RootFacts,
    content_root: Element | None,
    base: str | None,
) -> Metadata:
    """Fill what the head lacked from the body sources of ``SOURCES`` (bylines and dates near the root, its
    heading, read in the input page by ``facts``; excerpt and lead image from the article ``content_root``);
    the root's own ``dir`` wins."""

    def time_of(field: str) -> str | None:
        dates = facts.dates()  # one walk of the body for both fields
        return dates[0] if field == "published" else dates[1]

    readers: dict[str, Callable[[str], str | None]] = {
        "byline": lambda _: facts.byline(),
        "time": time_of,
        "heading": lambda _: facts.heading(),
        "paragraph": lambda _: first_paragraph(content_root) if content_root is not None else None,
        "image": lambda _: _image(base, content_root),
    }
    filled: dict[str, Any] = {}
    for name, spec in SOURCES.items():
        body = [readers[src.key] for src in spec.order if src.where == "body"]
        if body and not getattr(md, name):
            filled[name] = next((v for read in body if (v := read(name))), None)
    if facts.has_root:
        filled["dir"] = facts.dir() or md.dir
    return replace(md, **filled).without_controls()


def _image(base: str | None, content_root: Element | None) -> str | None:
    src = first_image(content_root) if content_root is not None else None
    return _abs_http(base, src) if src is not None else None


def _abs_http(base: str | None, url: str) -> str | None:
    """``url`` resolved against ``base``, if the result is a safe http(s) URL."""
    u = (url or "").strip()
    if not u:
        return None
    try:
        full = urljoin(base, u) if base else u
    except ValueError:
        return None
    return full if scheme_of(full) in ("http", "https") and is_safe_url(full) else None
