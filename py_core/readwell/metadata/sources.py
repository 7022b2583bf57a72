"""Where each metadata field comes from, in order of trust: the ``SOURCES`` table.

A field takes the first source that gives a non-empty value (after that source's ``tidy`` step, if any).
``head`` sources are read before the pipeline runs (it needs the title and byline); ``body`` sources only
fill what the head left empty, once the root is known (``complete_metadata``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Where = Literal["jsonld", "meta", "html", "body-attr", "title", "h1", "link", "site-root", "body"]


@dataclass(frozen=True)
class Source:
    """One place a value can come from.

    ``where``: ``jsonld`` (a property of the page's Article object), ``meta`` (a ``<meta>`` by lower-cased
    property/name/itemprop/http-equiv), ``html`` / ``body-attr`` (an attribute of ``<html>`` / ``<body>``),
    ``title`` (the ``<title>`` element), ``h1`` (the first ``<h1>``), ``link`` (``<link rel>`` targets,
    ``key`` lists the rel values), ``site-root`` (``/favicon.ico`` of an http(s) page), ``body`` (a reader
    of ``body.py``, once the root is known). ``tidy`` names a per-source step (``_tidy_steps`` in
    ``__init__``); a value it turns empty falls through to the next source.
    """

    where: Where
    key: str = ""
    tidy: str = ""


@dataclass(frozen=True)
class FieldSources:
    order: tuple[Source, ...]
    why: str


def _meta(*keys: str, tidy: str = "") -> tuple[Source, ...]:
    return tuple(Source("meta", k, tidy) for k in keys)


SOURCES: dict[str, FieldSources] = {
    "title": FieldSources(
        (
            Source("jsonld", "headline"),
            *_meta("og:title", "twitter:title", "dc.title"),
            Source("title"),
            Source("h1"),
            Source("body", "heading"),
        ),
        "The publisher's structured headline first; share-card titles next (they rarely carry the site name);"
        " <title> usually does (clean_title drops it); the root's first heading when the head has nothing.",
    ),
    "byline": FieldSources(
        (
            Source("jsonld", "author"),
            Source("jsonld", "creator"),
            *_meta(
                "author",
                "article:author",
                "dc.creator",
                "parsely-author",
                "sailthru.author",
                "byl",
                tidy="byline",
            ),
            Source("body", "byline"),
        ),
        "JSON-LD names are structured (several authors join as 'A, B'); meta values are free text, so a URL"
        " (article:author is often a profile link) is skipped and 'By ...' and dates are cleaned off."
        " twitter:creator is a handle, not a name: not a source. Then a byline element near the root.",
    ),
    "published": FieldSources(
        (
            Source("jsonld", "datePublished", "date"),
            *_meta(
                "article:published_time",
                "og:published_time",
                "published_time",
                "date",
                "pubdate",
                "publish-date",
                "dc.date",
                "dc.date.issued",
                "sailthru.date",
                "parsely-pub-date",
                "citation_publication_date",
                tidy="date",
            ),
            Source("jsonld", "dateCreated", "date"),
            Source("body", "time"),
        ),
        "Explicit publication dates first, dateCreated (often the draft's date) last; a value that is not a"
        " date falls through. Then <time> near the root.",
    ),
    "modified": FieldSources(
        (
            Source("jsonld", "dateModified", "date"),
            *_meta("article:modified_time", "og:updated_time", "modified_time", "last-modified", tidy="date"),
            Source("body", "time"),
        ),
        "As published; <time class=updated> or itemprop=dateModified near the root last.",
    ),
    "site_name": FieldSources(
        (
            Source("meta", "og:site_name"),
            Source("jsonld", "publisher"),
            Source("meta", "application-name"),
            Source("meta", "twitter:site", "handle"),
        ),
        "og:site_name is written for display; the publisher's name next; a Twitter handle (without @) last.",
    ),
    "lang": FieldSources(
        (
            Source("html", "lang"),
            Source("html", "xml:lang"),
            Source("jsonld", "inLanguage"),
            Source("meta", "content-language"),
            Source("meta", "og:locale", "locale"),
        ),
        "The document's own language attribute is what browsers use; og:locale (en_US) is a share-card hint.",
    ),
    "dir": FieldSources(
        (Source("html", "dir", "lower"), Source("body-attr", "dir", "lower")),
        "The document's dir; a value other than rtl/ltr falls back to the language (RTL_LANGS). Once the root"
        " is known, the nearest dir on the root or its ancestors overrides (text direction is inherited).",
    ),
    "excerpt": FieldSources(
        (
            *_meta("description", "og:description", "twitter:description"),
            Source("jsonld", "description"),
            Source("body", "paragraph"),
        ),
        "The page's own summary; the article's first real paragraph when there is none.",
    ),
    "lead_image": FieldSources(
        (
            *_meta("og:image", "og:image:url", "og:image:secure_url"),
            Source("jsonld", "image"),
            *_meta("twitter:image", "twitter:image:src"),
            Source("body", "image"),
        ),
        "The share image chosen by the publisher; the article's first image when there is none. The value"
        " chosen must then be an http(s) URL (an unsafe og:image gives no lead image, not the next source).",
    ),
    "canonical_url": FieldSources(
        (Source("link", "canonical", "url"), Source("meta", "og:url", "url")),
        "rel=canonical is the publisher's statement; og:url usually agrees. Only http(s) URLs count.",
    ),
    "favicon": FieldSources(
        (Source("link", "icon apple-touch-icon", "url"), Source("site-root", "/favicon.ico")),
        "A declared icon; else where browsers look by default (http(s) pages only).",
    ),
}
