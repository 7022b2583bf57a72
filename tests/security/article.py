"""The realistic article page a payload is embedded in: site chrome, four long paragraphs, and the payload
between two sentences that must survive."""

from __future__ import annotations

from readwell.render_html import escape_text

from .payloads import Payload

KEEP_LEAD = "The lead-in sentence before the sample stays in the article"
KEEP_TAIL = "The closing sentence after the sample stays in the article too"
PARAGRAPHS = [
    "A small garden pond attracts more wildlife than almost any other feature of the same size. Within a few "
    "weeks of filling, water beetles and pond skaters arrive on their own, and frogs often find a new pond "
    "in the first spring after it is dug, even in a town garden far from other water.",
    "The shape matters more than the size. A gently sloping edge on at least one side lets young frogs, "
    "hedgehogs and birds get in and out safely, while a deeper area in the middle stays cool in summer and "
    "does not freeze solid in winter, which gives the animals somewhere to shelter.",
    "Rainwater is better than tap water for filling and topping up, because it carries fewer nutrients. Tap "
    "water often feeds a bloom of green algae in the first months. Collecting water from a shed roof in a "
    "butt is a simple way to keep the level steady through a dry summer.",
    "Native plants give the best start. A mix of submerged oxygenating plants, floating leaves that shade "
    "part of the surface, and marginal plants around the edge provides food, shelter and places to lay eggs. "
    "Avoid fish if the aim is wildlife, because they eat tadpoles and insect larvae.",
]


def article_page(
    body: str = "", head: str = "", title: str | None = "Notes on Keeping a Small Garden Pond"
) -> str:
    """A realistic page: site chrome, an article of four long paragraphs, ``body`` inside the article between
    two sentences that must survive, and ``head`` inside ``<head>``."""
    p = PARAGRAPHS
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        + (f"<title>{escape_text(title)}</title>\n" if title is not None else "")
        + f"{head}\n</head>\n<body>\n"
        '<header class="site-header"><a href="/">Example Garden Notes</a>\n'
        '<nav><ul><li><a href="/">Home</a></li><li><a href="/ponds/">Ponds</a></li>'
        '<li><a href="/about/">About</a></li></ul></nav></header>\n'
        '<main><article class="post">\n<h1>Notes on Keeping a Small Garden Pond</h1>\n'
        f"<p>{p[0]}</p>\n<p>{p[1]}</p>\n"
        f'<div class="sample"><p>{KEEP_LEAD}, as ordinary prose would.</p>\n{body}\n'
        f"<p>{KEEP_TAIL}, as ordinary prose would.</p></div>\n"
        f"<p>{p[2]}</p>\n<p>{p[3]}</p>\n</article></main>\n"
        "<footer><p>Example Garden Notes is written by volunteers.</p></footer>\n</body>\n</html>\n"
    )


def payload_page(p: Payload) -> str:
    if p.where == "head":
        return article_page(
            head=p.html, title=None if "<title" in p.html else "Notes on Keeping a Small Garden Pond"
        )
    return article_page(body=p.html)


PAGE_URL = "https://example.org/garden/pond-notes"
