"""bleach's re-parse by lexbor (``readwell.bleach_fast``) against bleach's own html5lib route: the same output
on our outputs (every fixture, both parsers), on hostile input handed to ``bleach_final`` directly, on random
trees and on every pair of fast tags; the html5lib route wherever the two parsers could build different trees
(each guard shown taking it). The proof's own guards and tags: ``test_bleach_proof.py``."""

from __future__ import annotations

import importlib
import itertools
import random
from collections.abc import Iterator
from typing import Any

import fixturelib
import pytest
import readwell
from readwell import sanitize
from readwell.dom import HTML_NS, VOID, Element
from readwell.render_html import serialize

from security import article, fuzzer, payloads
from security.test_bleach_proof import Pieces, extracted_trees, random_tree

pytest.importorskip("selectolax", reason="the lexbor re-parse needs the optional extra readwell[fast]")

from readwell import bleach_fast  # noqa: E402 (after the skip)
from readwell.bleach_proof import FAST_TAGS, Unproven  # noqa: E402

EXTRACT = importlib.import_module("readwell.extract")


def html5lib_route(html: str) -> str:
    return str(sanitize._CLEANER.clean(html))


def lexbor_route(html: str) -> str | None:
    """The lexbor route's output, or None where it falls back."""
    if not bleach_fast.may_prove(html):
        return None
    try:
        return sanitize._clean_tokens(html, bleach_fast.fragment_tokens)
    except Unproven:
        return None


def check(html: str) -> bool:
    """Both routes give the same output (and ``bleach_final`` gives it); True when lexbor's was used."""
    slow = html5lib_route(html)
    fast = lexbor_route(html)
    assert fast is None or fast == slow, html[:300]
    assert sanitize.bleach_final(html) == slow, html[:300]
    return fast is not None


def bleach_inputs(pages: list[Any], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What ``bleach_final`` is given while extracting ``pages`` (our serializer's text of each tree)."""
    return [serialize(root, include_self=inc) for root, inc in extracted_trees(pages, monkeypatch)]


@pytest.mark.parametrize("parser", ["fast", "html5lib"])
def test_same_output_on_every_fixture(parser: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READWELL_PARSER", parser)
    pages = [fx.data for fx in fixturelib.all_fixtures()]
    inputs = bleach_inputs(pages, monkeypatch)
    monkeypatch.delenv("READWELL_PARSER", raising=False)
    proven = sum(check(h) for h in inputs)
    assert len(inputs) > 200
    assert proven > len(inputs) * 0.6  # the route is taken on most of our outputs, or this tests little


def test_same_output_on_hostile_input() -> None:
    """The payload corpus, the fuzzer's pieces and cases and the security fixtures, handed to ``bleach_final``
    as they are (not our serializer's output: lexbor must never be trusted with what html5lib reads
    differently) and as extracted."""
    rng = random.Random(11)
    htmls = [p.html for p in payloads.PAYLOADS] + fuzzer.FUZZ_TOKENS + fuzzer.FUZZ_FRAGMENTS
    htmls += [fx.data.decode("utf-8", "replace") for fx in fixturelib.all_fixtures("security")]
    for _ in range(400):
        page, _url = fuzzer.fuzz_case(rng)
        text = page if isinstance(page, str) else page.decode("utf-8", "replace")
        htmls.append(text[:20_000])
        htmls.append(readwell.extract(page, url=article.PAGE_URL).content_html or "")
    proven = sum(check(h) for h in htmls)
    assert 0 < proven < len(htmls)


# --- random trees: canonical markup (our serializer's) of trees html5lib may or may not rebuild -------------

_TAGS = sorted(FAST_TAGS) + ["table", "tbody", "tr", "td", "caption", "section", "x-y", "math", "mi", "svg"]
_TEXTS = ["a", " b ", "\n", "c&d", "<e>", '"f"', "\xa0g", "h\ni", "&amp;", "&lt;x", "\u200bj", "\x0ck", " "]
_ATTRS = [("title", "t\"<&>'`"), ("href", "https://example.org/?a=1&b=2"), ("lang", "en"), ("dir", "rtl")]
_PIECES = Pieces(_TAGS, _TEXTS, _ATTRS, [HTML_NS], 0)


def test_same_output_on_random_trees() -> None:
    rng = random.Random(5)
    proven = unproven = 0
    for _ in range(3000):
        root = Element("div")
        root.children = [random_tree(rng, 4, _PIECES) for _ in range(rng.randint(1, 3))]
        html = serialize(root, include_self=False)
        if check(html):
            proven += 1
        else:
            unproven += 1
    assert proven > 300 and unproven > 300, (proven, unproven)


def _pair(outer: str, inner: str) -> Iterator[str]:
    def el(tag: str, body: str) -> str:
        return f"<{tag}>" if tag in VOID else f"<{tag}>{body}</{tag}>"

    yield el(outer, "a" + el(inner, "b") + "c")
    yield el(outer, el(inner, "\nb"))
    for third in ("li", "dd", "dt", "p", "a", "h2", "div", "pre", "b"):
        yield el(outer, el(inner, el(third, "x")))


def test_same_output_on_every_pair_of_fast_tags() -> None:
    """Every fast tag inside every other, and a list item, paragraph, link, heading, block, pre or formatting
    element inside that: where html5lib's rules and lexbor's differ (paragraph closers, the list-item walk's
    special elements, headings, links, pre's newline), the fallback must be taken."""
    tags = sorted(FAST_TAGS)
    for outer, inner in itertools.product(tags, tags):
        if outer in VOID:
            continue
        for html in _pair(outer, inner):
            check(html)


# --- the fallback, guard by guard ------------------------------------------------------------------------

# (input, what stops it): "screen" is ``may_prove``; "differs" is check 1 (lexbor's tree, written as our
# serializer writes it, is not the input: lexbor restructured it or the input is not canonical), met before
# check 2 wherever both parsers restructure alike; the list-item walk over figcaption/summary is where lexbor
# builds the written tree and html5lib does not (``test_bleach_proof.test_start_guards`` shows the other
# guards alone).

FALLBACKS = [
    ("<table><tr><td>x</td></tr></table>", "screen"),  # tables: foster parenting, implied tbody
    ("<math><mi>x</mi></math>", "screen"),  # foreign content
    ("<p>a<svg><p>b</p></svg></p>", "not a fast tag"),
    ("<section><p>x</p></section>", "not a fast tag"),  # a tag with no proof (or not allow-listed)
    ("<p>x<script>y</script></p>", "not a fast tag"),
    ("<b><p>x</b>y</p>", "differs"),  # misnested formatting: html5lib's adoption agency
    ("<p><div>x</div></p>", "differs"),  # well-nested, but a div closes the p (in both parsers)
    ("<p><span><ul><li>x</li></ul></span></p>", "differs"),
    ("<li><span><li>x</li></span></li>", "differs"),
    ("<li><figcaption><li>x</li></figcaption></li>", "closes an open li"),  # special in lexbor only
    ("<dd><summary><dt>x</dt></summary></dd>", "closes an open dd"),
    ("<h2><h3>x</h3></h2>", "differs"),
    ('<a href="#a"><span><a href="#b">x</a></span></a>', "differs"),
    ("<pre>\nx</pre>", "newline"),  # (lexbor drops one newline: its text would be one short)
    ("<pre>\n\nx</pre>", "newline"),
    ("<p>a<!-- c -->b</p>", "not a fast tag"),
    ("<p>a&nbsp;b</p>", "differs"),  # an entity our serializer never writes: bleach keeps it as written
    ("<p>&#60;b&gt;</p>", "differs"),
    ("<p title=x>a</p>", "differs"),  # unquoted
    ("<p title='x'>a</p>", "differs"),
    ("<P>a</P>", "differs"),
    ('<p a"b="x">y</p>', "attribute"),  # bleach's tokenizer drops this attribute
    ("<br/>x", "differs"),
    ("<p>a\rb</p>", "carriage return"),
    ("<p>a\x00b</p>", "NUL"),
    ("<p>a\ud800b</p>", "differs"),
    ("<p>a</p></div>b", "differs"),
    ("<p>a", "differs"),
    ('<img src="x">text</img>', "more than"),
    ("<p>a</p><x-custom>b</x-custom>", "not a fast tag"),
]


@pytest.mark.parametrize("html,reason", FALLBACKS)
def test_fallback_is_taken(html: str, reason: str) -> None:
    if reason == "screen":
        assert not bleach_fast.may_prove(html)
    else:
        assert bleach_fast.may_prove(html)
        with pytest.raises(Unproven, match=reason):
            list(bleach_fast.fragment_tokens(html))
    assert not check(html)


def test_fast_route_on_our_usual_markup() -> None:
    """What articles are made of takes lexbor's route (the test above is not vacuous)."""
    html = (
        '<h2>T</h2>\n<p>A <a href="https://example.org/?a=1&amp;b=2">link</a> &amp; <em>em</em> '
        "&lt;x&gt;.</p>\n"
        '<figure><img src="https://example.org/i.png" alt="&quot;q&quot;" width="10" height="10">'
        "<figcaption>Cap</figcaption></figure>\n<ul><li>one</li><li><p>two</p></li></ul>\n"
        '<pre><code class="language-py">a = 1\n\nb &lt; 2</code></pre>\n'
        "<blockquote><p>q</p></blockquote>\n<dl><dt>t</dt><dd>d</dd></dl><p>x<br>y<wbr>z</p><hr>"
        '<details open=""><summary>s</summary>t</details>'
    )
    assert check(html)
    assert check("  lead <p>a</p> tail  ")
    assert check("<div>" + "<p>paragraph &amp; more</p>\n" * 2000 + "</div>")


def test_html5lib_parser_setting_runs_no_lexbor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("READWELL_PARSER", "html5lib")
    assert sanitize._lexbor_route() is None
    monkeypatch.delenv("READWELL_PARSER")
    assert sanitize._lexbor_route() is bleach_fast
