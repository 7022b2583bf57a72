"""The fast parser (lexbor, ``readwell[fast]``) against the html5lib path: identical JSON on every fixture,
identical trees on the inputs the pre-parse handling must treat alike (encodings, limits, NULs, templates,
namespaces), and every known difference class spelled out on a small synthetic input.

The difference classes are the parsers' own: html5lib 1.1 implements the HTML standard as of about 2016,
lexbor the current one (as Chromium does). Each test asserts both trees, so a parser upgrade that changes
either side fails here and the table in benchmarks/PARSERS.md gets updated with it.
"""

from __future__ import annotations

import json

import fixturelib
import pytest
import readwell
from readwell.dom import Element, Text
from readwell.parse import parse_html

pytest.importorskip("selectolax", reason="the fast parser is the optional extra readwell[fast]")


def tree(el: Element) -> str:
    """Compact serialization: namespace prefix for foreign elements, attributes, text in quotes."""
    out = []
    for c in el.children:
        if isinstance(c, Text):
            out.append(repr(c.data))
        else:
            assert isinstance(c, Element)
            attrs = "".join(f" {k}={v!r}" for k, v in c.attrs.items())
            ns = "" if c.ns == "html" else c.ns + ":"
            out.append(f"<{ns}{c.tag}{attrs}>{tree(c)}</>")
    return "".join(out)


def both(html: str | bytes, **kw: str) -> tuple[str, str]:
    slow = parse_html(html, parser="html5lib", **kw)
    fast = parse_html(html, parser="fast", **kw)
    return tree(slow.root), tree(fast.root)


@pytest.mark.parametrize("fx", [pytest.param(fx, id=fx.name) for fx in fixturelib.all_fixtures()])
def test_fixture_json_identical(fx: fixturelib.Fixture, monkeypatch: pytest.MonkeyPatch) -> None:
    out = []
    for parser in ("html5lib", "fast"):
        monkeypatch.setenv("READWELL_PARSER", parser)
        r = readwell.extract(fx.data, url=fx.url, **fx.options)
        out.append(
            (json.dumps(fixturelib.stable(r.to_dict()), sort_keys=True, ensure_ascii=False), r.markdown)
        )
    assert out[0] == out[1]


SAME = {
    "meta charset prescan (windows-1252)": b'<meta charset="windows-1252"><p>caf\xe9 \x93quoted\x94</p>',
    "utf-8 without declaration": "<p>caf\u00e9 \u2014 na\u00efve</p>".encode(),
    "undeclared legacy bytes fall back to windows-1252": b"<p>caf\xe9</p>",
    "utf-16 with a byte order mark": "<p>caf\u00e9</p>".encode("utf-16"),
    "meta after 1024 bytes re-decodes": b"<!--" + b"x" * 1100 + b'--><meta charset="iso-8859-2"><p>\xb1</p>',
    "NULs dropped": b"<p>a\x00b</p><div \x00id=x>c</div>",
    "lone surrogate replaced": "<p>a\ud800b</p>",
    "nesting beyond the depth cap": "<div>" * 300 + "<p>deep</p>" + "</div>" * 300,
    "nesting beyond the pre-parse limit": "<span>" * 700 + "text" + "</span>" * 700 + "x" * 200_000,
    "attributes beyond the pre-parse limit": "<p " + " ".join(f"a{i}=v" for i in range(400)) + ">t</p>",
    "template content kept as children": (
        "<div><template id=B:1><p>a</p><template><b>b</b></template></template>"
    ),
    "declarative shadow root": '<div><template shadowrootmode="open"><p>shadow</p></template>light</div>',
    "noscript parsed as markup": "<body><noscript><img src=a.png></noscript><p>x</p>",
    "React boundary comments as markers": (
        "<div><!--$?--><template id=B:0></template><p>f</p><!--/$--></div>"
    ),
    "other comments dropped, text merged": "<p>a<!-- c -->b</p>",
    "svg and integration points": '<svg viewBox="0 0 1 1"><foreignObject><p>x</p></foreignObject>'
    "<title>t</title></svg>",
    "math text integration point": "<math><mi>x</mi><mtext><b>y</b><mglyph></mglyph></mtext></math>",
    "annotation-xml as html": '<math><annotation-xml encoding="text/html"><div>d</div>'
    "</annotation-xml></math>",
    "mglyph foster-parented out of a table is HTML": "<math><mtext><table><mglyph><style>x</style>",
    "xlink and xmlns attributes": '<svg xmlns="http://www.w3.org/2000/svg"><a xlink:href="#a">l</a></svg>',
    "valueless attributes": "<input disabled><p hidden>x</p>",
    "frameset document": "<frameset><frame src=a></frameset>",
}


@pytest.mark.parametrize("html", list(SAME.values()), ids=list(SAME))
def test_same_tree(html: str | bytes) -> None:
    slow, fast = both(html)
    assert slow == fast


def _nodes(doc: object) -> list[tuple[object, ...]]:
    """Every node of a parsed Document with what the pipeline reads: ids, tags, namespaces, attributes,
    text, parent ids, in document order, and the next free id."""
    from readwell.dom import Document

    assert isinstance(doc, Document)
    out: list[tuple[object, ...]] = [("next", doc.next_id)]
    stack: list[object] = [doc.root]
    while stack:
        n = stack.pop()
        pid = n.parent.nid if n.parent is not None else None  # type: ignore[attr-defined]
        if isinstance(n, Text):
            out.append(("text", n.nid, n.data, pid))
        else:
            assert isinstance(n, Element)
            out.append(("el", n.nid, n.tag, n.ns, list(n.attrs.items()), pid, n.layout))
            stack.extend(reversed(n.children))
    return out


TRAVERSE_CASES = [
    *SAME.values(),
    "<p>a<!--$-->b<!-- other -->c<!--/$--></p>" + "<svg><desc><b>d</b></desc><path d=M0/></svg>",
    '<div data-readwell-embed="video" data-x>v</div><math><mi><i>i</i></mi><mo>+</mo></math>',
    "<table><tr><td>1<td>2</table><select><option>o</select>",
]


@pytest.mark.parametrize(
    "html",
    TRAVERSE_CASES + [fx.data for fx in fixturelib.all_fixtures()],
    ids=[f"case{i}" for i in range(len(TRAVERSE_CASES))] + [fx.name for fx in fixturelib.all_fixtures()],
)
def test_traversed_build_equals_build(html: str | bytes) -> None:
    """``_build_traversed`` (one lexbor ``traverse``) makes exactly ``_build``'s tree, or declines."""
    from readwell.parse_fast import _build, _build_traversed, _decode
    from selectolax.lexbor import LexborHTMLParser

    text = _decode(html, None)[0] if isinstance(html, bytes) else html
    for internal in (True, False):
        lex = LexborHTMLParser(text)
        fast = _build_traversed(lex, internal)
        plain = _build(lex, internal)
        if fast is not None:
            assert _nodes(fast) == _nodes(plain)


@pytest.mark.parametrize(
    "html",
    [
        "<div><template><p>a</p></template></div>",
        "<div>" * 300 + "<p>deep</p>" + "</div>" * 300,
    ],
)
def test_traversed_build_declines_templates_and_deep_trees(html: str) -> None:
    """Template content (a separate fragment) and subtrees beyond MAX_DEPTH are ``_build``'s to place."""
    from readwell.parse_fast import _build_traversed
    from selectolax.lexbor import LexborHTMLParser

    assert _build_traversed(LexborHTMLParser(html)) is None


@pytest.mark.parametrize(
    "name, want",
    [
        ("meta charset prescan (windows-1252)", "caf\u00e9 \u201cquoted\u201d"),
        ("utf-16 with a byte order mark", "<p>'caf\u00e9'</>"),
        ("meta after 1024 bytes re-decodes", "<p>'\u0105'</>"),
        ("undeclared legacy bytes fall back to windows-1252", "caf\u00e9"),
    ],
)
def test_encoding_decoded_as_html5lib_does(name: str, want: str) -> None:
    assert want in both(SAME[name])[1]


def test_declared_encoding_same_tree() -> None:
    slow, fast = both(b"<p>\xe8\xef</p>", declared_encoding="iso-8859-2")
    assert slow == fast and "\u010d\u010f" in slow


# Every class of difference seen on the development corpus or in the hostile tests, on a synthetic input:
# (input, html5lib's <body> children, lexbor's <body> children, why).
DIFFERENCES = {
    "end tag p inside svg": (
        "<svg></p>after</svg>",
        "<svg:svg><p></>'after'</>",
        "<svg:svg></><p></>'after'",
        "current standard: </p> and </br> break out of foreign content (html5lib keeps them inside the svg)",
    ),
    "end tag br inside svg": (
        "<svg><g></br>t</g></svg>",
        "<svg:svg><svg:g><br></>'t'</></>",
        "<svg:svg><svg:g></></><br></>'t'",
        "same rule as </p>",
    ),
    "search closes p": (
        "<p>a<search>b</search>",
        "<p>'a'<search>'b'</></>",
        "<p>'a'</><search>'b'</>",
        "<search> (2023) is a block that closes an open <p>; html5lib treats it as an unknown inline tag",
    ),
    "dialog closes p": (
        "<p>x<dialog>y</dialog>",
        "<p>'x'<dialog>'y'</></>",
        "<p>'x'</><dialog>'y'</>",
        "<dialog> closes an open <p> in the current standard",
    ),
    "customizable select keeps markup": (
        "<select><option>a<b>bold</b></option><hr></select>",
        "<select><option>'abold'</></>",
        "<select><option>'a'<b>'bold'</></><hr></></>",
        "since 2025 <select>/<option> keep element children (customizable select); html5lib drops the tags",
    ),
    "isindex": (
        "<isindex>",
        "<form><hr></><label>'This is a searchable index. Enter search keywords: '"
        "<input name='isindex'></></><hr></></>",
        "<isindex></>",
        "<isindex> left the standard in 2016; html5lib still expands it into a form with an English prompt",
    ),
    "table cell in a template": (
        "<p>p</p><template><td>x</td></template>",
        "<p>'p'</><template>'x'</>",
        "<p>'p'</><template><td>'x'</></>",
        "template contents accept table parts in the current standard; html5lib 1.1 drops the <td>",
    ),
    "whitespace in a table cell reconstructs formatting": (
        "<table><tr><td><p><font>a</p>\n<p>b</p></td></tr></table>",
        "<table><tbody><tr><td><p><font>'a'</></>'\\n'<p><font>'b'</></></></></></>",
        "<table><tbody><tr><td><p><font>'a'</></><font>'\\n'<p>'b'</></></></></></>",
        "the standard reopens an unclosed <font>/<b> before whitespace too; html5lib 1.1 does not in table "
        "cells, so later paragraphs are siblings there and children of the <font> in browsers and lexbor "
        "(the only class that changed extracted text on the corpus: 2 of 1,560 pages)",
    ),
}


@pytest.mark.parametrize("case", list(DIFFERENCES.values()), ids=list(DIFFERENCES))
def test_difference_class(case: tuple[str, str, str, str]) -> None:
    html, want_slow, want_fast, _why = case
    slow = tree(parse_html(html, parser="html5lib").body)
    fast = tree(parse_html(html, parser="fast").body)
    assert (slow, fast) == (want_slow, want_fast)


def test_parser_choice() -> None:
    with pytest.raises(readwell.InputError):
        parse_html("<p>x</p>", parser="nope")


def test_environment_forces_html5lib(monkeypatch: pytest.MonkeyPatch) -> None:
    html = "<svg></p>after</svg>"  # a difference class: tells the parsers apart
    monkeypatch.setenv("READWELL_PARSER", "html5lib")
    assert tree(parse_html(html).body) == DIFFERENCES["end tag p inside svg"][1]
    monkeypatch.setenv("READWELL_PARSER", "auto")
    assert tree(parse_html(html).body) == DIFFERENCES["end tag p inside svg"][2]
