"""Article metadata: title, byline, dates, site, language, direction, excerpt, lead image, canonical, favicon.

Sources in order of trust: JSON-LD (schema.org Article family), OpenGraph / article:*, Twitter cards, other
``<meta>``, then the body. Body values (bylines, ``<time>``) are taken only inside the chosen root or just
before it in the same container, never from a card that is another ``<article>``: related-post cards carry
their own dates and authors. Every value is a plain string; escaping happens where values are rendered.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin

from .dom import Document, Element, normalize_space
from .render_html import strip_controls
from .rules import BYLINE_TEXT, BYLINE_TOKENS, TITLE_SEPARATORS, tokens_of
from .urls import base_url, is_safe_url, scheme_of

ARTICLE_TYPES = frozenset(
    """Article NewsArticle BlogPosting ReportageNews AnalysisNewsArticle OpinionNewsArticle ReviewNewsArticle
    BackgroundNewsArticle TechArticle ScholarlyArticle Report SocialMediaPosting LiveBlogPosting Recipe
    HowTo APIReference MedicalScholarlyArticle SatiricalArticle DiscussionForumPosting""".split()
)
RTL_LANGS = frozenset({"ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ckb", "iw"})


# --- JSON-LD ---------------------------------------------------------------------------------------------
def _json_loads_lenient(raw: str) -> Any:
    raw = raw.strip().removeprefix("<!--").removesuffix("-->").strip()
    raw = raw.removeprefix("//<![CDATA[").removesuffix("//]]>").strip()
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        pass
    try:  # common breakage: raw newlines/tabs in strings, trailing commas
        fixed = re.sub(r",\s*([}\]])", r"\1", re.sub(r"[\x00-\x1f]", " ", raw))
        return json.loads(fixed)
    except (ValueError, RecursionError):
        return None


def _flatten(obj: Any, out: list[dict[str, Any]], depth: int = 0) -> None:
    if depth > 6:
        return
    if isinstance(obj, list):
        for o in obj[:200]:
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


def jsonld_objects(doc: Document) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for s in doc.root.iter():
        if s.tag == "script" and s.get("type").strip().lower() == "application/ld+json":
            data = _json_loads_lenient(s.text())
            if data is not None:
                _flatten(data, out)
    return out


def jsonld_article(doc: Document) -> dict[str, Any] | None:
    objs = jsonld_objects(doc)
    arts = [o for o in objs if _types(o) & ARTICLE_TYPES]
    if not arts:
        arts = [o for o in objs if _types(o) & {"WebPage"} and (o.get("headline") or o.get("datePublished"))]
    if not arts:
        return None
    # Prefer the one with the most fields (a page may list teasers as Article too).
    return max(arts, key=lambda o: (bool(o.get("articleBody")), bool(o.get("headline")), len(o)))


def _str(v: Any) -> str:
    if isinstance(v, str):
        return normalize_space(unescape_once(v))
    if isinstance(v, int | float) and not isinstance(v, bool):
        return str(v)
    return ""


def _names(v: Any) -> list[str]:
    if isinstance(v, str):
        return [normalize_space(v)] if v.strip() and not re.match(r"^https?://", v.strip()) else []
    if isinstance(v, dict):
        return _names(v.get("name"))
    if isinstance(v, list):
        out: list[str] = []
        for x in v[:20]:
            out.extend(n for n in _names(x) if n not in out)
        return out
    return []


def _image_url(v: Any) -> str:
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, dict):
        return _image_url(v.get("url") or v.get("contentUrl") or v.get("@id"))
    if isinstance(v, list) and v:
        return _image_url(v[0])
    return ""


# --- meta tags -------------------------------------------------------------------------------------------
_ENTITY = re.compile(r"&(#\d{2,7}|#x[0-9a-fA-F]{2,6}|[a-zA-Z]{2,10});")


def unescape_once(s: str) -> str:
    """Meta values are often double-escaped (``&amp;#163;``): decode one more level. Values stay plain
    strings and are escaped again wherever they are rendered."""
    return html_lib.unescape(s) if _ENTITY.search(s) else s


def meta_map(doc: Document) -> dict[str, str]:
    """First value of each ``<meta>`` keyed by lower-cased property/name/itemprop/http-equiv."""
    out: dict[str, str] = {}
    for m in doc.root.iter():
        if m.tag != "meta":
            continue
        content = m.get("content")
        if not content.strip():
            continue
        for key in ("property", "name", "itemprop", "http-equiv"):
            k = m.get(key).strip().lower()
            if k and k not in out:
                out[k] = normalize_space(unescape_once(content))
    return out


# --- dates -----------------------------------------------------------------------------------------------
_MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)}


def normalize_date(value: str) -> str | None:
    """ISO 8601 from the date formats pages use; None when not a date. Z becomes +00:00."""
    v = normalize_space(value)
    if not v or len(v) > 80:
        return None
    m = re.match(
        r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?)?", v
    )
    if m:
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if not (1 <= mo <= 12 and 1 <= d <= 31 and 1900 <= y <= 2200):
            return None
        if m.group(4) is None:
            return f"{y:04d}-{mo:02d}-{d:02d}"
        hh, mm, ss = int(m.group(4)), int(m.group(5)), int(m.group(6) or 0)
        if hh > 23 or mm > 59 or ss > 60:
            return None
        tz = m.group(7)
        base = f"{y:04d}-{mo:02d}-{d:02d}T{hh:02d}:{mm:02d}:{min(ss, 59):02d}"
        if tz is None:
            return base
        if tz == "Z":
            return base + "+00:00"
        tz = tz if ":" in tz else tz[:3] + ":" + tz[3:]
        return base + tz
    if re.match(r"^\d{10}(\d{3})?$", v):  # unix timestamp
        ts = int(v[:10])
        return datetime.fromtimestamp(ts, tz=UTC).isoformat()
    try:
        dt = parsedate_to_datetime(v)
        if dt is not None:
            return dt.isoformat()
    except (TypeError, ValueError, IndexError):
        pass
    m = re.search(r"\b([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b", v)
    if m and m.group(1).lower() in _MONTHS:
        return _ymd(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))
    m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3})[a-z]*\.?,?\s+(\d{4})\b", v)
    if m and m.group(2).lower() in _MONTHS:
        return _ymd(int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1)))
    m = re.search(r"(\d{4})[/.年](\d{1,2})[/.月](\d{1,2})", v)
    if m:
        return _ymd(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    return None


def _ymd(y: int, m: int, d: int) -> str | None:
    try:
        return datetime(y, m, d).date().isoformat()
    except ValueError:
        return None


# --- title -----------------------------------------------------------------------------------------------
def clean_title(raw: str, site_name: str | None, h1s: list[str]) -> str:
    """Drop the site-name part of a ``Title | Site`` title; keep colons and in-title dashes."""
    title = normalize_space(raw)
    if not title:
        return ""
    parts = [p.strip() for p in TITLE_SEPARATORS.split(title) if p.strip()]
    if len(parts) < 2:
        return title
    low_h1 = {h.lower() for h in h1s}
    for p in parts:
        if p.lower() in low_h1:
            return p
    if site_name:
        sn = site_name.lower()
        rest = [p for p in parts if p.lower() != sn and sn not in p.lower()]
        if rest and len(rest) < len(parts):
            return _join_rest(title, rest)
    # The longest part that is a real title (several words) is the article title; site names are short.
    first, last = parts[0], parts[-1]
    if _words(first) >= 3 and _words(first) >= _words(last):
        return first
    if _words(last) >= 3 and _words(last) > _words(first):
        return last
    return title


def _join_rest(title: str, rest: list[str]) -> str:
    if len(rest) == 1:
        return rest[0]
    start = title.find(rest[0])
    end = title.find(rest[-1]) + len(rest[-1])
    return title[start:end] if 0 <= start < end else rest[0]


def _words(s: str) -> int:
    cjk = len(re.findall(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", s))
    return len(s.split()) + cjk // 2


# --- body lookups near the root ---------------------------------------------------------------------------
def _near_root(el: Element, root: Element | None) -> bool:
    """Inside the root, or before it inside one of its ancestors, and not inside another article card."""
    if root is None:
        return True
    ancestors_of_el = list(el.ancestors())
    if root in ancestors_of_el or el is root:
        return True
    # Skip elements inside an <article>/<li> card that does not contain the root.
    for a in ancestors_of_el:
        if a.tag in ("article", "li", "aside", "nav", "footer") and root not in set(a.iter()):
            return False
        if tokens_of(a.get("class") + " " + a.id) & {
            "related",
            "card",
            "teaser",
            "recirc",
            "sidebar",
            "promo",
            "more",
            "recommended",
            "trending",
        }:
            return False
    # Must share a near ancestor with the root (same header/container), within 3 levels of the root.
    root_anc = [root, *list(root.ancestors())[:3]]
    return any(a in ancestors_of_el for a in root_anc if a.tag not in ("body", "html", "#document"))


def body_byline(doc: Document, root: Element | None) -> str | None:
    scope = doc.body
    for el in scope.iter():
        if el.tag in ("script", "style", "nav", "footer"):
            continue
        toks = tokens_of(el.get("class") + " " + el.id)
        is_byline = el.get("rel") == "author" or el.get("itemprop") == "author" or bool(toks & BYLINE_TOKENS)
        if not is_byline:
            continue
        text = normalize_space(el.text())
        if not text or len(text) > 100 or not _near_root(el, root):
            continue
        name_el = next((e for e in el.iter() if e.get("itemprop") == "name"), None)
        if name_el is not None and normalize_space(name_el.text()):
            return normalize_space(name_el.text())
        return clean_byline(text)
    # Unclassed "By A. Writer" line near the root
    for el in scope.iter():
        if el.tag not in ("p", "span", "div", "address", "a", "strong", "em", "small"):
            continue
        if any(isinstance(c, Element) and c.tag in ("p", "div") for c in el.children):
            continue
        text = normalize_space(el.text())
        if 4 < len(text) < 100 and BYLINE_TEXT.match(text) and _near_root(el, root):
            return clean_byline(text)
    return None


def clean_byline(text: str) -> str | None:
    """'By A. Writer, 5 March 2024 | Staff' → 'A. Writer': the prefix, dates and trailing roles go."""
    t = normalize_space(text)
    m = BYLINE_TEXT.match(t)
    if m:
        t = m.group(2)
    t = re.split(r"\s+[|•·]\s+|\s+(?:on|updated|published)\s+(?=\w+\s+\d)", t, maxsplit=1)[0]
    parts = [p.strip() for p in t.split(",")]
    while len(parts) > 1 and (
        normalize_date(parts[-1]) or normalize_date(", ".join(parts[-2:])) or re.search(r"\d", parts[-1])
    ):
        parts.pop()  # "…, 5 March 2024" / "…, March 5, 2024" / "…, 10:00"
    t = ", ".join(parts).strip(" ,;:-–—|")
    return t or None


def body_dates(doc: Document, root: Element | None) -> tuple[str | None, str | None]:
    published = modified = None
    for el in doc.body.iter():
        if el.tag != "time" and el.get("itemprop") not in ("datePublished", "dateModified"):
            continue
        if not _near_root(el, root):
            continue
        raw = el.get("datetime") or el.get("content") or el.text()
        d = normalize_date(raw)
        if not d:
            continue
        kind = el.get("itemprop")
        if kind == "dateModified" or "updated" in tokens_of(el.get("class")):
            modified = modified or d
        else:
            published = published or d
    return published, modified


# --- assembly --------------------------------------------------------------------------------------------
def head_metadata(doc: Document, url: str | None) -> dict[str, Any]:
    """Everything knowable without the root (used early: the pipeline drops a heading that repeats the title)."""
    meta = meta_map(doc)
    ld = jsonld_article(doc) or {}
    base = base_url(doc, url)

    site = (
        meta.get("og:site_name")
        or _publisher(ld)
        or meta.get("application-name")
        or meta.get("twitter:site", "").lstrip("@")
        or None
    )
    h1s = [normalize_space(h.text()) for h in doc.body.iter() if h.tag == "h1"][:5]
    title_el = next((e for e in doc.head.iter() if e.tag == "title"), None)
    doc_title = normalize_space(title_el.text()) if title_el is not None else ""
    title_raw = (
        _str(ld.get("headline"))
        or meta.get("og:title")
        or meta.get("twitter:title")
        or meta.get("dc.title")
        or doc_title
        or (h1s[0] if h1s else "")
    )
    title = clean_title(title_raw, site, h1s) if title_raw else None

    authors = _names(ld.get("author")) or _names(ld.get("creator"))
    byline = ", ".join(authors) if authors else None
    if not byline:
        for k in (
            "author",
            "article:author",
            "dc.creator",
            "parsely-author",
            "sailthru.author",
            "byl",
            "twitter:creator",
        ):
            v = meta.get(k)
            if v and not re.match(r"^https?://", v):
                byline = clean_byline(v.lstrip("@")) if k != "twitter:creator" else None
                if byline:
                    break

    def date_from(*keys: str) -> str | None:
        for k in keys:
            v = _str(ld.get(k)) if k in ld else meta.get(k)
            if v:
                d = normalize_date(v)
                if d:
                    return d
        return None

    published = date_from(
        "datePublished",
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
        "dateCreated",
    )
    modified = date_from(
        "dateModified", "article:modified_time", "og:updated_time", "modified_time", "last-modified"
    )

    html = doc.html
    lang = (
        html.get("lang")
        or html.get("xml:lang")
        or _str(ld.get("inLanguage"))
        or meta.get("content-language")
        or meta.get("og:locale", "").replace("_", "-")
        or None
    )
    lang = normalize_space(lang)[:35] if lang else None
    direction = html.get("dir").lower() or doc.body.get("dir").lower()
    if direction not in ("rtl", "ltr"):
        direction = "rtl" if lang and lang.split("-")[0].lower() in RTL_LANGS else "ltr"

    excerpt = (
        meta.get("description")
        or meta.get("og:description")
        or meta.get("twitter:description")
        or _str(ld.get("description"))
        or None
    )
    image = (
        meta.get("og:image")
        or meta.get("og:image:url")
        or meta.get("og:image:secure_url")
        or _image_url(ld.get("image"))
        or meta.get("twitter:image")
        or meta.get("twitter:image:src")
        or ""
    )
    lead_image = _abs_http(base, image)

    canonical = None
    favicon = None
    for link in doc.head.iter():
        if link.tag != "link":
            continue
        rels = link.get("rel").lower().split()
        if "canonical" in rels and canonical is None:
            canonical = _abs_http(base, link.get("href"))
        if ("icon" in rels or "apple-touch-icon" in rels) and favicon is None:
            favicon = _abs_http(base, link.get("href"))
    if canonical is None and meta.get("og:url"):
        canonical = _abs_http(base, meta["og:url"])
    if favicon is None and base and scheme_of(base) in ("http", "https"):
        favicon = urljoin(base, "/favicon.ico")
    out = {
        "title": title or None,
        "byline": byline,
        "published": published,
        "modified": modified,
        "site_name": normalize_space(site) if site else None,
        "lang": lang,
        "dir": direction,
        "excerpt": excerpt,
        "lead_image": lead_image,
        "canonical_url": canonical,
        "favicon": favicon,
        "article_body": _str(ld.get("articleBody")) or None,
    }
    # Page strings stay plain strings, minus control characters (terminal escapes in a CLI's JSON, YAML
    # front matter that no longer parses).
    return {k: strip_controls(v) if isinstance(v, str) else v for k, v in out.items()}


def _publisher(ld: dict[str, Any]) -> str:
    p = ld.get("publisher")
    names = _names(p)
    return names[0] if names else ""


def _abs_http(base: str | None, url: str) -> str | None:
    u = (url or "").strip()
    if not u:
        return None
    try:
        full = urljoin(base, u) if base else u
    except ValueError:
        return None
    return full if scheme_of(full) in ("http", "https") and is_safe_url(full) else None


def complete_metadata(
    md: dict[str, Any], doc: Document, root: Element | None, content_root: Element | None, base: str | None
) -> dict[str, Any]:
    """Fill what the head lacked from the body, near the root; excerpt and lead image from the article."""
    md = _complete(dict(md), doc, root, content_root, base)
    return {k: strip_controls(v) if isinstance(v, str) else v for k, v in md.items()}


def _complete(
    md: dict[str, Any], doc: Document, root: Element | None, content_root: Element | None, base: str | None
) -> dict[str, Any]:
    if not md.get("byline"):
        md["byline"] = body_byline(doc, root)
    if not md.get("published") or not md.get("modified"):
        p, m = body_dates(doc, root)
        md["published"] = md.get("published") or p
        md["modified"] = md.get("modified") or m
    if not md.get("title") and root is not None:
        h = next((e for e in root.iter() if e.tag in ("h1", "h2")), None)
        if h is not None:
            md["title"] = normalize_space(h.text()) or None
    if content_root is not None:
        if not md.get("excerpt"):
            p = next(
                (e for e in content_root.iter() if e.tag == "p" and len(normalize_space(e.text())) > 40), None
            )
            if p is not None:
                t = normalize_space(p.text())
                md["excerpt"] = t if len(t) <= 200 else t[:197].rsplit(" ", 1)[0] + "…"
        if not md.get("lead_image"):
            img = next((e for e in content_root.iter() if e.tag == "img" and e.get("src")), None)
            if img is not None:
                md["lead_image"] = _abs_http(base, img.get("src"))
    return md


def root_dir(root: Element | None) -> str | None:
    for e in [root, *root.ancestors()] if root is not None else []:
        d = e.get("dir").lower()
        if d in ("rtl", "ltr"):
            return d
    return None
