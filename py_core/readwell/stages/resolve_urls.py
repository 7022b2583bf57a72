"""resolve_urls: relative links, image sources and ``srcset`` entries become absolute, honouring ``<base
href>``.

After ``resolve_deferred`` (it creates media from lazy images and noscript fallbacks) and ``select_root``
(only the root is resolved), before the sanitizer, which judges schemes on absolute URLs. ``<base href>`` is
read from the original head (the element itself never reaches the output) and only an http(s) base is
honoured.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

from ..context import Context
from ..dom import set_attr
from ..urls import base_url, split_srcset

# Stages this one must follow (the docstring says why); a test checks the pipeline table against them.
AFTER: tuple[str, ...] = ("resolve_deferred", "select_root")


URL_ATTRS = {
    "a": ("href",),
    "img": ("src",),
    "source": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "blockquote": ("cite",),
    "q": ("cite",),
    "del": ("cite",),
    "ins": ("cite",),
    "area": ("href",),
    "track": ("src",),
}


def absolutize(base: str | None, url: str) -> str:
    u = url.strip()
    if not base or not u or u.startswith("#") or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", u):
        return u
    try:
        return urljoin(base, u)
    except ValueError:
        return u


def absolutize_srcset(base: str | None, value: str) -> str:
    return ", ".join(absolutize(base, u) + (" " + d if d else "") for u, d in split_srcset(value))


def run(ctx: Context) -> None:
    root = ctx.root or ctx.doc.body
    base = base_url(ctx.doc, ctx.options.url)
    ctx.meta.base_url = base
    for el in root.iter():
        for attr in URL_ATTRS.get(el.tag, ()):
            if attr in el.attrs:
                set_attr(el, attr, absolutize(base, el.attrs[attr]))
        if "srcset" in el.attrs and el.tag in ("img", "source"):
            set_attr(el, "srcset", absolutize_srcset(base, el.attrs["srcset"]))
