"""``product`` on product pages: name, price, availability, images, specifications, rating.

Structured data first, because the shop wrote it for machines: JSON-LD ``Product`` (read with the core's own
lenient JSON-LD reader), then schema.org microdata (``itemtype=…/Product``), then Open Graph ``product:*``
tags. What they leave out comes from the visual layout: a prominent price (its own short element, in a font
at least as big as the body text, bold or larger) near the page's top heading, the largest images near it,
and specification tables (two cells a row) or ``dl`` lists. A page with none of the structured kinds is a
product page only if it shows both a prominent price near its title and a specification table; an article
that mentions a price is not. ``sources`` says where each field came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from urllib.parse import urljoin

from ..dom import Document, Element, normalize_space
from ..metadata import jsonld_objects, meta_map
from .blocks import visible_box
from .prices import Money, currency_code, looks_like_price, parse_price

SCHEMA_PRODUCT = ("Product", "ProductGroup", "IndividualProduct", "ProductModel", "Vehicle", "Book")
PLAIN_NUMBER = re.compile(r"^\d+(\.\d+)?$")
MAX_IMAGES = 10
MAX_SPECS = 100
# visual evidence
PRICE_MAX_DISTANCE = 700  # px between the top heading and the price
PRICE_MIN_FONT_RATIO = 1.0  # the price's font size / the body text's
IMAGE_MIN_SIDE = 150  # px: product photos, not thumbnails of other products
IMAGE_MAX_DISTANCE = 900  # px from the heading
SPEC_MAX_NAME, SPEC_MAX_VALUE = 80, 300  # longer cells are prose, not a specification


def product_info(doc: Document, page_url: str | None) -> dict[str, Any] | None:
    """The product the page sells, or None when it shows no product."""
    out: dict[str, Any] = {}
    sources: dict[str, str] = {}

    def put(key: str, value: Any, source: str) -> None:
        if value not in (None, "", [], {}) and key not in out:
            out[key] = value
            sources[key] = source

    ld = _jsonld_product(doc)
    if ld is not None:
        for k, v in _from_jsonld(ld, page_url).items():
            put(k, v, "json-ld")
    md = _microdata_product(doc)
    if md is not None:
        for k, v in _from_microdata(md, page_url).items():
            put(k, v, "microdata")
    meta = meta_map(doc)
    structured = bool(out) or meta.get("og:type", "").lower().startswith("product")
    for k, v in _from_open_graph(meta, page_url).items():
        if structured or k not in ("name", "images"):
            put(k, v, "open-graph")
    vis = _visual(doc, page_url)
    if not structured and not (vis.get("price") and vis.get("specifications")):
        return None
    for k, v in vis.items():
        put(k, v, "layout")
    if not out:
        return None
    out = {k: out.get(k) for k in ("name", "price", "availability", "images", "specifications", "rating")}
    out["images"] = out["images"] or []
    out["specifications"] = out["specifications"] or []
    out["sources"] = sources
    return out


# --- JSON-LD ------------------------------------------------------------------------------------------------


def _types(o: dict[str, Any]) -> set[str]:
    t = o.get("@type")
    items = t if isinstance(t, list) else [t]
    return {x.rsplit("/", 1)[-1] for x in items if isinstance(x, str)}


def _jsonld_product(doc: Document) -> dict[str, Any] | None:
    found = [o for o in jsonld_objects(doc) if _types(o) & set(SCHEMA_PRODUCT)]
    # a page may list related products too: the one with an offer and the most fields is the page's
    return max(found, key=lambda o: (bool(o.get("offers")), len(o))) if found else None


def _first(v: Any) -> Any:
    return v[0] if isinstance(v, list) and v else v


def _text(v: Any) -> str | None:
    v = _first(v)
    if isinstance(v, dict):
        v = v.get("name") or v.get("@value")
    if isinstance(v, str | int | float) and not isinstance(v, bool):
        s = normalize_space(str(v))
        return s or None
    return None


def _from_jsonld(o: dict[str, Any], base: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": _text(o.get("name"))}
    offers = o.get("offers")
    offer_list = offers if isinstance(offers, list) else [offers]
    for off in offer_list:
        if not isinstance(off, dict):
            continue
        spec = _first(off.get("priceSpecification"))
        spec = spec if isinstance(spec, dict) else {}
        raw = next(
            (x for x in (off.get("price"), off.get("lowPrice"), spec.get("price")) if x not in (None, "")),
            None,
        )
        currency = _text(off.get("priceCurrency")) or _text(spec.get("priceCurrency"))
        money = _amount(raw, currency)
        if money is not None:
            out["price"] = money.to_dict()
            out["availability"] = _availability(off.get("availability"))
            break
    out["images"] = _image_urls(o.get("image"), base)
    specs = []
    for p in _as_list(o.get("additionalProperty")):
        if isinstance(p, dict) and _text(p.get("name")) and _text(p.get("value")) is not None:
            specs.append({"name": _text(p.get("name")), "value": _text(p.get("value"))})
    out["specifications"] = specs[:MAX_SPECS]
    r = o.get("aggregateRating")
    if isinstance(r, dict):
        out["rating"] = _rating(
            _text(r.get("ratingValue")),
            _text(r.get("reviewCount")) or _text(r.get("ratingCount")),
            _text(r.get("bestRating")),
        )
    return out


def _as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else [] if v is None else [v]


def _amount(raw: Any, currency: str | None) -> Money | None:
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        raw = repr(raw)
    if not isinstance(raw, str):
        return None
    if PLAIN_NUMBER.match(raw.strip()):
        # structured data writes "." as the decimal point (schema.org): "1.299" is one and a bit, where the
        # parser, reading it as a shown price, would take the dot for a thousands separator
        return Money(Decimal(raw.strip()), currency_code(currency))
    return parse_price(raw, currency)


def _availability(v: Any) -> str | None:
    s = _text(v)
    return s.rstrip("/").rsplit("/", 1)[-1] if s else None


def _image_urls(v: Any, base: str | None) -> list[str]:
    urls: list[str] = []
    for x in _as_list(v):
        u = x.get("url") or x.get("contentUrl") if isinstance(x, dict) else x
        u = _first(u)
        if isinstance(u, str) and u.strip() and not u.strip().startswith("data:"):
            full = urljoin(base, u.strip()) if base else u.strip()
            if full not in urls:
                urls.append(full)
    return urls[:MAX_IMAGES]


def _rating(value: str | None, count: str | None, best: str | None) -> dict[str, Any] | None:
    v = _number(value)
    if v is None:
        return None
    c = _number(count)
    return {"value": v, "count": int(c) if c is not None else None, "best": _number(best)}


def _number(s: str | None) -> float | None:
    try:
        return float(s.replace(",", ".")) if s else None
    except ValueError:
        return None


# --- microdata ----------------------------------------------------------------------------------------------


def _microdata_product(doc: Document) -> Element | None:
    for el in doc.root.iter():
        t = el.get("itemtype")
        if "itemscope" in el.attrs and any(t.rstrip("/").endswith("/" + s) for s in SCHEMA_PRODUCT):
            return el
    return None


def _props(scope: Element) -> Iterator[tuple[str, Element]]:
    """(name, element) of the scope's own itemprops (not those of nested items)."""
    stack = list(reversed(scope.element_children))
    while stack:
        el = stack.pop()
        for name in el.get("itemprop").split():
            yield name, el
        if "itemscope" not in el.attrs:
            stack.extend(reversed(el.element_children))


def _value(el: Element) -> str | None:
    for attr in ("content", "src", "href", "datetime", "value"):
        if attr in el.attrs:
            v = el.get(attr).strip()
            if v:
                return v
    t = normalize_space(el.text())
    return t or None


def _from_microdata(scope: Element, base: str | None) -> dict[str, Any]:
    props: dict[str, list[Element]] = {}
    for name, el in _props(scope):
        props.setdefault(name, []).append(el)
    # an offer and a rating are nested items: read their own props
    for nested in ("offers", "aggregateRating"):
        for el in props.get(nested, []):
            for name, sub in _props(el):
                props.setdefault(name, []).append(sub)

    def one(name: str) -> str | None:
        els = props.get(name)
        return _value(els[0]) if els else None

    out: dict[str, Any] = {"name": one("name")}
    money = _amount(one("price") or one("lowPrice"), one("priceCurrency"))
    if money is not None:
        out["price"] = money.to_dict()
    out["availability"] = _availability(one("availability"))
    out["images"] = _image_urls([_value(e) for e in props.get("image", [])], base)
    specs = []
    for el in props.get("additionalProperty", []):
        pv = {n: _value(e) for n, e in _props(el)}
        if pv.get("name") and pv.get("value"):
            specs.append({"name": pv["name"], "value": pv["value"]})
    out["specifications"] = specs[:MAX_SPECS]
    out["rating"] = _rating(one("ratingValue"), one("reviewCount") or one("ratingCount"), one("bestRating"))
    return out


# --- Open Graph ---------------------------------------------------------------------------------------------


def _from_open_graph(meta: dict[str, str], base: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": meta.get("og:title")}
    amount = meta.get("product:price:amount") or meta.get("og:price:amount")
    currency = meta.get("product:price:currency") or meta.get("og:price:currency")
    money = _amount(amount, currency) if amount else None
    if money is not None:
        out["price"] = money.to_dict()
    out["availability"] = meta.get("product:availability") or meta.get("og:availability")
    out["images"] = _image_urls(meta.get("og:image"), base)
    return out


# --- the visual layout --------------------------------------------------------------------------------------


def _visual(doc: Document, base: str | None) -> dict[str, Any]:
    """Name, price, images and specifications as the page shows them (needs the snapshot's layout)."""
    body = doc.body
    title = _top_heading(body)
    if title is None:
        return {}
    tbox = visible_box(title)
    assert tbox is not None
    out: dict[str, Any] = {"name": normalize_space(title.text()) or None}
    price = _prominent_price(body, tbox)
    if price is not None:
        out["price"] = price.to_dict()
    out["images"] = _near_images(body, tbox, base)
    out["specifications"] = _spec_tables(body)
    return out


def _top_heading(body: Element) -> Element | None:
    """The page's ``h1`` (the first shown one), else its biggest shown heading."""
    shown = [e for e in body.iter() if e.tag in ("h1", "h2") and visible_box(e) is not None]
    h1 = [e for e in shown if e.tag == "h1"]
    if h1:
        return h1[0]
    return max(shown, key=lambda e: float((e.layout or {}).get("font_size") or 0), default=None)


def _body_font(body: Element) -> float:
    sizes = [float((p.layout or {}).get("font_size") or 0) for p in body.iter() if p.tag == "p" and p.layout]
    sizes = sorted(s for s in sizes if s > 0)
    return sizes[len(sizes) // 2] if sizes else 16.0


def _prominent_price(body: Element, tbox: dict[str, int]) -> Money | None:
    """The biggest-font price text near the heading: an element whose own text is a price."""
    base_font = _body_font(body)
    best: tuple[float, Money] | None = None
    for el in body.iter():
        box = visible_box(el)
        if box is None or el.tag in ("script", "style", "del", "s", "strike"):
            continue  # a struck-through price is the old one
        if any(
            isinstance(c, Element) and c.tag not in ("span", "sup", "sub", "small", "b", "strong")
            for c in el.children
        ):
            continue
        money = looks_like_price(el.text())
        if money is None:
            continue
        if abs(box["y"] - tbox["y"]) > PRICE_MAX_DISTANCE:
            continue
        lay = el.layout or {}
        font = float(lay.get("font_size") or 0)
        bold = int(lay.get("font_weight") or 400) >= 600
        if font < PRICE_MIN_FONT_RATIO * base_font or (font <= base_font and not bold):
            continue
        key = font + (0.5 if bold else 0.0)
        if best is None or key > best[0]:
            best = (key, money)
    return best[1] if best else None


def _near_images(body: Element, tbox: dict[str, int], base: str | None) -> list[str]:
    found: list[tuple[int, str]] = []
    for el in body.iter():
        if el.tag != "img":
            continue
        box = visible_box(el)
        if box is None or min(box["w"], box["h"]) < IMAGE_MIN_SIDE:
            continue
        if abs(box["y"] - tbox["y"]) > IMAGE_MAX_DISTANCE:
            continue
        src = el.get("src").strip()
        if src and not src.startswith("data:"):
            found.append((box["w"] * box["h"], urljoin(base, src) if base else src))
    found.sort(key=lambda t: -t[0])
    urls: list[str] = []
    for _, u in found:
        if u not in urls:
            urls.append(u)
    return urls[:MAX_IMAGES]


def _spec_tables(body: Element) -> list[dict[str, str]]:
    """Name/value pairs from shown tables whose rows have two cells, and from ``dl`` lists."""
    specs: list[dict[str, str]] = []
    for el in body.iter():
        if visible_box(el) is None and el.layout is not None:
            continue
        if el.tag == "table":
            if any(t.tag == "table" for t in el.iter(include_self=False)):
                continue  # a layout table: its cells are page regions, not name/value pairs
            pairs: list[tuple[str, str]] = []
            for r in (r for r in el.iter() if r.tag == "tr"):
                cells = [c for c in r.element_children if c.tag in ("td", "th")]
                name, value = (normalize_space(c.text()) for c in cells) if len(cells) == 2 else ("", "")
                if not name or len(name) > SPEC_MAX_NAME or len(value) > SPEC_MAX_VALUE:
                    pairs = []
                    break
                pairs.append((name, value))
            if len(pairs) >= 2:
                specs += [{"name": n, "value": v} for n, v in pairs if n and v]
        elif el.tag == "dl":
            name = None
            for c in el.iter(include_self=False):
                if c.tag == "dt":
                    name = normalize_space(c.text())
                elif c.tag == "dd" and name:
                    specs.append({"name": name, "value": normalize_space(c.text())})
                    name = None
    return [s for s in specs if s["value"]][:MAX_SPECS]
