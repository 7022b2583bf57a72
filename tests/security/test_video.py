"""Hostile video players: the player's ``src`` and ``title`` become a link and its text in every output
(``<p data-embed="video"><a href>TITLE</a></p>``), so both are page-controlled strings that must pass the same
URL and escaping checks as any other link (``security.checks.check_all`` re-parses the HTML, renders the
Markdown with CommonMark and checks the text)."""

from __future__ import annotations

import pytest
import readwell
from readwell.video import MAX_TITLE, watch_url

from security import article, checks

HOSTILE_SRC = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "&#106;avascript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "vbscript:msgbox(1)",
    "https://exam[ple.org/player/1",
    "https://video.example.org/" + "a" * 5000,
]


def _page(iframe: str) -> str:
    return article.article_page(body=iframe)


@pytest.mark.parametrize("src", HOSTILE_SRC, ids=range(len(HOSTILE_SRC)))
def test_hostile_player_src_gives_no_link(src: str) -> None:
    page = _page(f'<iframe src="{src}" width="560" height="315" title="A clip of the pond"></iframe>')
    result = checks.check_all(page)
    assert article.KEEP_LEAD in result.text and article.KEEP_TAIL in result.text
    assert "data-embed" not in result.content_html
    assert "A clip of the pond" not in result.markdown
    for out in (result.content_html.lower(), result.markdown.lower()):
        assert "javascript" not in out and "vbscript" not in out and "data:text" not in out


@pytest.mark.parametrize(
    "title",
    [
        '"><script>alert(1)</script>',
        "x](javascript:alert(1)) [y",
        "<img src=x onerror=alert(1)>",
        "a\u0000b\u001b[31mc",
        "*bold* _it_ `code` <b>tag</b> [link](https://example.com)",
    ],
    ids=range(5),
)
def test_hostile_player_title_is_text(title: str) -> None:
    from readwell.render_html import escape_attr

    page = _page(
        f'<iframe src="https://www.youtube.com/embed/abcDEF12345" title="{escape_attr(title)}"></iframe>'
    )
    result = checks.check_all(page)
    assert (
        '<p data-embed="video"><a href="https://www.youtube.com/watch?v=abcDEF12345">' in result.content_html
    )
    assert "<script" not in result.content_html and "<img" not in result.content_html
    # CommonMark sees one link out of the title line, to the watch page: the title cannot open another
    from markdown_it import MarkdownIt

    line = next(ln for ln in result.markdown.splitlines() if ln.startswith("[▶ "))
    tokens = MarkdownIt("commonmark").parseInline(line)[0].children
    hrefs = [t.attrGet("href") for t in tokens if t.type == "link_open"]
    assert hrefs == ["https://www.youtube.com/watch?v=abcDEF12345"]


def test_very_long_title_is_cut() -> None:
    page = _page(f'<iframe src="https://player.vimeo.com/video/123456" title="{"word " * 20000}"></iframe>')
    result = checks.check_all(page)
    link = next(ln for ln in result.markdown.splitlines() if ln.startswith("[▶ "))
    assert link.endswith("](https://vimeo.com/123456)")
    assert len(link) < MAX_TITLE + 60


def test_page_written_data_embed_is_dropped() -> None:
    """Only our own paragraphs carry ``data-embed``: a page cannot dress a link as a video card."""
    page = _page('<p data-embed="video"><a href="https://example.org/x">Looks like a video</a></p>')
    result = checks.check_all(page)
    assert "Looks like a video" in result.content_html
    assert "data-embed" not in result.content_html


@pytest.mark.parametrize(
    "src, expected",
    [
        (
            "https://www.youtube.com/embed/abcDEF12345?autoplay=1",
            ("https://www.youtube.com/watch?v=abcDEF12345", True),
        ),
        (
            "//www.youtube-nocookie.com/embed/abcDEF12345",
            ("https://www.youtube.com/watch?v=abcDEF12345", True),
        ),
        (
            "http://www.youtube.com/v/abcDEF12345&hl=en&fs=1",
            ("https://www.youtube.com/watch?v=abcDEF12345", True),
        ),
        ("https://player.vimeo.com/video/76979871?h=8272103f6e", ("https://vimeo.com/76979871", True)),
        (
            "https://geo.dailymotion.com/player.html?video=x8abc12",
            ("https://www.dailymotion.com/video/x8abc12", True),
        ),
        (
            "https://player.twitch.tv/?video=v123456&parent=example.org",
            ("https://www.twitch.tv/videos/123456", True),
        ),
        # an id with a quote is not an id: the player URL itself (re-encoded, no autoplay)
        (
            "https://geo.dailymotion.com/player.html?video=x8%22onload&autoplay=1",
            ("https://geo.dailymotion.com/player.html?video=x8%22onload", False),
        ),
        (
            "https://cdn.example.net/player/9?autoplay=1&mute=1&t=30",
            ("https://cdn.example.net/player/9?t=30", False),
        ),
        ("https://maps.example.com/embed?pb=1", None),
        ("ftp://video.example.org/clip", None),
    ],
)
def test_watch_url_table(src: str, expected: tuple[str, bool] | None) -> None:
    assert watch_url(src, "https://example.org/post") == expected


def test_video_link_survives_the_sanitizer_and_bleach() -> None:
    page = _page(
        '<figure><iframe src="https://www.youtube.com/embed/abcDEF12345" title="YouTube video player">'
        "</iframe><figcaption>Frogs in the pond at dusk</figcaption></figure>"
    )
    result = readwell.extract(page, url=article.PAGE_URL)
    assert (
        '<p data-embed="video"><a href="https://www.youtube.com/watch?v=abcDEF12345">Frogs in the pond'
        in result.content_html
    )
    assert "[▶ Frogs in the pond at dusk](https://www.youtube.com/watch?v=abcDEF12345)" in result.markdown
    assert "Frogs in the pond" not in result.text


# --- MathML without TeX: Markdown gets TeX built from the MathML (mathml_tex); token text is page data ---
@pytest.mark.parametrize(
    "token",
    [
        "[x](javascript:alert(1))",
        "<img src=x onerror=alert(1)>",
        "$$ \n\n# heading",
        "}\\end{matrix}\\href{x}",
    ],
    ids=range(4),
)
def test_mathml_token_text_cannot_leave_the_formula(token: str) -> None:
    from readwell.render_html import escape_text

    page = _page(
        f"<p>The sum is <math><mi>a</mi><mo>+</mo><mtext>{escape_text(token)}</mtext><msup><mi>b</mi>"
        "<mn>2</mn></msup></math> in words.</p>"
    )
    result = checks.check_all(page)
    line = next(ln for ln in result.markdown.splitlines() if ln.startswith("The sum is"))
    assert line.startswith("The sum is $a+\\text{") and line.endswith("b^{2}$ in words.")
    assert "\\href" not in line.replace("\\backslash href", "")
