"""Table-driven tests of the pure helpers: class tokens, dates, titles, bylines, heading-vs-title, the
metadata ``SOURCES`` order, and the Markdown / plain-text renderers on small trees.

Each row is an input a real page produces and the output the helper must give.
"""

from __future__ import annotations

import random
import re
from dataclasses import fields

import pytest
from readwell import dom
from readwell.dom import Document, Element
from readwell.metadata import SOURCES, Metadata, clean_byline, clean_title, head_metadata, normalize_date
from readwell.metadata import _tidy_steps as tidy_steps
from readwell.parse import parse_html
from readwell.render_markdown import to_markdown, to_text
from readwell.rules import tokens_of
from readwell.signals import same_title


# --- tokens_of ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "tokens"),
    [
        ("share-bar", {"share", "bar", "sharebar"}),
        ("shareBar", {"share", "bar", "sharebar"}),  # camelCase splits like a separator
        ("post_title entry-title", {"post", "title", "posttitle", "entry", "entrytitle"}),
        ("a:b.c", {"a", "b", "c", "abc"}),  # BEM/utility separators
        ("x--y", {"x", "y", "xy"}),  # a run of separators is one
        ("Admonition-Title", {"admonition", "title", "admonitiontitle"}),  # lower-cased
        ("HTMLParser", {"htmlparser"}),  # an upper-case run is not split
        ("article-body2", {"article", "body2", "articlebody2"}),
        ("related", {"related"}),  # one part: no joined form
        ("", set()),
        ("  \t ", set()),
        ("-_-", set()),  # separators only
    ],
)
def test_tokens_of(value: str, tokens: set[str]) -> None:
    assert tokens_of(value) == tokens


def test_tokens_of_matches_one_regex_split() -> None:
    """``tokens_of`` splits a value without upper-case letters without its regular expression; the tokens,
    and their order in the set, must be those of the plain definition (split on separators and camelCase,
    lower-case, add the joined form) on any mix of cases, separators and non-ASCII characters."""
    split = re.compile(r"[-_:.\s]+|(?<=[a-z])(?=[A-Z])")

    def reference(value: str) -> frozenset[str]:
        out: set[str] = set()
        for word in value.split():
            lower = [p.lower() for p in split.split(word) if p]
            out.update(lower)
            if len(lower) > 1:
                out.add("".join(lower))
        return frozenset(out)

    rng = random.Random(11)
    alphabet = "aZbY-_:. \t\u00a0\u2028ÀéİΣσς1"
    values = ["menu-item fooBar", "ÀbC x-y", "a\u00a0b-c", "İx-y", "ΑΣ-b"]
    values += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(3000)]
    for value in values:
        got, want = tokens_of(value), reference(value)
        assert got == want and list(got) == list(want), value


# --- normalize_date -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "iso"),
    [
        ("2024-03-05", "2024-03-05"),
        ("  2024-03-05\n", "2024-03-05"),
        ("2024-03-05T10:20:30Z", "2024-03-05T10:20:30+00:00"),  # Z is UTC
        ("2024-03-05T10:20:30.123+0530", "2024-03-05T10:20:30+05:30"),  # fraction dropped, zone gets ":"
        ("2024-03-05T10:20:30-08:00", "2024-03-05T10:20:30-08:00"),
        ("2024-03-05 10:20", "2024-03-05T10:20:00"),  # space separator, no seconds, no zone
        ("2024-12-31T23:59:60Z", "2024-12-31T23:59:59+00:00"),  # leap second clamped
        ("2024-03-05T10:20:30 +01:00", "2024-03-05T10:20:30+01:00"),
        ("1709633430", "2024-03-05T10:10:30+00:00"),  # unix seconds
        ("1709633430123", "2024-03-05T10:10:30+00:00"),  # unix milliseconds
        ("Tue, 05 Mar 2024 10:20:30 GMT", "2024-03-05T10:20:30+00:00"),  # RFC 2822
        ("Tue, 05 Mar 2024 10:20:30 +0100", "2024-03-05T10:20:30+01:00"),
        ("March 5th, 2024", "2024-03-05"),
        ("Mar. 5 2024", "2024-03-05"),
        ("5 March 2024", "2024-03-05"),
        ("5th Sept. 2024", "2024-09-05"),
        ("Posted on March 5, 2024 by A. Writer", "2024-03-05"),  # a date inside a line
        ("2024/3/5", "2024-03-05"),
        ("2024.03.05", "2024-03-05"),
        ("2024年3月5日", "2024-03-05"),
        ("2024-13-01", None),  # month out of range
        ("1899-01-01", None),  # outside the years a publication date can have
        ("2024-03-05T24:00", None),  # hour out of range
        ("31 Feb 2024", None),  # no such day
        ("Foo 5, 2024", None),  # not a month
        ("170963343", None),  # nine digits: not a timestamp
        ("yesterday", None),
        ("", None),
        ("   ", None),
        ("5 March 2024 " + "x" * 80, None),  # a sentence, not a date
        ("2024-02-30", None),  # the month's own length
        ("2024-02-29", "2024-02-29"),  # a leap year's day
        ("2024-03-05T10:20:30+05", "2024-03-05T10:20:30+05:00"),  # a whole-hour zone
        ("2024-03-05T10:20:30+0530", "2024-03-05T10:20:30+05:30"),
    ],
)
def test_normalize_date(value: str, iso: str | None) -> None:
    assert normalize_date(value) == iso


# --- clean_title ----------------------------------------------------------------------------------------
ARTICLE = "River health improves after dam removal"


@pytest.mark.parametrize(
    ("raw", "site", "h1s", "title"),
    [
        (f"{ARTICLE} | Example News", "Example News", [], ARTICLE),
        (f"{ARTICLE} | Example News", None, [], ARTICLE),  # longer end wins
        (f"Example News | {ARTICLE}", None, [], ARTICLE),  # site first
        (f"Example News - {ARTICLE}", None, [], ARTICLE),
        (f"Home » Blog » {ARTICLE}", None, [], ARTICLE),  # breadcrumb title
        (f"Home / Blog / {ARTICLE}", None, [], ARTICLE),
        # the site name goes; what is left keeps its inner separators
        ("Rivers | River health | Example News", "Example News", [], "Rivers | River health"),
        (
            "Example News — Rivers — River health improves",
            "Example News",
            [],
            "Rivers — River health improves",
        ),
        ("Title – Section – Example", "example", ["Title"], "Title"),  # the page's <h1> decides first
        ("Short | Site", None, ["short"], "Short"),  # h1 match is case-insensitive
        ("Short | Site", None, [], "Short | Site"),  # two short parts: cannot tell, keep all
        ("Q&A: what the river data says | Example", "Example", [], "Q&A: what the river data says"),
        ("Spider-Man review", None, [], "Spider-Man review"),  # a dash without spaces is not a separator
        ("河川の健康状態が改善 ｜ 例ニュース", None, [], "河川の健康状態が改善"),  # CJK: characters count
        ("河川の健康状態が改善｜例", None, [], "河川の健康状態が改善"),  # full-width bar needs no spaces
        ("  River   health \n improves  ", None, [], "River health improves"),
        ("", None, [], ""),
        ("   ", None, [], ""),
    ],
)
def test_clean_title(raw: str, site: str | None, h1s: list[str], title: str | None) -> None:
    assert clean_title(raw, site, h1s) == title


# --- clean_byline ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "byline"),
    [
        ("By A. Writer", "A. Writer"),
        ("by A. Writer, 5 March 2024", "A. Writer"),
        ("By A. Writer, March 5, 2024 | Staff", "A. Writer"),  # a date across two comma parts
        ("By A. Writer on March 5, 2024", "A. Writer"),
        ("By A. Writer updated March 5 2024", "A. Writer"),
        ("By A. Writer • 5 min read", "A. Writer"),
        ("By A. Writer, 10:00", "A. Writer"),  # a part with digits is not a name
        ("A. Writer | Staff Writer", "A. Writer"),  # role after a bar
        ("Von A. Schreiber", "A. Schreiber"),  # other languages' "by"
        ("Par A. Écrivain", "A. Écrivain"),
        ("By A. Writer, B. Writer", "A. Writer, B. Writer"),  # several authors stay one string
        ("A. Writer, B. Writer, C. Writer", "A. Writer, B. Writer, C. Writer"),
        ("A. Writer and B. Writer", "A. Writer and B. Writer"),
        ("By A. Writer, Jr.", "A. Writer, Jr."),
        ("Bylaw committee", "Bylaw committee"),  # "By" must be a word
        ("", None),
        ("   ", None),
        ("—", None),  # punctuation only
        ("By: A. Writer", "A. Writer"),  # the prefix with a colon
        ("By", None),  # the prefix alone names nobody
        ("By:", None),
        # A capitalised foreign "by" before a single word is a surname particle, not a prefix.
        ("Di Rossi", "Di Rossi"),
        ("Von Trapp", "Von Trapp"),
        ("Door Bosch", "Door Bosch"),
        ("di A. Scrittore", "A. Scrittore"),  # lower case: the prefix
        ("Di A. Scrittore", "A. Scrittore"),  # a prefix before a full name
        ("by Writer", "Writer"),  # English "by" is always the prefix
    ],
)
def test_clean_byline(text: str, byline: str | None) -> None:
    assert clean_byline(text) == byline


# --- same_title -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("heading", "title", "same"),
    [
        ("River health improves", "River health improves", True),
        ("river HEALTH improves", "River health improves", True),  # case-insensitive
        ("River health improves after dam removal", "River health improves after dam removal | News", True),
        ("Dam removal", "Dam removal works", True),  # 2 of 3 words shared
        ("The river improves today", "The river improved today", True),  # 3 of 5: the 0.6 threshold
        ("River", "River health improves after dam removal", False),  # short: containment is not enough
        ("Rivers and lakes", "Oceans and seas", False),
        ("", "River", False),
        ("River health", "", False),
        ("x" * 301, "x" * 301, False),  # a heading this long is not a title
    ],
)
def test_same_title(heading: str, title: str, same: bool) -> None:
    assert same_title(heading, title) is same


# --- metadata SOURCES -----------------------------------------------------------------------------------
def test_sources_name_metadata_fields_and_known_steps() -> None:
    names = {f.name for f in fields(Metadata)}
    steps = set(tidy_steps(None))
    for name, spec in SOURCES.items():
        assert name in names, name
        assert spec.why.strip(), name
        for src in spec.order:
            assert src.tidy in steps, (name, src)


_LD = '<script type="application/ld+json">{"@type": "NewsArticle", %s}</script>'


@pytest.mark.parametrize(
    ("head", "field", "value"),
    [
        # JSON-LD before OpenGraph before <title>
        (
            _LD % '"headline": "LD title"' + '<meta property="og:title" content="OG title">',
            "title",
            "LD title",
        ),
        ('<meta property="og:title" content="OG title"><title>Tag title</title>', "title", "OG title"),
        ("<title>Tag title</title>", "title", "Tag title"),
        # a profile URL is not a byline: the next meta source is used
        (
            '<meta name="author" content="https://example.org/a">'
            '<meta name="dc.creator" content="By A. Writer">',
            "byline",
            "A. Writer",
        ),
        (_LD % '"author": [{"name": "A. Writer"}, {"name": "B. Writer"}]', "byline", "A. Writer, B. Writer"),
        ('<meta name="twitter:creator" content="@writer">', "byline", None),  # a handle is no byline
        # a value that is not a date falls through to the next source
        (
            '<meta property="article:published_time" content="soon"><meta name="date" content="2024-03-05">',
            "published",
            "2024-03-05",
        ),
        (
            _LD % '"dateCreated": "2024-01-01"' + '<meta name="date" content="2024-03-05">',
            "published",
            "2024-03-05",
        ),
        ('<meta name="twitter:site" content="@example">', "site_name", "example"),
        ('<meta property="og:locale" content="en_US">', "lang", "en-US"),
        ('<meta property="og:locale" content="ar_EG">', "dir", "rtl"),  # direction from the language
        (
            '<link rel="canonical" href="javascript:x"><meta property="og:url" content="/a">',
            "canonical_url",
            "https://example.org/a",
        ),
        (
            '<meta property="og:image" content="javascript:x"><meta name="twitter:image" content="/i.png">',
            "lead_image",
            None,
        ),  # the chosen image must be usable; no fall-through
        ("", "favicon", "https://example.org/favicon.ico"),
    ],
)
def test_sources_order(head: str, field: str, value: str | None) -> None:
    doc = parse_html(f"<html><head>{head}</head><body><p>Text.</p></body></html>")
    assert getattr(head_metadata(doc, "https://example.org/news/x"), field) == value


# --- renderers ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "markdown", "text"),
    [
        (
            "<p>a <b>bold</b> <a href='/x'>link</a> <code>x|y</code></p>",
            "a **bold** [link](/x) `x|y`",
            "a bold link x|y",
        ),
        ("<h2>Head</h2><p>- not a list</p>", "## Head\n\n\\- not a list", "Head\n\n- not a list"),
        ("<p>1. not a list</p>", "1\\. not a list", "1. not a list"),  # the escape goes before the dot
        ("<ol start='3'><li>one</li><li>two</li></ol>", "3. one\n4. two", "one\ntwo"),
        ("<blockquote data-callout='note'><p>Hi</p></blockquote>", "> [!NOTE]\n> Hi", "Hi"),
        (
            "<figure><img src='/i.png' alt='A'><figcaption>Cap</figcaption></figure>",
            "![A](/i.png)\n\n*Cap*",
            "",
        ),
        (
            "<table><tr><th>a</th><th>b</th></tr><tr><td><code>x|y</code></td><td>2</td></tr></table>",
            "| a | b |\n| --- | --- |\n| `x\\|y` | 2 |",
            "a\tb\n\nx|y\t2",  # one row per paragraph
        ),
        # a table in a cell: read once, as its cell's text (GFM has no nested tables)
        (
            "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td><table><tr><td>x</td><td>y|</td></tr>"
            "<tr><td>z</td></tr></table></td></tr></table>",
            "| k | v |\n| --- | --- |\n| a | x y\\| z |",
            "k\tv\n\na\tx\ty| z",
        ),
        ("<dl><dt>Term</dt><dd>Def</dd></dl>", "**Term**\n\nDef", "Term\n\nDef"),
        # text straight inside a list or <dl> (no <li>/<dt>): a paragraph between the items, not dropped
        ("<ul>bare <b>x</b><li>a</li>tail</ul>", "bare **x**\n\n- a\n\ntail", "bare x\n\na\n\ntail"),
        ("<ol><li>a</li>note<li>b</li></ol>", "1. a\n\nnote\n\n2. b", "a\n\nnote\n\nb"),
        ("<dl>lead<dt>T</dt><dd>D</dd></dl>", "lead\n\n**T**\n\nD", "lead\n\nT\n\nD"),
        # a footnote reference: a GFM reference in Markdown, the bracketed marker HTML shows in plain text
        ("<p>a<sup data-footnote-ref='1'><a href='#n1'>1</a></sup></p>", "a[^1]", "a[1]"),
        ("<p>x<span data-tex='a<b'></span></p>", "x$a\\lt b$", "xa<b"),
        ("<pre><code class='language-py'>a ``` b</code></pre>", "````py\na ``` b\n````", "a ``` b"),
        ("<p>a<br>b</p><hr><p>c</p>", "a\\\nb\n\n---\n\nc", "a\nb\n\nc"),
        # a video player's paragraph: a link line in Markdown, nothing in the running prose, in every context
        (
            "<p>a</p><p data-embed='video'><a href='https://v.example/1'>Clip [x]</a></p>",
            "a\n\n[▶ Clip \\[x\\]](https://v.example/1)",
            "a",
        ),
        (
            "<table><tr><td>a <span><p data-embed='video'><a href='https://v.example/1'>Clip</a></p></span></td>"
            "<td><i><p data-embed='video'><a href='https://v.example/2'>Two</a></p></i></td></tr></table>",
            "| a [▶ Clip](https://v.example/1) | *[▶ Two](https://v.example/2)* |\n| --- | --- |",
            "a",  # a trailing empty cell is stripped with the line
        ),
        (
            "<ul><li>x <p data-embed='video'><a href='https://v.example/1'>Clip</a></p></li></ul>",
            "- x\n\n  [▶ Clip](https://v.example/1)",
            "x",
        ),
        (
            "<blockquote><p data-embed='video'><a href='https://v.example/1'>Clip</a></p></blockquote>",
            "> [▶ Clip](https://v.example/1)",
            "",
        ),
        ("<p>b</p><p data-embed='video'><a>No link</a></p>", "b", "b"),
    ],
)
def test_render_markdown_and_text(body: str, markdown: str, text: str) -> None:
    root = parse_html(f"<html><body><div>{body}</div></body></html>").body
    assert to_markdown(root) == markdown + "\n"
    assert to_text(root) == text


@pytest.mark.parametrize(
    ("mathml", "tex"),
    [
        ("<mi>x</mi><mo>+</mo><mn>1</mn>", "x+1"),
        ("<mfrac><mn>1</mn><mrow><mi>x</mi><mo>+</mo><mn>1</mn></mrow></mfrac>", "\\frac{1}{x+1}"),
        ("<msup><mi>e</mi><mrow><mi>i</mi><mi>π</mi></mrow></msup>", "e^{iπ}"),
        ("<msubsup><mo>∫</mo><mn>0</mn><mn>1</mn></msubsup>", "∫_{0}^{1}"),
        ("<mroot><mi>x</mi><mn>3</mn></mroot><msqrt><mi>y</mi></msqrt>", "\\sqrt[3]{x}\\sqrt{y}"),
        ("<msub><mrow><mi>a</mi><mi>b</mi></mrow><mn>2</mn></msub>", "{ab}_{2}"),
        ("<mtext>if</mtext><mi>%</mi>", "\\text{if}\\%"),
        (
            "<mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>0</mn></mtd></mtr><mtr><mtd><mn>0</mn></mtd><mtd><mn>1</mn></mtd></mtr></mtable>",
            "\\begin{matrix}1 & 0 \\\\ 0 & 1\\end{matrix}",
        ),
        ("<maction><mi>x</mi></maction>", None),  # not a layout element this mapping knows: the text is used
    ],
)
def test_mathml_to_tex(mathml: str, tex: str | None) -> None:
    from readwell.mathml_tex import mathml_to_tex

    root = parse_html(f"<html><body><p><math>{mathml}</math></p></body></html>").body
    math = next(e for e in root.iter() if e.tag == "math")
    assert mathml_to_tex(math) == tex


# --- remove_low_score: images without a source do not make an image grid ------------------------------------
_DAY = "Day {n} we sailed along the coast past the lighthouse and anchored in a bay before supper on deck "


@pytest.mark.parametrize(
    ("img", "text_days", "grid"),
    [
        ('<img width="64" height="48">', 6, False),  # ASP.NET image controls left empty: nothing shown
        ('<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">', 6, False),  # placeholders only
        ('<img src="/media/day.jpg">', 6, True),  # real pictures: a grid, as before
        ('<img width="64" height="48">', 1, True),  # too little text beside them to be an article's
    ],
)
def test_sourceless_images_are_not_an_image_grid(img: str, text_days: int, grid: bool) -> None:
    from readwell.measure import measure
    from readwell.stages.remove_low_score import verdict

    text = "<br>".join(_DAY.format(n=n) for n in range(text_days))
    root = parse_html(f"<html><body><div id='days'>{text}{img * 8}</div></body></html>").body
    el = next(e for e in root.iter() if e.id == "days")
    why = verdict(el, measure(root)[el.nid], 10**6)
    assert (why is not None and why.startswith("image grid")) is grid


def test_prose_lines_leave_script_and_style_text_out() -> None:
    """A script's or a style sheet's text is nobody's line of prose: counted, it made a photo box's credit
    line (short, ended by a ``<br>``) read as a paragraph when the parser left the box's script beside it
    rather than inside the link (html5lib and lexbor nest a misplaced ``<script>`` differently), and the
    two parsers then disagreed on the image-grid verdict."""
    from readwell.stages.remove_low_score import prose_lines

    code = "var shown = [1, 2, 3], link = 'x', more = 4, again = 5, last = 6; show(shown, link, more, again);"
    for tag in ("script", "style"):
        root = parse_html(
            f"<html><body><div id='box'><{tag}>{code}</{tag}>Photo: A. Credit<br></div></body></html>"
        )
        box = next(e for e in root.body.iter() if e.id == "box")
        assert prose_lines(box) == 0, tag
    root = parse_html(
        f"<html><body><div id='box'>{code}<br></div></body></html>"
    )  # the same words as text count
    assert prose_lines(next(e for e in root.body.iter() if e.id == "box")) == 1


# --- remove_by_selector: where a comment thread starts ------------------------------------------------------
@pytest.mark.parametrize(
    ("html", "kind"),
    [
        ("<h3>12 Comments</h3>", "heading"),
        ("<h3>3 thoughts on A New Boat for the Ferry</h3>", "heading"),
        ("<b>Comments are now closed for this story</b>", "heading"),
        ("<h3>Leave a Reply</h3>", "heading"),
        ("<div>Comments</div>", "bare heading"),  # needs thread items after it
        ("<strong>Your Comments</strong>", "heading"),
        ('<a id="comments" class="anchor" href="#comments"></a>', None),  # a heading's self-link
        ('<a name="comments"></a>', "name"),  # so does a name: also a style guide's "## Comments" id
        ('<div id="disqus_thread"></div>', "thread name"),
        ("<h2>Comment</h2>", None),  # an article section ("Comment", "Briefing", "Access")
        ("<h2>Discussion</h2>", None),  # a paper's section
        ('<span><a href="#comments">3 Comments</a> »</span>', None),  # the byline row's link to the thread
        ('<a href="#comments"><span>Comments</span></a>', None),  # ... with the words inside the link
        ("<p>Comments from readers after the first year were mostly kind.</p>", None),
    ],
)
def test_thread_start(html: str, kind: str | None) -> None:
    from readwell.signals import thread_start

    root = parse_html(f"<html><body><main>{html}</main></body></html>").body
    el = next(e for e in root.iter() if e.tag == "main").element_children[0]
    inner = [e for e in el.iter() if thread_start(e)]
    assert thread_start(el) == kind or (kind is None and not inner)


def test_html5lib_path_skips_only_the_code_point_error_scan() -> None:
    """The html5lib path turns off its stream's invalid-code-point scan (parse errors nobody reads; about a
    tenth of parsing): same tree as stock html5lib, and that error is really no longer counted."""
    import xml.etree.ElementTree as ET

    import html5lib
    from readwell import parse

    html = "<p>a\ufdd0b\x01c\U0001fffe</p><svg><g>\x0bx</g></svg>"
    ours = parse._Html5libParser(tree=html5lib.getTreeBuilder("etree"))
    stock = html5lib.HTMLParser(tree=html5lib.getTreeBuilder("etree"))
    assert ET.tostring(ours.parse(html)) == ET.tostring(stock.parse(html))
    assert "invalid-codepoint" in [e[1] for e in stock.errors]
    assert "invalid-codepoint" not in [e[1] for e in ours.errors]


_LONG_RUN = "word " * 2100  # past html5lib's 10,240-character chunk: runs end at a chunk's end


@pytest.mark.parametrize(
    "html",
    [
        f"<p>{_LONG_RUN}</p><P CLASS=a class=b>x</p  id=c><br/></br/>",
        f"<div title='{_LONG_RUN}'>{_LONG_RUN}<!-- {_LONG_RUN} --></div>",
        "<p>" + "a" * 10239 + "\r\n" + "b" * 50 + "\r" + "c</p>",
        f"<title>{_LONG_RUN}&amp;</title><textarea>{_LONG_RUN}</textarea><script>{_LONG_RUN}<\\/script>",
        "<DIV><Div><dIv>a\x00b<SPAN Id=x ID=y>c</SPAN></dIv></Div></DIV><svg><foreignObject/></svg>",
        b"<meta charset=windows-1252><p>caf\xe9 " + b"x" * 11000 + b"</p>",
        b"<p>" + b"y" * 11000 + b"</p><meta charset=iso-8859-2><p>\xe9</p>",
        # attributes: the plain name="value" kind and every way out of it
        '<a href="/x" Class="b" class="c" data-Id="1" x:y="2" \u00e9="3" TITLE="" _u="4">a</a>',
        '<p a="x&amp;y" b="\x00" c = "d" e="f"g="h" i=\'j\' k=l m n="o"/>p</p><br c="1" C="2">',
        '<p q"r="1" s<t="2" u\x00v="3" w="x\ny\r\nz"></p></p class="end">',
        *(
            "<p>" + "a" * (10240 - k) + '<b class="first" id="second">x</b></p>'
            for k in (10, 15, 17, 19, 20, 26, 30, 31)  # a chunk ends inside or after each part of one
        ),
        f'<div id="{_LONG_RUN}">' + '<i title="t">' * 3 + "</div>",
    ],
)
def test_html5lib_tokenizer_fast_paths_build_stock_trees(html: str | bytes) -> None:
    """``_Html5libTokenizer`` (list token queue, cached lowered tag names, a tag name in one run, a plain
    ``name="value"`` attribute in one step) over ``_Html5libStreamMixin`` (the one-slice ``charsUntil``)
    gives stock html5lib's tree and its parse errors in the same order (except the code-point scan's): runs
    crossing chunk ends, CR LF at one, upper-case and duplicate names, end tags with attributes, raw text
    states, bytes with a late ``<meta charset>`` (html5lib parses twice), attributes that are not the plain
    kind (character references, NUL, quotes or ``<`` in names, spaces around ``=``, single quotes, no
    quotes, no value) and a chunk ending inside each part of one."""
    import xml.etree.ElementTree as ET

    import html5lib
    from readwell import parse

    def dump(root: ET.Element) -> list[tuple[object, ...]]:
        return [(str(e.tag), list(e.attrib.items()), e.text, e.tail) for e in root.iter()]

    ours = parse._Html5libParser(tree=html5lib.getTreeBuilder("etree"))
    stock = html5lib.HTMLParser(tree=html5lib.getTreeBuilder("etree"))
    assert dump(ours.parse(html)) == dump(stock.parse(html))
    skip = "invalid-codepoint"  # the stream's scan (off in ours) and the tokenizer's NUL both report it
    assert [e[1] for e in ours.errors if e[1] != skip] == [e[1] for e in stock.errors if e[1] != skip]
    assert type(ours.tokenizer.stream).__mro__[1] is parse._Html5libStreamMixin


def test_html5lib_parse_leaves_no_node_tree_for_the_collector() -> None:
    """After ``_html5lib_parse`` html5lib's own node tree (a Python node per element, linked both ways) is
    freed by reference counting: what a garbage collection still finds is the parser's few objects, not a
    few per element (it was ~5,000 objects on a median page, a collection per extraction). A
    foster-parented table child (placed with ``insertBefore``) may stay for the collector, as before; the
    tree is stock html5lib's."""
    import gc
    import xml.etree.ElementTree as ET

    import html5lib
    from readwell import parse

    html = "<ul>" + "".join(
        f'<li class="i"><a href="/{i}">item <b>{i}</b></a><!-- c --></li>' for i in range(400)
    )
    html += "</ul><table><tr><td>cell</td></tr><p>fostered</p></table>"
    stock = html5lib.HTMLParser(tree=html5lib.getTreeBuilder("etree"), namespaceHTMLElements=False)
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        root = parse._html5lib_parse(html)
        left = gc.collect()
    finally:
        if was:
            gc.enable()
    assert ET.tostring(root) == ET.tostring(stock.parse(html))
    assert len(root.findall(".//li")) == 400
    assert left < 400  # the parser's own objects (~130), not html5lib's ~2,000 nodes and their lists


def test_root_facts_read_once_and_taken_before_the_tree_changes() -> None:
    """``RootFacts`` reads each body source once (remove_by_pattern and the result ask for the same byline);
    taken (``take``), it keeps what it read when the tree changes afterwards, and reads anything else of
    ``again()``, the input decoded anew."""
    from readwell.metadata import RootFacts, complete_metadata

    html = (
        '<body><div id="w"><p class="byline">By Ann Example</p><article id="a"><h1>Head line</h1>'
        "<p>Text.</p></article></div></body>"
    )
    doc = parse_html(html)
    root = next(e for e in doc.body.iter() if e.id == "a")
    head = head_metadata(doc, None)
    facts = RootFacts(doc, root, root.nid)
    assert complete_metadata(head, facts, root, None).byline == "Ann Example"
    assert facts.path() == "article#a"
    taken = RootFacts(doc, root, root.nid)
    again: list[int] = []

    def reread() -> tuple[Document, Element | None]:
        again.append(1)
        fresh = parse_html(html)
        return fresh, next(e for e in fresh.body.iter() if e.id == "a")

    taken.take(head, reread)
    for el in list(doc.body.iter()):  # the tree changes: nothing of it is read again
        if el.tag == "p":
            dom.detach(el)
    assert (taken.byline(), taken.dates(), taken.path()) == ("Ann Example", (None, None), "article#a")
    assert complete_metadata(head, taken, root, None).byline == "Ann Example"
    assert head.title and again == []  # (the head has a title: the root's heading was not taken)
    assert taken.heading() == "Head line" and again == [1]


def test_byline_start_is_the_start_of_byline_text() -> None:
    """``body_byline`` skips a candidate whose first characters cannot start a "By A. Writer" line; that
    check must be the start of ``BYLINE_TEXT`` (same words, same flags), or it would skip real bylines."""
    from readwell.metadata.body import BYLINE_START, BYLINE_START_CHARS
    from readwell.rules import BYLINE_TEXT

    assert BYLINE_TEXT.pattern.startswith(r"^\s*" + BYLINE_START.pattern[:-2] + r"\s+")
    assert BYLINE_START.flags == BYLINE_TEXT.flags
    words = BYLINE_START.pattern[1:-3].split("|")
    assert max(len(w) for w in words) + 1 <= BYLINE_START_CHARS
    for text in ["By Ann Example", "door Jan de Vries", "DI Maria Rossi", "dı Mario", "bY  x y", "Byline x"]:
        norm = " ".join(text.split())
        full = BYLINE_TEXT.match(norm) is not None
        assert not full or BYLINE_START.match(norm[:BYLINE_START_CHARS]), text


def test_byline_line_candidates_hold_every_line_that_starts_like_a_byline() -> None:
    """``body_byline``'s second walk asks only ``_line_candidates``: every block whose normalized text starts
    with a byline word must be among them, in document order (a superset: the walk asks each one again).
    On every fixture and on random trees of short texts split across elements, blanks, scripts and the
    characters ``re.I`` folds specially."""
    import fixturelib
    from readwell.metadata.body import BYLINE_LINE_TAGS, BYLINE_START, BYLINE_START_CHARS, _line_candidates

    def check(html: str) -> int:
        body = parse_html(html).body
        order = {id(e): i for i, e in enumerate(body.iter())}
        cands = _line_candidates(body)
        assert [order[id(e)] for e in cands] == sorted(order[id(e)] for e in cands)  # document order
        got = {id(e) for e in cands}
        want = [
            e
            for e in body.iter(include_self=False)
            if e.tag in BYLINE_LINE_TAGS and BYLINE_START.match(e.text_start(BYLINE_START_CHARS))
        ]
        assert all(id(e) in got for e in want), html[:200]
        return len(want)

    found = sum(check(f.data.decode("utf-8", "replace")) for f in fixturelib.all_fixtures())
    pieces = ["By", "by ", "B", "y", " ", "\n", "\xa0", "Ann"] + [
        "door ",
        "DI",
        "dı ",
        "av\t",
        "par",
        "x",
        "Home ",
        "",
    ]
    tags = ["p", "span", "div", "a", "em", "b", "script", "style", "li"]
    rng = random.Random(7)
    for _ in range(3000):
        html = []
        for _ in range(rng.randint(1, 8)):
            r = rng.random()
            if r < 0.5:
                html.append(rng.choice(pieces))
            elif r < 0.75:
                html.append(f"<{rng.choice(tags)}>")
            else:
                html.append(f"</{rng.choice(tags)}>")
        found += check("<body>" + "".join(html) + "</body>")
    assert found > 100  # the trees do hold byline starts
