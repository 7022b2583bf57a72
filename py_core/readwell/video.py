"""Embedded video players: is an element one, and which link stands for it in the article.

Why: a player (``<iframe>``, Flash ``<object>``/``<embed>``, ``<video>``) cannot be in the output (the
sanitizer drops everything that loads or runs), so without this the article loses the video without a trace.
``normalize_structures`` puts ``<p data-embed="video"><a href=WATCH_URL>TITLE</a></p>`` in its place; the
link goes to the video's public page when the provider is known (``rules.VIDEO_PROVIDERS``), else to the
player URL itself without autoplay-like parameters, and only ever to an http(s) URL that passes
``urls.is_safe_url`` (the sanitizer checks it again).
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from .dom import Element, normalize_space
from .measure import VIDEO_MARK
from .rules import AUTOPLAY_PARAMS, GENERIC_PLAYER_TITLE, VIDEO_PROVIDERS, VIDEO_URL_WORDS, tokens_of
from .urls import is_safe_url, scheme_of

MAX_URL = 2000  # characters: a longer player URL is a payload, not a link a reader follows
MAX_TITLE = 200  # characters: a title attribute longer than a headline is cut with an ellipsis
PLAYER_TAGS = frozenset({"iframe", "embed", "object", "video"})
__all__ = ["PLAYER_TAGS", "VIDEO_MARK", "video_link", "video_title", "watch_url"]


def _absolute(src: str, base: str | None) -> str | None:
    """``src`` resolved against ``base``; None unless the result is a safe http(s) URL of sane length."""
    src = src.strip()
    if not src or len(src) > MAX_URL:
        return None
    if src.startswith("//"):
        src = "https:" + src  # protocol-relative players: the https form always exists
    try:
        url = urljoin(base, src) if base and scheme_of(src) is None else src
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or not is_safe_url(url):
        return None
    return url


def watch_url(src: str, base: str | None = None) -> tuple[str, bool] | None:
    """``(link, known)`` for a player URL: the provider's watch page (``known``), or the player URL without
    autoplay-like parameters when its host or path reads as a video player; None for anything else."""
    url = _absolute(src, base)
    if url is None:
        return None
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    for p in VIDEO_PROVIDERS:
        if not p.host.match(host):
            continue
        if p.query:
            vid = dict(parse_qsl(parts.query)).get(p.query, "")
            vid = vid[1:] if p.name == "Twitch" and vid[:1] == "v" else vid
            ok = vid.replace("-", "").replace("_", "").isalnum() and 2 <= len(vid) <= 64
            if ok:
                return p.watch.format(id=vid), True
            continue
        m = p.path.match(parts.path)
        if m:
            return p.watch.format(id=m.group(1)), True
    words = tokens_of(host.replace(".", " ")) | tokens_of(parts.path.replace("/", " "))
    if not words & VIDEO_URL_WORDS:
        return None
    query = [
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in AUTOPLAY_PARAMS
    ]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), "")), False


def player_src(el: Element) -> str:
    """The URL a player element loads: ``src`` (``data-src`` of a lazy one), an object's ``data`` or its
    ``movie`` parameter, or an inner ``<embed>``/``<source>``."""
    for attr in ("src", "data-src", "data"):
        if el.get(attr).strip():
            return el.get(attr)
    for c in el.iter(include_self=False):
        if c.tag == "param" and c.get("name").lower() in ("movie", "src") and c.get("value").strip():
            return c.get("value")
        if c.tag in ("embed", "source") and c.get("src").strip():
            return c.get("src")
    return ""


def video_link(el: Element, base: str | None) -> str | None:
    """The link that stands for player ``el``, or None (not a video player, or no safe URL).

    A ``<video>`` is a video whatever its host: its file URL is the link when nothing better exists.
    """
    src = player_src(el)
    found = watch_url(src, base)
    if found is not None:
        return found[0]
    if el.tag == "video":
        return _absolute(src, base)
    return None


def video_title(el: Element, caption: Element | None) -> str:
    """The player's own title (unless it only names the player), else the caption's text, else "Video"."""
    inner = [e.get("title") for e in el.iter(include_self=False) if e.tag in PLAYER_TAGS]  # <object><embed>
    own = (el.get("title"), el.get("aria-label"), *inner)
    for t in (*own, caption.text() if caption is not None else ""):
        t = normalize_space(t)
        if t and not GENERIC_PLAYER_TITLE.match(t):
            return t if len(t) <= MAX_TITLE else t[:MAX_TITLE].rstrip() + "…"
    return "Video"
