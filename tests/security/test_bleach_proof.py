"""bleach's re-parse proven from our own tree's walk (``readwell.bleach_proof`` with ``render_html.written``)
against bleach's own html5lib route: the same output on our outputs (every fixture, both parsers, the route
taken on most of them), on the trees extracted from hostile pages, on random trees full of what html5lib
reads differently (namespaces, tables, templates, void elements with children, a newline after ``<pre>``,
adjacent text, controls, surrogates, attribute names our serializer drops), and on events that lie about the
text (each guard shown taking the html5lib route). ``FAST_TAGS`` read against html5lib's own dispatch
table. No lexbor here: this is the route of every runtime (Pyodide included)."""

from __future__ import annotations

import importlib
import itertools
import random
from typing import Any, NamedTuple

import fixturelib
import pytest
import readwell
from readwell import bleach_proof, sanitize
from readwell.bleach_proof import FAST_TAGS, Unproven
from readwell.dom import HTML_NS, MATH_NS, SVG_NS, VOID, Element, Text
from readwell.render_html import serialize, written

from security import article, fuzzer

EXTRACT = importlib.import_module("readwell.extract")


def html5lib_route(html: str) -> str:
    return str(sanitize._CLEANER.clean(html))


def tree_route(html: str, events: Any) -> str | None:
    """The tree route's output, or None where it falls back."""
    if not bleach_proof.may_prove(html):
        return None
    try:
        return sanitize._clean_tokens(html, lambda text: bleach_proof.proven_tokens(text, events))
    except Unproven:
        return None


def check(root: Element, include_self: bool) -> bool:
    """Both routes give the same output for ``root`` written out (and ``bleach_final`` gives it, with the
    events and without them); True when the tree route was used."""
    html = serialize(root, include_self=include_self)
    slow = html5lib_route(html)
    fast = tree_route(html, written(root, include_self=include_self))
    assert fast is None or fast == slow, html[:300]
    assert sanitize.bleach_final(html, written(root, include_self=include_self)) == slow, html[:300]
    assert sanitize.bleach_final(html) == slow, html[:300]
    return fast is not None


def extracted_trees(pages: list[Any], monkeypatch: pytest.MonkeyPatch) -> list[tuple[Element, bool]]:
    """The trees (and ``include_self``) ``bleach_final`` is given the walk of while extracting ``pages``,
    checked right then (the tree is the run's, released after it)."""
    seen: list[tuple[Element, bool]] = []
    stock = EXTRACT.events_of

    def record(html: str, root: Element, include_self: bool = True) -> Any:
        seen.append((root, include_self))
        return stock(html, root, include_self=include_self)

    monkeypatch.setattr(EXTRACT, "events_of", record)
    for page in pages:
        try:
            readwell.extract(page, url=article.PAGE_URL)
        except readwell.InputError:
            pass
    monkeypatch.undo()
    return seen


@pytest.mark.parametrize("parser", ["fast", "html5lib"])
def test_same_output_on_every_fixture(parser: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READWELL_PARSER", parser)
    trees = extracted_trees([fx.data for fx in fixturelib.all_fixtures()], monkeypatch)
    monkeypatch.delenv("READWELL_PARSER", raising=False)
    proven = sum(check(root, inc) for root, inc in trees)
    assert len(trees) > 200
    assert proven > len(trees) * 0.6  # the route is taken on most of our outputs, or this tests little


def test_same_output_on_hostile_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fuzzer's cases and the security fixtures, extracted: the trees our stages leave of them."""
    rng = random.Random(12)
    pages: list[Any] = [fx.data for fx in fixturelib.all_fixtures("security")]
    pages += [fuzzer.fuzz_case(rng)[0] for _ in range(300)]
    trees = extracted_trees(pages, monkeypatch)
    proven = sum(check(root, inc) for root, inc in trees)
    assert 0 < proven < len(trees)


# --- random trees: anything a tree of ours could hold, written out by our serializer ----------------------

_TAGS = sorted(FAST_TAGS) + [
    "table", "tbody", "tr", "td", "caption", "section", "x-y", "template", "textarea", "listing", "button",
    "col", "input", "P", "svg", "math", "mi", "foreignobject", "title", "style", "script", "plaintext",
]  # fmt: skip
_TEXTS = [
    "a", " b ", "\n", "c&d", "<e>", '"f"', "\xa0g", "h\ni", "&amp;", "&lt;x", "\u200bj", "\x0ck", " ", "",
    "\nl", "\n\nm", "n\r\no", "p\rq", "r\x00s", "t\ud800u", "\ufffev", "\x85w", "\x1bx", "]]>", "<!--y-->",
    "&#60;", "&nbsp;", "\u2028", "\t",
]  # fmt: skip
_ATTRS = [
    ("title", "t\"<&>'`"), ("href", "https://example.org/?a=1&b=2"), ("lang", "en"), ("dir", "rtl"),
    ("Title", "upper"), ("data-x", "a\x00b\rc"), ('a"b', "q"), ("on:x", "y"), ("xlink:href", "#z"),
    ("x y", "v"), ("alt", "\ud800"), ("class", "language-py"),
]  # fmt: skip
_NAMESPACES = [HTML_NS] * 8 + [SVG_NS, MATH_NS]


class Pieces(NamedTuple):
    """What ``random_tree`` builds from."""

    tags: list[str]
    texts: list[str]
    attrs: list[tuple[str, str]]
    namespaces: list[str]
    void_children: float  # how often a void element holds children


HOSTILE = Pieces(_TAGS, _TEXTS, _ATTRS, _NAMESPACES, 0.2)


def random_tree(rng: random.Random, depth: int, pieces: Pieces = HOSTILE) -> Element:
    el = Element(rng.choice(pieces.tags), ns=rng.choice(pieces.namespaces))
    if rng.random() < 0.3:
        el.attrs = dict(rng.sample(pieces.attrs, rng.randint(1, 3)))
    # a void element may hold children in our tree (the serializer writes none of them)
    for _ in range(rng.randint(0, 4) if el.tag not in VOID or rng.random() < pieces.void_children else 0):
        if depth > 0 and rng.random() < 0.6:
            child: Element | Text = random_tree(rng, depth - 1, pieces)
        else:
            child = Text(rng.choice(pieces.texts))  # (adjacent text nodes included)
        child.parent = el
        el.children.append(child)
    return el


def test_same_output_on_random_trees() -> None:
    rng = random.Random(7)
    proven = unproven = 0
    for _ in range(3000):
        root = Element(rng.choice(["div", "pre", "ul", "p"]))
        root.children = [random_tree(rng, 4) for _ in range(rng.randint(1, 3))]
        for c in root.children:
            c.parent = root
        if check(root, include_self=rng.random() < 0.3):
            proven += 1
        else:
            unproven += 1
    assert proven > 300 and unproven > 300, (proven, unproven)


def test_same_output_on_every_pair_of_fast_tags() -> None:
    """Every fast tag inside every other, and a list item, paragraph, link, heading, block, pre or
    formatting element inside that, as trees: where html5lib restructures (paragraph closers, the list-item
    walk, headings, links, pre's newline) the fallback must be taken."""

    def el(tag: str, *kids: Element | str) -> Element:
        e = Element(tag)
        for k in kids:
            e.append(Text(k) if isinstance(k, str) else k)
        return e

    for outer, inner in itertools.product(sorted(FAST_TAGS), sorted(FAST_TAGS)):
        if outer in VOID:
            continue
        check(el("div", el(outer, "a", el(inner, "b"), "c")), include_self=False)
        check(el("div", el(outer, el(inner, "\nb"))), include_self=False)
        for third in ("li", "dd", "dt", "p", "a", "h2", "div", "pre", "b"):
            check(el("div", el(outer, el(inner, el(third, "x")))), include_self=False)


def test_fast_tags_are_html5lib_s_kinds() -> None:
    """Each fast tag's kind is what html5lib's in-body dispatch table does with it (the proof in
    ``bleach_proof`` reasons from these handlers), and no fast tag bounds a scope."""
    from bleach._vendor.html5lib import constants, html5parser

    handlers = html5parser.getPhases(False)["inBody"].__dict__["startTagHandler"]
    expected = {
        bleach_proof._INSERT: {"startTagOther", "startTagFormatting"},
        bleach_proof._VOID: {"startTagVoidFormatting", "startTagParamSource"},
        bleach_proof._CLOSE_P: {"startTagCloseP"},
        bleach_proof._HEADING: {"startTagHeading"},
        bleach_proof._PRE: {"startTagPreListing"},
        bleach_proof._LIST_ITEM: {"startTagListItem"},
        bleach_proof._A: {"startTagA"},
        bleach_proof._HR: {"startTagHr"},
    }
    for tag, kind in FAST_TAGS.items():
        assert handlers[tag].__name__ in expected[kind], tag
    html = constants.namespaces["html"]
    scoping = {name for ns, name in constants.scopingElements if ns == html} | {"button", "ol", "ul"}
    assert not scoping & (FAST_TAGS.keys() - {"ol", "ul"})  # ol/ul bound list-item scope: li is current
    voids = (bleach_proof._VOID, bleach_proof._HR)
    assert {t for t, k in FAST_TAGS.items() if k in voids} <= constants.voidElements & VOID
    assert not {t for t, k in FAST_TAGS.items() if k not in voids} & (constants.voidElements | VOID)


# --- the fallback, guard by guard: events that lie about the text, or text html5lib restructures --------

P = ("p", [])
END = None
LIES = [
    ("<p>a</p>", [P, "b", END], "text differs"),
    ("<p>&lt;</p>", [P, "<", END], "text differs"),  # text as events must be written (escaped)
    ("<p>a<b>c</b></p>", [P, "a<b>c</b>", END], "text differs"),
    ("<p>a</p>", [("div", []), "a", END], "a tag differs"),
    ("<p>a</p>", [P, "a", END, END], "no open element"),
    ("<p>a</p>", [P, "a"], "left open"),
    ("<p>a</p><p>b</p>", [P, "a", END], "more than"),
    ('<p title="a" title="b">x</p>', [("p", [("title", "a"), ("title", "b")]), "x", END], "attribute"),
    ('<p title="a"b">x</p>', [("p", [("title", 'a"b')]), "x", END], "attribute"),
    ('<p Title="a">x</p>', [("p", [("Title", "a")]), "x", END], "attribute"),
    ("<P>a</P>", [("P", []), "a", END], "not a fast tag"),
    ("<p>a\x00b</p>", [P, "a\x00b", END], "NUL"),
    ("<p>a\rb</p>", [P, "a\rb", END], "carriage return"),
    ("<pre>\nx</pre>", [("pre", []), "\nx", END], "newline"),
    ("<pre>\n</pre>", [("pre", []), "\n", END], "newline"),
    ("<p><div>x</div></p>", [P, ("div", []), "x", END, END], "closes an open p"),
    ("<h2><h3>x</h3></h2>", [("h2", []), ("h3", []), "x", END, END], "right inside a heading"),
    (
        "<li><span><li>x</li></span></li>",
        [("li", []), ("span", []), ("li", []), "x", END, END, END],
        "open li",
    ),
    ('<a href="#"><a href="#">x</a></a>', [("a", [("href", "#")])] * 2 + ["x", END, END], "an a inside"),
    ('<img src="x">text</img>', [("img", [("src", "x")]), "text", END], "no open element"),
]


@pytest.mark.parametrize("html,events,reason", LIES)
def test_fallback_is_taken(html: str, events: list[Any], reason: str) -> None:
    assert bleach_proof.may_prove(html)
    with pytest.raises(Unproven, match=reason):
        list(bleach_proof.proven_tokens(html, events))
    assert sanitize.bleach_final(html, iter(events)) == html5lib_route(html)


def test_tables_and_formulas_are_screened() -> None:
    for html in ("<table><tr><td>x</td></tr></table>", "<math><mi>x</mi></math>"):
        assert not bleach_proof.may_prove(html)


@pytest.mark.parametrize(
    "kind,tag,names,paragraphs,links,reason",
    [
        (bleach_proof._CLOSE_P, "div", ["", "p", "span"], 1, 0, "closes an open p"),
        (bleach_proof._HR, "hr", ["", "p"], 1, 0, "closes an open p"),
        (bleach_proof._PRE, "pre", ["", "p", "b"], 1, 0, "closes an open p"),
        (bleach_proof._LIST_ITEM, "li", ["", "ul", "li", "span"], 0, 0, "closes an open li"),
        (bleach_proof._LIST_ITEM, "dd", ["", "dl", "dt", "b"], 0, 0, "closes an open dt"),
        (bleach_proof._LIST_ITEM, "li", ["", "p", "span"], 1, 0, "closes an open p"),
        (bleach_proof._HEADING, "h3", ["", "div", "h2"], 0, 0, "right inside a heading"),
        (bleach_proof._HEADING, "h3", ["", "p"], 1, 0, "closes an open p"),
        (bleach_proof._A, "a", ["", "a", "span"], 0, 1, "an a inside an a"),
    ],
)
def test_start_guards(
    kind: int, tag: str, names: list[str], paragraphs: int, links: int, reason: str
) -> None:
    """Check 2's guards on their own."""
    with pytest.raises(Unproven, match=reason):
        bleach_proof._start(kind, tag, names, paragraphs, links)


@pytest.mark.parametrize(
    "kind,tag,names",
    [
        (bleach_proof._LIST_ITEM, "li", ["", "ul", "li", "ul"]),  # html5lib's walk stops at ul (special)
        (bleach_proof._LIST_ITEM, "li", ["", "li", "div", "blockquote"]),
        (bleach_proof._HEADING, "h3", ["", "h2", "span"]),
        (bleach_proof._CLOSE_P, "div", ["", "li", "span"]),
    ],
)
def test_start_allows(kind: int, tag: str, names: list[str]) -> None:
    bleach_proof._start(kind, tag, names, 0, 0)


def test_tree_route_on_our_usual_markup(monkeypatch: pytest.MonkeyPatch) -> None:
    """What articles are made of takes the tree route, and ``extract`` hands bleach our tree's walk (the
    tests above are not vacuous), with the html5lib parser setting too (no lexbor: Pyodide's case)."""
    monkeypatch.setenv("READWELL_PARSER", "html5lib")
    page = article.article_page("")
    calls: list[str] = []
    stock = bleach_proof.proven_tokens

    def spy(html: str, events: Any) -> Any:
        calls.append(html)
        return stock(html, events)

    monkeypatch.setattr(bleach_proof, "proven_tokens", spy)
    result = readwell.extract(page, url=article.PAGE_URL)
    assert calls and result.content_html and "<p>" in result.content_html
    monkeypatch.undo()
    root = Element("div")
    for i in range(300):
        p = root.append(Element("p"))
        assert isinstance(p, Element)
        p.append(Text(f"paragraph {i} & <more>  text "))
        a = p.append(Element("a", {"href": "https://example.org/?a=1&b=2", "title": "\"q\" 'x'"}))
        a.append(Text("link"))  # type: ignore[union-attr]
        p.append(Text("\xa0tail"))
    pre = root.append(Element("pre"))
    pre.append(Element("code", {"class": "language-py"}))  # type: ignore[union-attr]
    pre.children[0].append(Text("a = 1\n\n  b < 2\n"))  # type: ignore[union-attr, attr-defined]
    assert check(root, include_self=False)


def test_serialize_hands_its_walk_to_events_of_once() -> None:
    """``extract`` walks the article once: ``events_of`` gives the events ``serialize`` walked for the string
    it returned (once), and a new walk for anything else; the events are ``written``'s either way."""
    from readwell.parse import parse_html
    from readwell.render_html import events_of

    body = parse_html(
        "<html><body><div><p>One <b>two</b></p><p>Three &amp; four</p></div></body></html>"
    ).body
    assert body is not None
    div = body.element_children[0]
    walk = list(written(div, include_self=False))
    html = serialize(div, include_self=False)
    first = events_of(html, div, include_self=False)
    assert isinstance(first, list) and first == walk
    again = events_of(html, div, include_self=False)  # handed once: a new walk now
    assert not isinstance(again, list) and list(again) == walk
    html = serialize(div, include_self=False)
    assert list(events_of(html, div, include_self=True)) == list(written(div, include_self=True))
    html = serialize(div, include_self=False)
    equal = "".join([html[:1], html[1:]])  # the same text, another string: not the walk's
    assert equal == html and equal is not html
    assert not isinstance(events_of(equal, div, include_self=False), list)
    assert sanitize.bleach_final(html, events_of(html, div, include_self=False)) == html5lib_route(html)
