"""Extraction without the document copy (``extract.run_pipeline`` given ``reread``).

A document decoded for the call (HTML text or bytes, a snapshot) is worked on in place; every result must be
the one the copy gives (plain and debug JSON, the removal log), and a tree or a snapshot the caller still
holds must come back as it was.
"""

from __future__ import annotations

import copy
import importlib
from dataclasses import asdict
from typing import Any

import fixturelib
import pytest
import readwell
from readwell import adapters
from readwell.context import Context
from readwell.dom import HTML_NS, MATH_NS, MAX_DEPTH, SVG_NS, Document, Element, Node, Text
from readwell.extract import extract_document, extract_owned, make_options
from readwell.parse import fast_parser, parse_html
from readwell.render_html import serialize

# ``readwell.extract`` is the function; the module is this one
extract_module = importlib.import_module("readwell.extract")

FIXTURES = fixturelib.all_fixtures()
_NS = {HTML_NS: "html", SVG_NS: "svg", MATH_NS: "math"}


def to_snapshot(el: Element) -> dict[str, Any]:
    """The extension's snapshot format (``adapters.from_snapshot``) of a parsed tree, with its node ids."""

    def node(n: Node) -> Any:
        if isinstance(n, Text):
            return n.data
        assert isinstance(n, Element)
        out: dict[str, Any] = {"t": n.tag, "id": n.nid}
        if n.ns != HTML_NS:
            out["ns"] = _NS.get(n.ns, "html")
        if n.attrs:
            out["a"] = dict(n.attrs)
        if n.children:
            out["c"] = [node(c) for c in n.children]
        return out

    return node(el)  # type: ignore[no-any-return]


def outcome(r: readwell.Result) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Everything a result says but its timings: the JSON (debug adds the log) and the log itself."""
    d = r.to_dict()
    d.pop("timings", None)
    return d, [asdict(e) for e in r.removals]


def _in_place_runs(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record, for each pipeline run ``extract`` makes, whether it ran in place."""
    seen: list[bool] = []
    real = extract_module.run_pipeline

    def spy(*args: Any, **kwargs: Any) -> Context:
        ctx = real(*args, **kwargs)
        seen.append(ctx.in_place)
        return ctx

    monkeypatch.setattr(extract_module, "run_pipeline", spy)
    return seen


@pytest.mark.parametrize("fx", [pytest.param(fx, id=fx.name) for fx in FIXTURES])
def test_in_place_equals_the_copy(fx: fixturelib.Fixture) -> None:
    """HTML and the same page as a snapshot: in place (``extract``) and on a copy (``extract_document``)
    give the same result, plain and with debug; the snapshot is left as it was."""
    html_doc = parse_html(fx.data)
    snap = to_snapshot(html_doc.html)
    before = copy.deepcopy(snap)
    for debug in (False, True):
        options = {**fx.options, "debug": True} if debug else fx.options
        opts = make_options(fx.url, options)
        a = readwell.extract(fx.data, url=fx.url, **options)
        b = extract_document(parse_html(fx.data), opts)
        assert outcome(a) == outcome(b)
        a = readwell.extract(snap, url=fx.url, **options)
        b = extract_document(adapters.from_snapshot(snap), opts)
        assert outcome(a) == outcome(b)
    assert snap == before


def test_fixtures_run_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above is not vacuous: a plain call runs in place on (nearly) every fixture, and a
    debug one never does."""
    seen = _in_place_runs(monkeypatch)
    for fx in FIXTURES:
        readwell.extract(fx.data, url=fx.url, **fx.options)
    assert sum(seen) >= 0.9 * len(seen)
    seen.clear()
    for fx in FIXTURES[:20]:
        readwell.extract(fx.data, url=fx.url, **{**fx.options, "debug": True})
    assert seen and not any(seen)


PAGE = (
    "<html><head><title>A page</title></head><body><nav><a href='/'>Home</a> <a href='/b'>Blog</a></nav>"
    "<noscript><img src='/full.jpg'></noscript><div class='post'><p class='byline'>By Ann Example</p>"
    "<img src='data:image/gif;base64,R0lGOD' data-src='/lazy.jpg' loading='lazy'>"
    + "".join(
        f"<p>Paragraph {i} says something, and then it says a little more about it, as prose does.</p>"
        for i in range(8)
    )
    + "<p><a href='/rel'>A relative link</a> inside the text, with enough words around it to stay.</p>"
    "</div><footer>Footer line</footer></body></html>"
)


def test_a_document_the_caller_holds_is_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    """``extract(Document)`` and ``extract_document`` leave the caller's tree as it was (they copy); the
    same page given as text runs in place and says the same."""
    seen = _in_place_runs(monkeypatch)
    doc = parse_html(PAGE)
    markup = serialize(doc.root)
    attrs = [dict(e.attrs) for e in doc.root.iter()]
    r1 = readwell.extract(doc, url="https://example.org/a/")
    r2 = extract_document(doc, make_options("https://example.org/a/", {}))
    assert seen == [False, False]
    assert serialize(doc.root) == markup and [dict(e.attrs) for e in doc.root.iter()] == attrs
    r3 = readwell.extract(PAGE, url="https://example.org/a/")
    assert seen[-1] is True
    assert r3.found and "Paragraph 7" in (r3.text or "") and r3.byline == "Ann Example"
    assert "https://example.org/lazy.jpg" in (r3.content_html or "")
    assert outcome(r1) == outcome(r2) == outcome(r3)


def test_a_snapshot_is_not_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot's elements keep the snapshot's own attribute dicts: the run in place rewrites lazy images
    and links by giving elements new dicts (``dom.set_attr``), never in the caller's."""
    seen = _in_place_runs(monkeypatch)
    snap = to_snapshot(parse_html(PAGE).html)
    before = copy.deepcopy(snap)
    r = readwell.extract(snap, url="https://example.org/a/")
    assert seen == [True]
    assert r.found and "https://example.org/lazy.jpg" in (r.content_html or "")
    assert "https://example.org/rel" in (r.content_html or "")
    assert snap == before


def test_runs_that_still_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """debug (its log paths read the input all along), a selector, a disabled stage and a snapshot whose
    ids repeat run on a copy."""
    seen = _in_place_runs(monkeypatch)
    readwell.extract(PAGE, debug=True)
    readwell.extract(PAGE, selector="div.post")
    readwell.extract(PAGE, disable=["remove_by_pattern"])
    snap = to_snapshot(parse_html(PAGE).html)
    snap["c"][1]["id"] = snap["id"]  # the body repeats the html element's id
    readwell.extract(snap)
    assert seen == [False, False, False, False]


def test_in_place_rereads_the_input_for_rare_readers() -> None:
    """After select_root's first removal the tree is no longer the input: a reader asking then (here the
    CSS path of another element) gets it from the input decoded anew, and the answer is the copy's."""
    doc = parse_html(PAGE)
    ctx = extract_module.run_pipeline(doc, make_options(None, {}), reread=lambda: parse_html(PAGE))
    assert ctx.in_place and ctx.origin is None and ctx.root is not None
    nav = next(e for e in parse_html(PAGE).body.iter() if e.tag == "footer")
    copied = extract_module.run_pipeline(parse_html(PAGE), make_options(None, {}))
    assert ctx.path_of(nav) == copied.path_of(nav) == "html > body > footer"
    assert ctx.origin is not None  # decoded anew, once
    assert isinstance(ctx.origin, Document)


NOSCRIPT_BYLINE = (
    "<html><head><title>T</title></head><body><div id='w'><noscript><p class='byline'>By Ann Example</p>"
    "<img src='/a.jpg'></noscript><div id='a'>"
    + "".join(
        f"<p>Paragraph {i} says something, and then it says a little more about it, as prose does.</p>"
        for i in range(8)
    )
    + "</div></div></body></html>"
)


@pytest.mark.parametrize("parser", ["html5lib", "fast"])
def test_input_seen_through_a_noscript_replaced_before_the_root(
    parser: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """resolve_deferred moves a noscript's content into a new wrapper and then out of it before select_root
    runs; the input's view must give those nodes back to the noscript (not to the wrapper): the byline
    inside it is near the root in the input, as the copy says."""
    if parser == "fast" and fast_parser() is None:
        pytest.skip("the fast parser is not installed")
    opts = make_options(None, {})
    copied = extract_document(parse_html(NOSCRIPT_BYLINE, parser=parser), opts)
    seen = _in_place_runs(monkeypatch)
    doc = parse_html(NOSCRIPT_BYLINE, parser=parser)
    in_place = extract_owned(doc, opts, lambda: parse_html(NOSCRIPT_BYLINE, parser=parser))
    assert seen == [True]
    assert copied.byline == "Ann Example"
    assert outcome(in_place) == outcome(copied)


@pytest.mark.parametrize("fx", [pytest.param(fx, id=fx.name) for fx in FIXTURES[:40]])
def test_the_snapshot_builders_order_is_the_walks(fx: fixturelib.Fixture) -> None:
    """``from_snapshot`` hands its elements over in the order made (``Document.take_built_order``, read by
    an in-place run instead of walking the page): that order is ``list(root.iter())``, given once."""
    doc = adapters.from_snapshot(to_snapshot(parse_html(fx.data).html))
    walk = list(doc.root.iter())
    order = doc.take_built_order()
    assert (
        order is not None
        and len(order) == len(walk)
        and all(a is b for a, b in zip(order, walk, strict=True))
    )
    assert doc.take_built_order() is None


def test_no_built_order_once_the_tree_changes_or_when_capped() -> None:
    """The order is dropped when the document adds its own ``body``/``head``/``html``, and never given when
    the depth cap moved elements up (made order is not document order then); a snapshot without ``html``
    gets the wrapper in its order."""
    doc = adapters.from_snapshot({"t": "html", "id": 1, "c": [{"t": "head", "id": 2}]})
    assert doc.built_order is not None
    doc.body  # noqa: B018 - adds the missing body
    assert doc.take_built_order() is None
    doc = adapters.from_snapshot({"t": "div", "id": 3, "c": [{"t": "p", "id": 4, "c": ["x"]}, "y"]})
    order = doc.take_built_order()
    assert order is not None and [e.tag for e in order] == [e.tag for e in doc.root.iter()]
    assert [e.tag for e in order] == ["#document", "html", "div", "p"]
    deep: dict[str, Any] = {"t": "p", "id": 10_000}
    for i in range(MAX_DEPTH + 5):
        deep = {
            "t": "div" if i % 2 else "table",
            "id": 10_000 - i - 1,
            "c": [deep, {"t": "p", "id": 20_000 + i}],
        }
    doc = adapters.from_snapshot({"t": "html", "id": 1, "c": [{"t": "body", "id": 2, "c": [deep]}]})
    assert doc.take_built_order() is None
    doc = adapters.from_snapshot({"t": "html", "id": 1, "c": [{"t": "body", "id": 2}]})
    assert doc.built_order is not None
    doc.release()
    assert doc.take_built_order() is None
