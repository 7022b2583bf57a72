"""Render mode's layout analysis: visual blocks with roles and importance (readwell.render.blocks).

Two kinds of test: pages rendered in headless Chromium from 127.0.0.1 (one browser for the module, marked
``browser``), and synthetic snapshots with hand-set boxes that pin the position rules without a browser.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import sqlite3
import struct
import threading
import zlib
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest
import readwell
from extension_harness import FixtureServer
from readwell import cli
from readwell.adapters import from_snapshot
from readwell.errors import InputError
from readwell.extract import load_document
from readwell.render import RenderOptions, RenderResult
from readwell.render.analyze import analyze
from readwell.render.blocks import ROLES, Thresholds, Weights
from readwell.render.browser import BrowserPool
from readwell.render.cache import Cache, cache_key
from readwell.render.config import load_options
from readwell.render.prices import looks_like_price
from readwell.render.product import product_info
from readwell.render.run import backoff_s, render_page, render_with_retries
from readwell.render.screenshot import ROLE_COLOURS
from test_render import LOCAL_ONLY, PROSE, _closed_port, _need_browser, page


def _paras(tag: str, n: int) -> str:
    return "".join(f"<p>{tag} {i}: {PROSE}</p>" for i in range(n))


def _links(prefix: str, n: int, words: str) -> str:
    return "".join(f'<li><a href="/{prefix}{i}">{words} {i}</a></li>' for i in range(n))


# A portal-like article page: every region the issue names, marked by landmarks, the core's class words,
# form fields, an IAB-sized ad slot, or only by where it sits. Boxes come from real CSS layout.
PORTAL = page(
    "Portal",
    "<style>body{margin:0;font:16px sans-serif} #wrap{display:flex} #main{width:820px} #side{width:300px}"
    " .slot{width:300px;height:250px;background:#ccc}</style>"
    '<header><div class="brand">River Journal</div>'
    "<nav><ul>" + _links("section", 6, "Section") + "</ul></nav>"
    '<form action="/find"><input type="search" name="q"><button>Go</button></form></header>'
    '<div id="wrap"><div id="main"><article><h1>Survey of the river banks</h1>'
    + _paras("ARTICLE", 6)
    + '</article><div class="below-list"><h2>More stories</h2><ul>'
    + _links("story", 5, "Another long headline about the valley and its rivers number")
    + '</ul></div><section class="comments"><h2>3 comments</h2>'
    + "".join(
        f'<div class="comment"><span class="author">Reader {i}</span><p>COMMENT {i}: {PROSE}</p></div>'
        for i in range(3)
    )
    + '</section><form action="/reply"><textarea name="body"></textarea><button>Post</button></form>'
    '</div><div id="side"><div class="slot"></div><ul>' + _links("tool", 6, "Tool") + "</ul></div></div>"
    "<footer><p>Site footer: about, contact, terms.</p><ul>" + _links("legal", 4, "Legal") + "</ul></footer>",
)
# Headings whose tags disagree with their looks, a hidden heading, images in and out of the article.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201a0c1a5d50000000049454e44ae426082"
)
MEDIA = page(
    "Media",
    "<style>body{margin:0} h2{font-size:20px} h3{font-size:28px} img{width:400px;height:300px;display:block}"
    " .pix{width:1px;height:1px} #side{position:absolute;left:900px;top:0;width:300px}</style>"
    "<article><h1>Field notes</h1>"
    + _paras("INTRO", 2)
    + "<h2>Small-looking section</h2>"
    + _paras("ONE", 2)
    + "<h3>Big-looking subsection</h3>"
    + _paras("TWO", 2)
    + '<h2 style="display:none">Hidden heading</h2>'
    + '<figure><img src="/img/bank.png" alt="The east bank"><figcaption>The east bank in spring.'
    "</figcaption></figure>"
    + '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/img/lazy.png" alt="Lazy one">'
    + '<img class="pix" src="/img/pixel.png" alt="">'
    + _paras("THREE", 2)
    + '</article><div id="side"><h4>Elsewhere</h4>'
    '<img src="/img/ad.png" alt="Promo" title="A promotion"></div>',
)
# Product pages: one with JSON-LD (and a visible spec table), one that only shows its price and specs.
SPECS = (
    "<table><tr><th>Weight</th><td>1.2 kg</td></tr><tr><th>Colour</th><td>Green</td></tr>"
    "<tr><th>Material</th><td>Oak and steel</td></tr></table>"
)
LD = {
    "@context": "https://schema.org",
    "@type": "Product",
    "name": "Field Kettle 2",
    "image": ["/img/bank.png", {"@type": "ImageObject", "url": "/img/lazy.png"}],
    "offers": {
        "@type": "Offer",
        "price": "1299.00",
        "priceCurrency": "EUR",
        "availability": "https://schema.org/InStock",
    },
    "aggregateRating": {"@type": "AggregateRating", "ratingValue": "4.5", "reviewCount": "17"},
}
PRODUCT_LD = page(
    "Kettle",
    f'<script type="application/ld+json">{json.dumps(LD)}</script>'
    "<main><h1>Field Kettle 2 (shop title)</h1><p class=price>1.299,00 €</p>"
    + SPECS
    + _paras("DESC", 2)
    + "</main>",
)
PRODUCT_VISUAL = page(
    "Stove",
    "<style>body{margin:0;font-size:16px} .now{font-size:30px;font-weight:700} .was{font-size:18px}</style>"
    '<main><h1>Camp Stove</h1><img src="/img/bank.png" style="width:400px;height:300px">'
    '<p><del class="was">1.499,00 €</del></p><div class="now">1.299,00 €</div>'
    "<button>Add</button>"
    + SPECS
    + "<p>In the box: "
    + PROSE
    + " It costs $5 less than last year.</p>"
    + _paras("DESC", 2)
    + "</main>",
)
ROUTES = {
    "/portal.html": ("text/html", PORTAL),
    "/product-ld.html": ("text/html", PRODUCT_LD),
    "/product-visual.html": ("text/html", PRODUCT_VISUAL),
    "/media.html": ("text/html", MEDIA),
    **{f"/img/{n}.png": ("image/png", PNG) for n in ("bank", "lazy", "pixel", "ad")},
}


@pytest.fixture(scope="module")
def rendered() -> dict[str, RenderResult]:
    _need_browser()
    with FixtureServer(ROUTES) as srv:
        opts = RenderOptions(settle_ms=200, browser_args=LOCAL_ONLY)

        async def go() -> dict[str, RenderResult]:
            async with BrowserPool(opts) as pool:
                pages = [k for k in ROUTES if k.endswith(".html")]
                keys = [k.strip("/").removesuffix(".html") for k in pages]
                jobs = [render_page(pool, srv.base + k) for k in pages]
                # the same portal with site-specific removals from the configuration
                trimmed = replace(opts, remove_selectors=("footer", "#side > .slot"))
                jobs.append(render_page(pool, srv.base + "/portal.html", None, trimmed))
                got = await asyncio.gather(*jobs)
            return dict(zip([*keys, "portal-trimmed"], got, strict=True))

        return asyncio.run(go())


def _role_of(blocks: list[dict[str, Any]], needle: str) -> str:
    """The role of the one block whose text sample contains ``needle``."""
    hits = [b for b in blocks if needle in b["text_sample"]]
    assert len(hits) == 1, (needle, [(b["role"], b["text_sample"][:40]) for b in blocks])
    return hits[0]["role"]


@pytest.mark.browser
def test_portal_blocks_have_the_roles_of_their_regions(rendered):
    r = rendered["portal"]
    d = r.to_dict()
    assert r.status == "ok" and r.found
    blocks = d["blocks"]
    assert [b["id"] for b in blocks] == [f"b{i + 1}" for i in range(len(blocks))]
    assert all(b["role"] in ROLES for b in blocks)
    assert _role_of(blocks, "River Journal") == "header"
    assert _role_of(blocks, "Section 0") == "navigation"
    assert _role_of(blocks, "ARTICLE 0") == "main_content"
    assert _role_of(blocks, "More stories") == "related"
    assert _role_of(blocks, "3 comments") == "comments"
    assert _role_of(blocks, "Tool 0") == "sidebar"
    assert _role_of(blocks, "Site footer") == "footer"
    roles = {b["role"] for b in blocks}
    assert {"search", "comment_form", "ads"} <= roles
    main = [b for b in blocks if b["role"] == "main_content"]
    assert len(main) == 1 and main[0]["path"] == d["root"] and main[0]["importance"] == 1.0
    assert max(b["importance"] for b in blocks if b["role"] != "main_content") < 1.0
    ad = next(b for b in blocks if b["role"] == "ads")
    assert (ad["box"]["w"], ad["box"]["h"]) == (300, 250)
    nav = next(b for b in blocks if b["role"] == "navigation")
    assert nav["link_density"] > 0.9 and nav["words"] >= 12


def _texts(tree: list[dict[str, Any]]) -> list[Any]:
    """The outline as nested [text, [children...]] lists."""
    return [[h["text"], _texts(h["children"])] for h in tree]


@pytest.mark.browser
def test_outline_levels_follow_the_looks_and_nest(rendered):
    tree = rendered["media"].to_dict()["outline"]
    # looks: h1 32px > h3 28px > h2 20px > h4 16px (beside the article); the hidden h2 is left out
    assert _texts(tree) == [
        [
            "Field notes",
            [["Small-looking section", []], ["Big-looking subsection", [["Elsewhere", []]]]],
        ]
    ]
    top = tree[0]
    small, big = top["children"]
    assert [(h["level"], h["tag_level"]) for h in (top, big, small)] == [(1, 1), (2, 3), (3, 2)]
    assert big["font_size"] == 28 and small["font_size"] == 20
    elsewhere = big["children"][0]
    assert (elsewhere["level"], elsewhere["tag_level"]) == (4, 4)
    assert top["in_main"] and big["in_main"] and not elsewhere["in_main"]


@pytest.mark.browser
def test_images_with_context(rendered):
    d = rendered["media"].to_dict()
    imgs = {i["src"].rsplit("/", 1)[-1]: i for i in d["images"]}
    assert set(imgs) == {"bank.png", "lazy.png", "ad.png"}  # the 1x1 pixel is left out
    bank = imgs["bank.png"]
    assert bank["src"].startswith("http://127.0.0.1:") and bank["alt"] == "The east bank"
    assert bank["caption"] == "The east bank in spring."
    assert bank["box"]["w"] == 400 and bank["box"]["h"] == 300
    assert bank["in_article"] and bank["in_main"]
    assert imgs["lazy.png"]["in_article"] and imgs["lazy.png"]["alt"] == "Lazy one"
    ad = imgs["ad.png"]
    assert not ad["in_article"] and not ad["in_main"] and ad["caption"] == "A promotion"
    assert ad["block"] in {b["id"] for b in d["blocks"]}


@pytest.mark.browser
def test_configured_remove_selectors_drop_parts_before_extraction(rendered):
    full, trimmed = rendered["portal"].to_dict(), rendered["portal-trimmed"].to_dict()
    roles = [b["role"] for b in full["blocks"]]
    assert "footer" in roles and "ads" in roles
    assert [r for r in roles if r not in ("footer", "ads")] == [b["role"] for b in trimmed["blocks"]]
    assert trimmed["text"] == full["text"]  # the article is untouched


SPEC_LIST = [
    {"name": "Weight", "value": "1.2 kg"},
    {"name": "Colour", "value": "Green"},
    {"name": "Material", "value": "Oak and steel"},
]


@pytest.mark.browser
def test_product_from_json_ld_first(rendered):
    p = rendered["product-ld"].to_dict()["product"]
    base = rendered["product-ld"].result.url.rsplit("/", 1)[0]
    assert p["name"] == "Field Kettle 2"  # JSON-LD's, not the heading's
    assert p["price"] == {"amount": 1299.0, "currency": "EUR"} and p["availability"] == "InStock"
    assert p["images"] == [base + "/img/bank.png", base + "/img/lazy.png"]
    assert p["rating"] == {"value": 4.5, "count": 17, "best": None}
    assert p["specifications"] == SPEC_LIST  # JSON-LD has none: the shown table
    assert p["sources"] == {
        "name": "json-ld",
        "price": "json-ld",
        "availability": "json-ld",
        "images": "json-ld",
        "rating": "json-ld",
        "specifications": "layout",
    }


@pytest.mark.browser
def test_product_from_the_layout_alone(rendered):
    r = rendered["product-visual"]
    p = r.to_dict()["product"]
    assert p["name"] == "Camp Stove"
    # the big bold price, not the struck-through old one nor the "$5" in the text
    assert p["price"] == {"amount": 1299.0, "currency": "EUR"}
    assert p["specifications"] == SPEC_LIST
    assert p["images"] == [r.result.url.rsplit("/", 1)[0] + "/img/bank.png"]
    assert p["availability"] is None and p["rating"] is None
    assert set(p["sources"].values()) == {"layout"}


@pytest.mark.browser
def test_pages_that_sell_nothing_have_no_product(rendered):
    assert rendered["portal"].to_dict()["product"] is None
    assert rendered["media"].to_dict()["product"] is None


# --- synthetic snapshots: boxes set by hand, no landmarks and no class words, so only position, size and
# links can decide; the core still chooses the root from the text.
_ids = iter(range(1, 10_000))


def _el(tag: str, box: tuple[int, int, int, int], *kids: Any, **attrs: str) -> dict[str, Any]:
    x, y, w, h = box
    lay = {
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "display": "block",
        "visibility": "visible",
        "opacity": 1,
        "font_size": 16,
        "font_weight": 400,
    }
    return {"t": tag, "id": next(_ids), "a": attrs, "c": list(kids), "l": lay}


def _link_list(box: tuple[int, int, int, int], label: str, n: int) -> dict[str, Any]:
    x, y, w, _h = box
    items = [
        _el("li", (x, y + 20 * i, w, 20), _el("a", (x, y + 20 * i, w, 20), f"{label} {i}", href=f"/{i}"))
        for i in range(n)
    ]
    return _el("div", box, _el("ul", box, *items))


def _synthetic_page() -> dict[str, Any]:
    paras = [_el("p", (200, 300 + 100 * i, 700, 90), f"Paragraph {i}. {PROSE}") for i in range(6)]
    thread = [
        _el(
            "div",
            (200, 1100 + 120 * i, 700, 110),
            _el("p", (200, 1100 + 120 * i, 700, 110), f"Note {i}: {PROSE}"),
            **{"class": "item"},
        )
        for i in range(3)
    ]
    for t in thread:  # a thread shape the core's looks_like_thread knows: a form and time stamps per item
        t["c"].insert(0, _el("time", (200, 0, 100, 10), "2020-01-01"))
    body = _el(
        "body",
        (0, 0, 1280, 1700),
        _link_list((0, 0, 1280, 120), "Menu", 6),
        _el("div", (200, 300, 700, 600), *paras),
        _link_list((950, 300, 300, 200), "Tip", 8),
        _link_list((200, 920, 700, 160), "A headline of a story further away on this site number", 8),
        _el("div", (200, 1100, 700, 360), *thread),
        _el(
            "div",
            (0, 1560, 1280, 140),
            _el("p", (0, 1560, 1280, 140), "Small print of the site, all in one line."),
        ),
    )
    return {
        "t": "html",
        "id": next(_ids),
        "a": {},
        "c": [
            {
                "t": "head",
                "id": next(_ids),
                "a": {},
                "c": [{"t": "title", "id": next(_ids), "a": {}, "c": ["T"]}],
            },
            body,
        ],
    }


def test_roles_from_position_size_and_links_alone():
    doc = from_snapshot(_synthetic_page())
    res = readwell.extract(doc)
    assert res.found and "Paragraph 5" in res.text
    blocks = analyze(doc, res)["blocks"]
    assert _role_of(blocks, "Menu 0") == "navigation"
    assert _role_of(blocks, "Paragraph 0") == "main_content"
    assert _role_of(blocks, "Tip 0") == "sidebar"
    assert _role_of(blocks, "A headline of a story") == "related"
    assert _role_of(blocks, "Small print") == "footer"
    # the core chose the body and dropped the siblings it did not join: the main content block is what it
    # kept (article and thread), not the whole body
    main = next(b for b in blocks if b["role"] == "main_content")
    assert main["path"] == "html > body" and main["box"] == {"x": 200, "y": 300, "w": 700, "h": 1160}
    assert main["text_sample"].startswith("Paragraph 0.") and main["words"] == res.word_count
    # importance: the article first, headline links (longer text) above the short menu
    imp = {b["role"]: b["importance"] for b in blocks}
    assert imp["main_content"] == 1.0 > imp["related"] > imp["navigation"]


def test_hidden_and_boxless_elements_make_no_block():
    snap = _synthetic_page()
    body = snap["c"][1]
    body["c"][-1]["l"]["display"] = "none"  # the footer is hidden
    body["c"][2]["l"].update(w=0, h=0)  # the sidebar list has no box
    body["c"][2]["c"][0]["l"].update(w=0, h=0)
    for li in body["c"][2]["c"][0]["c"]:
        li["l"].update(w=0, h=0)
        li["c"][0]["l"].update(w=0, h=0)
    doc = from_snapshot(snap)
    blocks = analyze(doc, readwell.extract(doc))["blocks"]
    text = " ".join(b["text_sample"] for b in blocks)
    assert "Small print" not in text and "Tip 0" not in text and "Menu 0" in text


def test_a_static_parse_has_no_layout_so_only_the_main_content_block():
    """Without boxes (a static parse) nothing can be placed: only the core's root, with an empty box."""
    doc = load_document("<html><body><nav><a href=/a>Home</a></nav><p>" + PROSE * 3 + "</p></body></html>")
    blocks = analyze(doc, readwell.extract(doc))["blocks"]
    assert [(b["role"], b["box"]["w"]) for b in blocks] == [("main_content", 0)]


def test_outline_without_layout_uses_the_tags():
    doc = load_document(
        "<html><body><article><h2>Top</h2><p>" + PROSE + "</p><h3>Sub</h3><p>" + PROSE + "</p>"
        '<div role="heading" aria-level="2">Second</div><p>' + PROSE + "</p></article></body></html>"
    )
    tree = analyze(doc, readwell.extract(doc))["outline"]
    assert _texts(tree) == [["Top", [["Sub", []]]], ["Second", []]]
    assert [h["level"] for h in tree] == [2, 2] and tree[0]["box"] is None


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("1.299,00 €", "1299.00", "EUR"),
        ("$1,299.00", "1299.00", "USD"),
        ("¥129,800", "129800", "JPY"),
        ("EUR 12,50", "12.50", "EUR"),
        ("£5", "5", "GBP"),
        ("1 299,00 zł", "1299.00", "PLN"),
        ("CHF 1'299.–", "1299", "CHF"),
        ("Price: 19.99 USD", "19.99", "USD"),
    ],
)
def test_prices_in_common_notations(text, amount, currency):
    m = looks_like_price(text)
    assert m is not None and (m.amount, m.currency) == (Decimal(amount), currency)


@pytest.mark.parametrize("text", ["12 apples", "3 items for $5 each this week and next", "", "€"])
def test_texts_that_are_not_a_shown_price(text):
    assert looks_like_price(text) is None


def test_product_from_microdata_and_open_graph_without_layout():
    doc = load_document(
        '<html><head><meta property="og:type" content="product">'
        '<meta property="og:image" content="/p/og.jpg"></head><body>'
        '<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Trail Lamp</h1>'
        '<img itemprop="image" src="/p/lamp.jpg">'
        '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">'
        '<span itemprop="price" content="49.90">49,90</span><meta itemprop="priceCurrency" content="EUR">'
        '<link itemprop="availability" href="https://schema.org/OutOfStock"></div>'
        '<div itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating">'
        '<span itemprop="ratingValue">3,5</span> of <span itemprop="bestRating">5</span>'
        '<span itemprop="reviewCount">8</span></div>'
        '<div itemprop="additionalProperty" itemscope itemtype="https://schema.org/PropertyValue">'
        '<span itemprop="name">Battery</span><span itemprop="value">AA</span></div>'
        "</div></body></html>"
    )
    p = product_info(doc, "https://shop.example.org/lamp")
    assert p == {
        "name": "Trail Lamp",
        "price": {"amount": 49.9, "currency": "EUR"},
        "availability": "OutOfStock",
        "images": ["https://shop.example.org/p/lamp.jpg"],
        "specifications": [{"name": "Battery", "value": "AA"}],
        "rating": {"value": 3.5, "count": 8, "best": 5.0},
        "sources": {
            k: "microdata" for k in ("name", "price", "availability", "images", "specifications", "rating")
        },
    }


def test_open_graph_alone_needs_og_type_product():
    head = (
        '<meta property="og:title" content="Trail Lamp">'
        '<meta property="product:price:amount" content="49.90">'
        '<meta property="product:price:currency" content="USD">'
    )
    body = "<body><p>" + PROSE + "</p></body>"
    as_article = load_document(f"<html><head>{head}</head>{body}</html>")
    as_product = load_document(
        f'<html><head><meta property="og:type" content="product">{head}</head>{body}</html>'
    )
    assert product_info(as_article, None) is None
    p = product_info(as_product, None)
    assert p is not None and p["name"] == "Trail Lamp" and p["price"] == {"amount": 49.9, "currency": "USD"}


def _cfg(tmp_path, text: str):
    f = tmp_path / "readwell.toml"
    f.write_text(text, encoding="utf-8")
    return f


def test_config_file_then_flags(tmp_path, capsys, monkeypatch):
    f = _cfg(
        tmp_path, '[render]\ntimeout_ms = 12000\nremove_selectors = [".promo"]\n[weights]\nwords = 0.5\n'
    )
    monkeypatch.chdir(tmp_path)  # ./readwell.toml is found without --config
    assert cli.main(["config", "--show", "--settle-ms", "250"]) == 0
    out = capsys.readouterr().out
    assert (
        "timeout_ms = 12000\n" in out
        and "settle_ms = 250\n" in out
        and 'remove_selectors = [".promo"]' in out
    )
    assert "\n[weights]\nwords = 0.5\n" in out and "max_scroll_steps = 40\n" in out
    assert str(f.name) in out.splitlines()[0]
    # what it prints reads back to the same options
    shown = _cfg(tmp_path / "..", out)
    again = load_options(shown)
    assert again == replace(load_options(f), settle_ms=250)
    assert again.weights.words == 0.5 and again.blocks == Thresholds()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[render]\ntimeout = 3\n", "unknown key 'timeout'"),
        ("[render]\ntimeout_ms = '3'\n", "timeout_ms: expected int"),
        ("[render]\nscroll = 1\n", "scroll: expected bool"),
        ("[render]\nremove_selectors = 'footer'\n", "expected a list of strings"),
        ("[render]\nremove_selectors = ['a[[']\n", "unsupported CSS selector"),
        ("[render]\ntimeout_ms = 5\n", "at least 100 ms"),
        ("[browser]\njobs = 2\n", "unknown section(s) browser"),
        ("[weights]\nwords = 'a lot'\n", "words: expected float"),
        ("[render\n", "is not valid TOML"),
    ],
)
def test_config_errors_are_one_clear_line(tmp_path, capsys, text, message):
    f = _cfg(tmp_path, text)
    assert cli.main(["config", "--show", "--config", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("readwell: ") and message in err and err.count("\n") == 1


def test_config_file_missing_is_an_error_not_the_defaults(tmp_path, capsys):
    assert cli.main(["config", "--show", "--config", str(tmp_path / "nope.toml")]) == 2
    assert "cannot read config" in capsys.readouterr().err


# --- retries and the cache ----------------------------------------------------------------------------------


def test_backoff_grows_exponentially_with_jitter_and_a_cap():
    o = RenderOptions(retry_base_ms=500, retry_max_ms=3_000)
    assert [backoff_s(n, o, lambda: 0.0) for n in (1, 2, 3, 4, 5)] == [0.25, 0.5, 1.0, 1.5, 1.5]
    assert [backoff_s(n, o, lambda: 0.5) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]
    assert backoff_s(1, o, lambda: 0.999) < 0.75


class _Counting:
    """A 127.0.0.1 server that counts requests per path: /flaky.html answers 503 twice, then the page;
    /gone.html is always 404; /stable.html always the page."""

    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        counts = self.hits
        body = page("Stable", "<article><h1>Stable</h1>" + _paras("STABLE", 4) + "</article>")

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                n = counts[self.path] = counts.get(self.path, 0) + 1
                code = (
                    404
                    if self.path == "/gone.html"
                    else 503
                    if self.path == "/flaky.html" and n <= 2
                    else 200
                )
                data = body if code == 200 else b"<html><body><p>no</p></body></html>"
                self.send_response(code)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def counting():
    s = _Counting()
    yield s
    s.close()


@pytest.mark.browser
def test_retries_on_5xx_and_errors_never_on_4xx(counting):
    _need_browser()
    waits: list[float] = []

    async def no_wait(s: float) -> None:
        waits.append(s)

    async def go() -> list[RenderResult]:
        opts = RenderOptions(settle_ms=200, browser_args=LOCAL_ONLY, retries=3, scroll=False)
        async with BrowserPool(opts) as pool:
            urls = [
                counting.base + "/flaky.html",
                counting.base + "/gone.html",
                f"http://127.0.0.1:{_closed}/",
            ]
            return [await render_with_retries(pool, u, None, None, no_wait) for u in urls]

    _closed = _closed_port()
    flaky, gone, refused = asyncio.run(go())
    assert flaky.status == "ok" and flaky.found and flaky.info["attempts"] == 3
    assert counting.hits["/flaky.html"] == 3 and len(flaky.info["retry_waits_ms"]) == 2
    assert gone.info["http_status"] == 404 and gone.info["attempts"] == 1 and counting.hits["/gone.html"] == 1
    assert refused.status == "error" and refused.info["attempts"] == 4
    # waits: two for the flaky page, three for the refused one, each within base x 2^n x [0.5, 1.5)
    assert len(waits) == 5
    for w, n in zip(waits, (1, 2, 1, 2, 3), strict=True):
        assert 0.25 * 2 ** (n - 1) <= w < 0.75 * 2 ** (n - 1)


@pytest.mark.browser
def test_cache_hits_skip_the_browser_and_no_cache_bypasses(counting, tmp_path, capsys):
    _need_browser()
    db = tmp_path / "c.sqlite"
    cfg = tmp_path / "rw.toml"
    cfg.write_text(f'[render]\ncache_path = "{db}"\nsettle_ms = 200\nscroll = false\n', encoding="utf-8")
    url = counting.base + "/stable.html"
    argv = ["extract", "--render", url, "--config", str(cfg)]

    def run(*extra: str) -> dict[str, Any]:
        assert cli.main([*argv, *extra]) == 0
        return json.loads(capsys.readouterr().out)

    first = run()
    assert "cache" not in first["render"] and counting.hits["/stable.html"] == 1
    second = run()
    assert second["render"]["cache"] == "hit" and counting.hits["/stable.html"] == 1
    assert second["text"] == first["text"] and second["blocks"] == first["blocks"]
    run("--no-cache")
    assert counting.hits["/stable.html"] == 2
    # errors are not cached: nothing was added by an unreachable page
    bad = [
        "extract",
        "--render",
        f"http://127.0.0.1:{_closed_port()}/",
        "--config",
        str(cfg),
        "--retries",
        "0",
    ]
    assert cli.main(bad) == 2
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*) FROM pages").fetchone()[0] == 1


def _png_pixels(path) -> tuple[int, int, bytes]:
    """Width, height and RGB(A) rows of an 8-bit non-interlaced PNG (what Chromium writes), unfiltered."""
    data = path.read_bytes()
    w, h = struct.unpack(">II", data[16:24])
    depth, ctype = data[24], data[25]
    assert depth == 8 and ctype in (2, 6)
    bpp = 3 if ctype == 2 else 4
    idat, pos = b"", 8
    while pos < len(data):
        n = struct.unpack(">I", data[pos : pos + 4])[0]
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + n]
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    out = bytearray()
    prev = bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return w, h, bytes(out) if bpp == 3 else bytes(x for i, x in enumerate(out) if i % 4 != 3)


@pytest.mark.browser
def test_screenshot_draws_the_blocks_in_their_role_colours(tmp_path, capsys):
    _need_browser()
    shot = tmp_path / "portal.png"
    with FixtureServer(ROUTES) as srv:
        argv = ["extract", "--render", srv.base + "/portal.html", "--no-cache", "--settle-ms", "200"]
        assert cli.main([*argv, "--screenshot", str(shot)]) == 0
    d = json.loads(capsys.readouterr().out)
    w, h, rgb = _png_pixels(shot)
    page_bottom = max(b["box"]["y"] + b["box"]["h"] for b in d["blocks"])
    assert w == 1280 and h >= page_bottom
    for b in d["blocks"]:
        if b["role"] in ("main_content", "navigation", "footer", "ads"):
            x, y = b["box"]["x"] + 1, b["box"]["y"] + b["box"]["h"] // 2  # on the left border
            px = rgb[(y * w + x) * 3 : (y * w + x) * 3 + 3]
            assert px == bytes.fromhex(ROLE_COLOURS[b["role"]][1:]), (b["role"], px.hex())
    assert d["text"].count("ARTICLE") == 6 and "main_content" not in d["text"]  # the drawing is not read


def test_screenshot_into_a_missing_directory_fails_before_rendering(tmp_path, capsys):
    argv = ["extract", "--render", "http://127.0.0.1:9/", "--screenshot", str(tmp_path / "no" / "x.png")]
    assert cli.main(argv) == 2
    assert "no such directory" in capsys.readouterr().err


def test_cache_key_follows_what_changes_the_result_and_entries_age(tmp_path):
    base = RenderOptions()
    key = cache_key("http://a.example.org/", base, {})
    assert key == cache_key("http://a.example.org/", replace(base, jobs=8, retries=5, cache_ttl_s=9), {})
    for other in (
        cache_key("http://b.example.org/", base, {}),
        cache_key("http://a.example.org/", replace(base, settle_ms=250), {}),
        cache_key("http://a.example.org/", replace(base, weights=Weights(words=0.9)), {}),
        cache_key("http://a.example.org/", base, {"selector": "main"}),
    ):
        assert other != key
    assert cache_key("http://a.example.org/", base, {"selector": None}) == key  # unset = default
    c = Cache(tmp_path / "x" / "c.sqlite", ttl_s=60)
    c.put(key, "http://a.example.org/", {"found": True, "status": "ok"})
    assert c.get(key) == {"found": True, "status": "ok"} and c.get("other") is None
    c.db.execute("UPDATE pages SET created = created - 61")
    assert c.get(key) is None
    c.close()


def test_unusable_cache_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="cannot use the render cache .*--no-cache skips it"):
        Cache(blocker / "c.sqlite", 60)
