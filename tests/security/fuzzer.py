"""Fuzzing: one generator of hostile inputs for the hypothesis test (``test_fuzz.py``) and the benchmark
(``python3 -m build_scripts.fuzz_bench``): tag soup and mutated security fixtures spliced with payload
fragments, and the pathological big inputs (deep nesting, 20 MB pages) at any scale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .article import PAGE_URL, PARAGRAPHS, article_page
from .payloads import PAYLOADS, URL_CONTEXTS, URL_VARIANTS, js

# Short fragments the fuzzer splices into random markup.
FUZZ_FRAGMENTS: list[str] = [p.html for p in PAYLOADS if p.where == "body" and not p.id.startswith("u-")] + [
    ctx.replace("{url}", URL_VARIANTS[v].replace("{js}", js("f")).replace("{id}", "f").replace('"', "&quot;"))
    for ctx in list(URL_CONTEXTS.values())[:8]
    for v in ("plain", "tab-entity", "double-entity", "data-svg")
]

FUZZ_TOKENS: list[str] = [
    "<div>",
    "</div>",
    "<p>",
    "</p>",
    "<span>",
    "</span>",
    "<a href='",
    '<a href="',
    "'>",
    '">',
    '"',
    "'",
    ">",
    "<",
    "</",
    "/>",
    "<!--",
    "-->",
    "--!>",
    "<![CDATA[",
    "]]>",
    "<?",
    "<!DOCTYPE html>",
    "<svg>",
    "</svg>",
    "<math>",
    "</math>",
    "<mtext>",
    "<mglyph>",
    "<foreignObject>",
    "<desc>",
    "<table>",
    "<tr>",
    "<td>",
    "</table>",
    "<noscript>",
    "</noscript>",
    "<template>",
    "</template>",
    "<template shadowrootmode=open>",
    "<slot>",
    "<script>",
    "</script>",
    "<style>",
    "</style>",
    "<textarea>",
    "</textarea>",
    "<select>",
    "<option>",
    "<title>",
    "</title>",
    "<xmp>",
    "<iframe>",
    "</iframe>",
    "<noembed>",
    "<plaintext>",
    "<pre>",
    "</pre>",
    "<code>",
    "</code>",
    "<h1>",
    "<h2>",
    "<ul>",
    "<li>",
    "<ol start=",
    "<blockquote>",
    "<details open>",
    "<summary>",
    "<figure>",
    "<figcaption>",
    "<img src=",
    '<img srcset="',
    "<source srcset=",
    "<picture>",
    "<form>",
    "<frameset>",
    "<frame>",
    "<body>",
    "<html>",
    "<head>",
    "<base href=",
    "<meta http-equiv=refresh ",
    '<blockquote data-callout="',
    '<span data-tex="',
    '<div data-tex="',
    " data-display=block",
    "<sup ",
    ' data-footnote-ref="',
    "<article>",
    "<main>",
    "<nav>",
    "<header>",
    "<footer>",
    "<aside class=related>",
    "&#",
    "&#x",
    "&amp;",
    "&lt;",
    "&gt;",
    "&quot;",
    "&colon;",
    "&Tab;",
    "&NewLine;",
    "&",
    ";",
    "=",
    "`",
    "|",
    "[",
    "](",
    ")",
    "(",
    "*",
    "_",
    "#",
    "$",
    "\\",
    "javascript:",
    "JaVaScRiPt:",
    "vbscript:",
    "data:text/html,",
    "data:image/svg+xml,",
    " onerror=",
    " onclick=",
    " style=",
    " srcdoc=",
    " xlink:href=",
    "alert(1)",
    "\x00",
    "\x01",
    "\x0b",
    "\x1b[2J",
    "\x1f",
    "\x7f",
    "\x85",
    "\x9b",
    "\ud800",
    "\udfff",
    "\ufeff",
    "\ufffe",
    "\u2028",
    "\r",
    "\r\n",
    "\n",
    "\n\n",
    "\t",
    " ",
    "---",
    "```",
    "~~~",
    "<!--$?-->",
    "<!--/$-->",
]


def _fuzz_text(rng: Any, n: int) -> str:
    return " ".join(" ".join(rng.choice(PARAGRAPHS).split()[: rng.randint(1, 60)]) for _ in range(n))


def fuzz_case(rng: Any) -> tuple[str | bytes, str | None]:
    """One fuzz input from ``rng`` (a ``random.Random``): tag soup, or a real page with mutations, with
    payload fragments spliced in; sometimes bytes with invalid UTF-8; with or without a page URL."""
    kind = rng.random()
    if kind < 0.4:
        parts = []
        for _ in range(rng.randint(1, 80)):
            r = rng.random()
            if r < 0.55:
                parts.append(rng.choice(FUZZ_TOKENS))
            elif r < 0.75:
                parts.append(rng.choice(FUZZ_FRAGMENTS))
            elif r < 0.9:
                parts.append(_fuzz_text(rng, 1))
            else:
                parts.append("".join(chr(rng.randint(0, 0x2FFF)) for _ in range(rng.randint(1, 12))))
        page = "".join(parts)
        if rng.random() < 0.5:
            page = article_page(body=page)
    else:
        base = rng.choice(_FUZZ_BASES)
        page = base
        for _ in range(rng.randint(1, 8)):
            op = rng.random()
            i = rng.randint(0, len(page))
            j = min(len(page), i + rng.randint(0, 400))
            if op < 0.45:
                page = page[:i] + rng.choice(FUZZ_FRAGMENTS + FUZZ_TOKENS) + page[i:]
            elif op < 0.65:
                page = page[:i] + page[j:]
            elif op < 0.8:
                page = page[:j] + page[i:j] + page[j:]
            elif op < 0.9:
                page = page[:i] + rng.choice(FUZZ_TOKENS) * rng.randint(2, 200) + page[i:]
            else:
                page = page[:i]
    url = rng.choice([PAGE_URL, None, "https://example.org/", "https://example.org/a/b/c?q=1#f"])
    if rng.random() < 0.3:
        data = page.encode("utf-8", "surrogatepass")
        for _ in range(rng.randint(0, 6)):
            i = rng.randint(0, len(data))
            data = (
                data[:i]
                + rng.choice(
                    [
                        b"\xff",
                        b"\xfe\xff",
                        b"\xc3",
                        b"\xc3\x28",
                        b"\xe2\x82",
                        b"\x80",
                        b"\xed\xa0\x80",
                        b"\x00",
                    ]
                )
                + data[i:]
            )
        return data, url
    return page, url


def _fuzz_bases() -> list[str]:
    """The article page and every ``fixtures/security--*.html`` page (read directly rather than through
    ``fixturelib``, so that the benchmark can import this package from the repository root)."""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    pages = sorted(fixtures.glob("security--*.html"))
    return [article_page()] + [p.read_bytes().decode("utf-8", "replace") for p in pages]


_FUZZ_BASES = _fuzz_bases()


def fuzz_strategy() -> Any:
    """A hypothesis strategy over ``fuzz_case``: hypothesis drives the random choices (so it can shrink)."""
    from hypothesis import strategies as st

    return st.randoms(use_true_random=False).map(fuzz_case)


def _deep(tag: str, n: int) -> str:
    return article_page(
        body=f"<{tag}>" * n + "Deep text at the bottom of the nesting. " * 5 + f"</{tag}>" * (n // 2)
    )


BIG_SIZE = 20 * 1024 * 1024


def _huge_page(scale: float) -> str:
    para = "<p>" + PARAGRAPHS[0] + ' <a href="https://example.org/x">link</a> <b>bold</b></p>\n'
    return article_page(body=para * max(1, int(BIG_SIZE * scale / len(para))))


# (name, make(scale) -> page); scale 1.0 is the size named in the issue
BIG_CASES: list[tuple[str, Any]] = [
    ("deep-div-nesting", lambda s: _deep("div", int(100_000 * s))),
    ("deep-inline-nesting", lambda s: _deep("b", int(100_000 * s))),
    (
        "deep-mixed-nesting",
        lambda s: article_page(body="<div><span><a><em>" * int(25_000 * s) + "Deep text."),
    ),
    ("huge-page", _huge_page),
    (
        "huge-attribute",
        lambda s: article_page(
            body='<p><a href="https://example.org/'
            + "a" * int(BIG_SIZE * s)
            + '" title="'
            + "t" * int(BIG_SIZE * s / 4)
            + '">x</a></p>'
        ),
    ),
    (
        "many-attributes",
        lambda s: article_page(
            body="<p " + " ".join(f'a{i}="{i}"' for i in range(int(20_000 * s))) + ">Many attributes.</p>"
        ),
    ),
    (
        "unclosed-paragraphs",
        lambda s: article_page(body="<p>Words in an unclosed paragraph" * int(100_000 * s)),
    ),
    ("nul-bytes", lambda s: article_page(body="<p>" + "\x00a" * int(BIG_SIZE * s / 2) + "</p>").encode()),
    (
        "invalid-utf8",
        lambda s: (
            article_page(body="<p>caf\u00e9</p>").encode()
            + b"\xff\xfe\xc3\x28\xe2\x82" * int(BIG_SIZE * s / 6)
        ),
    ),
    (
        "corpus-repeated",
        lambda s: article_page(
            body="\n".join(p.html for p in PAYLOADS if p.where == "body") * max(1, int(40 * s))
        ),
    ),
]
