"""Hostile pages, statically: every payload of the corpus and every ``fixtures/security--*.html`` page,
checked on every output format (content_html re-parsed, Markdown rendered by CommonMark, text, JSON, front
matter, a saved page assembled from the metadata). The checks live in ``security.checks``; the dynamic
(Chromium) check is in ``test_browser.py`` and the fuzz test in ``test_fuzz.py``."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import fixturelib
import pytest
import readwell
from readwell import cli
from readwell.context import Context, Options
from readwell.parse import parse_html
from readwell.render_html import serialize
from readwell.render_markdown import esc_url, front_matter, to_markdown
from readwell.sanitize import bleach_final, clean_attr, sanitize_tree
from readwell.urls import is_safe_url, split_srcset

from security import article, checks, payloads, reference

SECURITY_FIXTURES = fixturelib.all_fixtures("security")


def test_corpus_covers_every_vector_class() -> None:
    classes = {p.cls for p in payloads.PAYLOADS}
    assert classes == {
        "url",
        "handler",
        "style",
        "element",
        "foreign",
        "mutation",
        "markdown",
        "control",
        "metadata",
    }
    attrs = " ".join(payloads.URL_CONTEXTS.values())
    for a in (
        "href=",
        "src=",
        "srcset=",
        "poster=",
        "cite=",
        "action=",
        "formaction=",
        "xlink:href=",
        "data=",
        "background=",
        "ping=",
    ):
        assert a in attrs, f"no URL context for {a}"


# --- the sanitizer alone: every payload, no stage in between ------------------------------------------------
@pytest.mark.parametrize("payload", [p for p in payloads.PAYLOADS if p.where == "body"], ids=lambda p: p.id)
def test_sanitizer_alone(payload: payloads.Payload) -> None:
    """The payload straight into ``sanitize_tree`` (no stage can remove it first), then our serializer, then
    bleach: the re-parse holds only what the sanitizer allowed and saw, and bleach finds nothing to change."""
    doc = parse_html(f"<!DOCTYPE html><body><div>{payload.html}</div></body>")
    ctx = Context(doc, Options())
    root = doc.body
    sanitize_tree(ctx, root)
    ours = serialize(root, include_self=False)
    checks.assert_reparse_stable(ours, seen=root)
    final = bleach_final(ours)
    assert checks.canon(checks.reparse(final)) == checks.canon(checks.reparse(ours)), (
        "bleach had to change our output"
    )
    checks.check_markdown(to_markdown(root), checks.reparse(final))


# --- every payload inside a real-looking article, through the whole pipeline --------------------------------
@pytest.mark.parametrize("context", list(payloads.URL_CONTEXTS), ids=str)
def test_url_context_in_article(context: str) -> None:
    """One article per URL-bearing attribute holding every scheme variant (``u-<context>-<variant>`` ids),
    each between sentences of its own so that the removal stages keep them."""
    by_id = {p.id: p for p in payloads.PAYLOADS}
    parts = [
        f"<p>Variant {v} reads as follows in ordinary words.</p>{by_id[f'u-{context}-{v}'].html}"
        for v in payloads.URL_VARIANTS
    ]
    result = checks.check_all(article.article_page(body="\n".join(parts)), front_matter_check=False)
    assert article.KEEP_LEAD in result.text and article.KEEP_TAIL in result.text


@pytest.mark.parametrize("payload", [p for p in payloads.PAYLOADS if p.cls != "url"], ids=lambda p: p.id)
def test_payload_in_article(payload: payloads.Payload) -> None:
    result = checks.check_all(
        article.payload_page(payload),
        allowed_markers=payloads.visible_markers(payload),
        front_matter_check=payload.cls in ("metadata", "control"),
    )
    assert result.found
    if payload.keep:
        assert article.KEEP_LEAD in result.text and article.KEEP_TAIL in result.text, (
            "the text around the payload was lost"
        )
    if payload.where == "head" and payload.visible and payload.id != "meta-control":
        # the hostile value was taken, as a plain string, not dropped on the way
        values = [result.title, result.byline, result.excerpt, result.site_name]
        assert any(v and ("<" in v or '"' in v) for v in values), "the hostile metadata was not used"


MARKDOWN_SENSITIVE = [
    p for p in payloads.PAYLOADS if p.cls in ("markdown", "url") and ("entity" in p.id or p.cls == "markdown")
]


@pytest.mark.parametrize("payload", MARKDOWN_SENSITIVE, ids=lambda p: p.id)
def test_payload_without_page_url(payload: payloads.Payload) -> None:
    """Without a page URL relative targets stay relative: an entity-like ``&#58;`` is the whole attack."""
    checks.check_all(
        article.payload_page(payload),
        url=None,
        allowed_markers=payloads.visible_markers(payload),
        deep=False,
        front_matter_check=False,
    )


# --- the security fixtures ----------------------------------------------------------------------------------
@pytest.mark.parametrize("fx", SECURITY_FIXTURES, ids=lambda f: f.name)
def test_security_fixture(fx: fixturelib.Fixture) -> None:
    result = checks.check_all(fx.data, url=fx.url, allowed_markers=None, options=fx.options)
    assert result.found == fx.expect.get("found", True)
    for phrase in fx.keep:
        assert phrase in result.text, f"lost: {phrase!r}"
    for phrase in fx.drop:
        assert phrase not in result.text, f"kept: {phrase!r}"
    for k, v in fx.expect.items():
        if k != "found":
            assert getattr(result, k) == v


@pytest.mark.parametrize("fx", SECURITY_FIXTURES, ids=lambda f: f.name)
def test_security_fixture_through_cli(fx: fixturelib.Fixture, tmp_path: Path) -> None:
    """The CLI's own output of every format passes the same checks (what a user pipes into other tools)."""
    src = tmp_path / "page.html"
    src.write_bytes(fx.data)
    outs = {}
    for fmt in ("json", "markdown", "html", "text"):
        buf = io.StringIO()
        with redirect_stdout(buf):
            code = cli.main(["extract", str(src), "--url", fx.url, "--format", fmt])
        assert code == 0
        outs[fmt] = buf.getvalue()
    d = json.loads(outs["json"])
    checks.check_json(d)
    content = checks.assert_reparse_stable(outs["html"])
    checks.check_markdown(outs["markdown"], content)
    checks.check_text(outs["text"], None)


# --- the fixes, one by one ---------------------------------------------------------------------------------
@pytest.mark.parametrize("url", ["javascript&#58;alert(1)", "javascript&colon;alert(1)", "a&#x3A;b", "&amp;"])
def test_markdown_target_keeps_entities_literal(url: str) -> None:
    """CommonMark decodes entities in link targets: ``&#58;`` must reach the reader as the five characters."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    md.validateLink = lambda u: True
    tokens = md.parseInline(f"[x]({esc_url(url)})")[0].children
    assert __import__("urllib.parse").parse.unquote(tokens[0].attrGet("href")) == url


def test_markdown_tex_cannot_open_html_or_links() -> None:
    page = article.article_page(
        body='<p>Inline <span data-tex="a&lt;b [x](javascript:alert(1)) \\sqrt[3]{y} c&gt;d">'
        "m</span> and more.</p>"
    )
    md = readwell.extract(page, url=article.PAGE_URL).markdown
    assert "$a\\lt b [x] (javascript:alert(1)) \\sqrt[3]{y} c\\gt d$" in md
    checks.check_markdown(md, None)


def test_callout_kind_is_a_word() -> None:
    page = article.article_page(
        body='<blockquote data-callout="Warning](javascript:alert(1))"><p>Mind the step when '
        "you enter the shed in the dark.</p></blockquote>"
    )
    md = readwell.extract(page, url=article.PAGE_URL).markdown
    assert "Mind the step" in md and "javascript" not in md.lower()
    checks.check_markdown(md, None)
    page = article.article_page(
        body='<blockquote data-callout="Warning"><p>Mind the step when you enter the shed in the '
        "dark.</p></blockquote>"
    )
    assert "> [!WARNING]\n> Mind the step" in readwell.extract(page, url=article.PAGE_URL).markdown


@pytest.mark.parametrize(
    "value",
    [
        "a\x7fb",
        "c\x80d",
        "e\x9bf",
        "g\ufffeh",
        "i\uffffj",
        "k\ud800l",
        "m\x85n",
        "o\u2028p",
        "q\x1br",
        "\n---\nx: 1",
        "\ufeffs",
    ],
)
def test_front_matter_is_valid_yaml_for_any_string(value: str) -> None:
    yaml = pytest.importorskip("yaml")
    block = front_matter({"title": value})
    assert block.startswith("---\n") and block.endswith("\n---\n\n") and block.count("\n") == 4
    assert yaml.safe_load(block.split("---\n")[1]) == {"title": value}


def test_srcset_split_on_ascii_whitespace_only() -> None:
    """``\\x1f`` is whitespace to Python's ``str.split`` and ``\\s`` but not to a browser's srcset parser."""
    assert [u for u, _ in split_srcset("\x01\x1fjavascript:alert(1) 2x")] == ["\x01\x1fjavascript:alert(1)"]
    assert clean_attr("img", "srcset", "\x01\x1fjavascript:alert(1) 2x") is None
    assert clean_attr("img", "srcset", "https://example.org/a.png javascript:alert(1) 2x") is None
    assert clean_attr("img", "srcset", "https://example.org/a.png 1x, /b.png 2x") is not None
    assert clean_attr("img", "srcset", "https://example.org/a.png 640w, /b(1,2).png 1280w") is not None


def test_serializer_keeps_blank_lines_in_pre_and_attributes() -> None:
    doc = parse_html('<body><pre><code>a\n\n\nb</code></pre><p title="x\n\ny">t</p></body>')
    html = serialize(doc.body, include_self=False)
    assert "a\n\n\nb" in html and 'title="x\n\ny"' in html


def test_control_characters_never_reach_outputs() -> None:
    page = article.article_page(
        body="<p>Bell \x07 escape \x1b[2J c1 \x9b and &#x1b;]0;t&#x7; end of line.</p>"
        '<pre><code>x\x1b[0m y</code></pre><img src="https://example.org/a.png" alt="a\x1bb">'
    )
    r = readwell.extract(page, url=article.PAGE_URL)
    for out in (r.content_html, r.markdown, r.text):
        assert not reference.CONTROL.search(out)
    assert "Bell escape [2J c1 and ]0;t end of line." in r.text


@pytest.mark.parametrize(
    "url,ok",
    [
        ("https://example.org/", True),
        ("mailto:a@example.org", True),
        ("/rel", True),
        ("//example.org/x", True),
        ("javascript:alert(1)", False),
        (" \x01java\tscript:alert(1)", False),
        ("JAVASCRIPT:x", False),
        ("vbscript:x", False),
        ("data:text/html,x", False),
        ("file:///etc/passwd", False),
        ("\u2000javascript:x", False),
    ],
)
def test_scheme_check_matches_browser(url: str, ok: bool) -> None:
    """``is_safe_url`` agrees with the independent ``browser_scheme`` (or is stricter: a browser reads
    ``\\u2000javascript:x`` as a relative URL, we refuse it)."""
    assert is_safe_url(url) is ok
    assert reference.url_ok(url, image=False) is ok or "\u2000" in url


def test_security_md_lists_the_allow_lists() -> None:
    """SECURITY.md's allow-lists are the code's (docs that drift from the code are worse than none)."""
    import re

    from readwell.sanitize import ALLOWED_TAGS, DROP_TAGS, GLOBAL_ATTRS, MATHML_ATTRS, MATHML_TAGS

    doc = (fixturelib.ROOT / "SECURITY.md").read_text(encoding="utf-8")

    def listed(label: str) -> set[str]:
        m = re.search(re.escape(label) + r"[^`]*`([^`]+)`", doc)
        assert m, f"SECURITY.md has no '{label}' list"
        return set(m.group(1).split())

    assert listed("- Elements kept:") == set(ALLOWED_TAGS)
    assert listed("- Elements removed with their content") == set(DROP_TAGS)
    assert listed("- Attributes on every element:") == set(GLOBAL_ATTRS)
    assert listed("- MathML elements kept inside") == set(MATHML_TAGS)
    assert listed("- MathML attributes") == set(MATHML_ATTRS)


def test_bleach_linear_walker_matches_stock() -> None:
    """``sanitize._LinearWalker`` (linear in the number of siblings) gives bleach's stock result."""
    from readwell import sanitize

    pages = [fx.data for fx in SECURITY_FIXTURES] + [
        article.article_page(
            body="\n".join(p.html for p in payloads.PAYLOADS if p.where == "body" and p.cls != "url")
        )
    ]
    htmls = [readwell.extract(p, url=article.PAGE_URL).content_html for p in pages]
    htmls.append(
        "<div>" + "<p>a <b>b <i>c</i></b> d</p>" * 300 + "</div><ul>" + "<li>x</li>" * 50 + "</ul>tail"
    )
    stock = bleach_final.__globals__["_StockWalker"]
    try:
        for html in htmls:
            sanitize._CLEANER.walker = sanitize._LinearWalker
            linear = sanitize._CLEANER.clean(html)
            sanitize._CLEANER.walker = stock
            assert sanitize._CLEANER.clean(html) == linear
    finally:
        sanitize._CLEANER.walker = sanitize._FastWalker


def test_bleach_fast_walker_gives_the_stock_tokens() -> None:
    """``sanitize._FastWalker`` yields the stock etree walker's tokens (types, names, namespaces, attribute
    order and values, text splits, comments, tails) on our outputs and on hostile fragments, and bleach's
    output with it is the stock one."""
    from readwell import sanitize

    pages = [fx.data for fx in SECURITY_FIXTURES] + [fx.data for fx in fixturelib.all_fixtures()]
    htmls = [readwell.extract(p, url=article.PAGE_URL).content_html or "" for p in pages]
    htmls += [
        "",
        "  lead text <p> a </p> tail  ",
        "<!-- c --><p>x<!-- d -->y</p><!-- e -->z",
        '<p a="1" b c="&amp;">t</p><br><img src=x alt="y">after<hr>',
        '<math><mi xlink:href="x" xmlns:xlink="http://www.w3.org/1999/xlink">a</mi><mo>+</mo></math> t',
        "<svg><foreignObject><p>in</p></foreignObject><circle r=1/></svg>",
        "<table><tr><td>1<td>2</table><b><i>mis</b>nested</i>",
        "<div>" + "<p>a <b>b <i>c</i></b> d</p>" * 300 + "</div><ul>" + "<li>x</li>" * 50 + "</ul>tail",
        "<p>\t\n\x0c\r text \n</p>\n\n",
        "<br>x</br>y<p></p><p/>",
    ]
    stock = sanitize._StockWalker

    def stream(walker: Any, dom: Any) -> list[Any]:
        return [
            {k: (list(v.items()) if k == "data" and isinstance(v, dict) else v) for k, v in t.items()}
            for t in walker(dom)
        ]

    for html in htmls:
        dom = sanitize._CLEANER.parser.parseFragment(html)
        assert stream(sanitize._FastWalker, dom) == stream(stock, dom), html[:200]
        fast = sanitize._CLEANER.clean(html)
        sanitize._CLEANER.walker = stock
        try:
            assert sanitize._CLEANER.clean(html) == fast
        finally:
            sanitize._CLEANER.walker = sanitize._FastWalker


def test_no_invalid_codepoints_is_sound_on_every_code_point() -> None:
    """``sanitize.no_invalid_codepoints`` lets bleach skip its scan: every code point bleach's html5lib
    reports as invalid must make it answer False (alone and inside text), and plain text must pass."""
    from bleach._vendor.html5lib._inputstream import invalid_unicode_re
    from readwell import sanitize as sanitize_module
    from readwell.sanitize import no_invalid_codepoints

    invalid = [chr(cp) for cp in range(0x110000) if invalid_unicode_re.match(chr(cp))]
    assert len(invalid) > 2000  # controls, surrogates and noncharacters
    assert not [c for c in invalid if no_invalid_codepoints(c) or no_invalid_codepoints(f"<p>a{c}b</p>")]
    assert no_invalid_codepoints("<p>a\u00a0b\tc\nd\u200be\u00ad f\r\x0c</p>")
    # both of its paths: the words-joined shortcut (only white space unprintable) and the exact table
    assert not [c for c in invalid if no_invalid_codepoints(f"<p>a\n{c} b</p>")]
    assert not [c for c in invalid if no_invalid_codepoints(f"<p>a\u00ad\n{c} b</p>")]
    # the shortcut answers as the exact table does, on every code point
    exact = sanitize_module._VALID_UNPRINTABLE
    for cp in range(0x110000):
        text = f"<p>a\n{chr(cp)} b</p>"
        assert no_invalid_codepoints(text) == text.translate(exact).isprintable(), hex(cp)


def test_bleach_parser_matches_stock() -> None:
    """``sanitize._Parser`` (text runs kept whole in the tokenizer's history, no code-point scan on input
    proven clean) gives bleach's stock result, also where bleach's tokenizer reads that history (malformed
    tags) and where the scan reports errors."""
    from bleach.html5lib_shim import BleachHTMLParser
    from readwell import sanitize

    pages = [fx.data for fx in SECURITY_FIXTURES]
    htmls = [readwell.extract(p, url=article.PAGE_URL).content_html for p in pages]
    htmls += [
        "<p>a </ x> b </3> c</p>",
        '<p a"b=c>x</p><nottag <b>y</b>> z',
        "<p>x</p>< p>y</ p><p>z</p\u00a0>",
        "<p>\x01\x0b\ufdd0\U0001fffe\ud800 text</p><b>\x7f</b>",
        "<p>no\u00a0break\u200b space</p>" * 50,
        "<div>" + "<p>long " + "words " * 3000 + "</p>" * 3 + "</div>",
        "<a href='x'>a</a b><i title='<b>'>t</i>&amp;&lt;&notanentity;",
    ]
    ours = sanitize._CLEANER.parser
    stock = BleachHTMLParser(
        tags=ours.tags, strip=ours.strip, consume_entities=ours.consume_entities, namespaceHTMLElements=False
    )
    for html in htmls:
        fast = sanitize._CLEANER.clean(html)
        sanitize._CLEANER.parser = stock
        try:
            assert sanitize._CLEANER.clean(html) == fast
        finally:
            sanitize._CLEANER.parser = ours


def test_piece_memory_keeps_the_stock_history() -> None:
    """``sanitize._PieceMemory`` (text runs kept as strings) holds the same history as bleach's stock stream
    after any sequence of reads, put-backs and tag starts (random, seeded), so ``get_tag`` answers alike."""
    import random

    from bleach._vendor.html5lib._inputstream import HTMLUnicodeInputStream
    from bleach.html5lib_shim import InputStreamWithMemory
    from readwell.sanitize import _PieceMemory

    rnd = random.Random(11)
    text = "".join(rnd.choice("ab <>/&=\"' \n") for _ in range(3000))
    stock = InputStreamWithMemory(HTMLUnicodeInputStream(text))
    ours = _PieceMemory(HTMLUnicodeInputStream(text))
    last: list[str | None] = [None]
    for _ in range(4000):
        op = rnd.random()
        if op < 0.4:
            got = [s.char() for s in (stock, ours)]
        elif op < 0.75:
            stop = frozenset(rnd.sample("<>/&= ", 2))
            got = [s.charsUntil(stop) for s in (stock, ours)]
        elif op < 0.9:  # the character just read, or None (as at the end of input: nothing to put back)
            got = [s.unget(last[0]) for s in (stock, ours)]
        else:
            got = [s.start_tag() for s in (stock, ours)]
        assert got[0] == got[1]
        assert stock.get_tag() == ours.get_tag()
        last[0] = got[0][-1] if op < 0.75 and isinstance(got[0], str) and got[0] else None
