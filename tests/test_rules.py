"""Every rule in ``rules.py`` fires on a fixture and has a look-alike fixture where similar content survives.

A rule that never fires is untested (or dead); a rule without a look-alike may be over-broad without anyone
noticing (the field's top defect class). For each rule id: some fixture's debug log names it (kind and id),
and its look-alike phrase is kept in ``fixtures/rules--<table>-lookalike.html`` while that rule fires nowhere
in that fixture. Computed-style rules need layout from the live DOM, which an HTML fixture cannot carry: they
are checked on a snapshot (the extension's input format) instead.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import fixturelib
import pytest
import readwell
from readwell import rules

TABLES: dict[str, tuple[rules.Rule[Any], ...]] = {
    "exact-selector": rules.EXACT_RULES,
    "partial-pattern": rules.PARTIAL_RULES,
    "text-pattern": rules.TEXT_RULES,
    "hidden": rules.HIDDEN_RULES,
    "tiny-media": rules.TINY_RULES,
}
ALL = [(kind, r.id) for kind, table in TABLES.items() for r in table]
LIVE_DOM_ONLY = {"computed:display-none", "computed:visibility-hidden", "computed:opacity-0"}

# rule id → (look-alike fixture without its "rules--" prefix, a phrase that must survive there)
LOOKALIKES: dict[str, tuple[str, str]] = {
    "nav": ("exact-selectors-lookalike", "Unavailable plots are marked on the board"),
    "[role=navigation]": ("exact-selectors-lookalike", "Finding plot seven in the dark"),
    "[role=complementary]": ("exact-selectors-lookalike", "Complementary planting puts marigolds"),
    "[role=dialog]": ("exact-selectors-lookalike", "Is the ground frozen?"),
    "[role=alertdialog]": ("exact-selectors-lookalike", "when the forecast drops below minus three"),
    "[role=banner]": ("exact-selectors-lookalike", "A banner of netting holds the runner beans"),
    "[role=contentinfo]": ("exact-selectors-lookalike", "For information about vacant plots"),
    "form": ("exact-selectors-lookalike", "The form of a good leek is long and white"),
    "button": ("exact-selectors-lookalike", "button on the irrigation timer once"),
    "input": ("exact-selectors-lookalike", "plot number field in the booking form"),
    "select": ("exact-selectors-lookalike", "crop chooser in the booking form"),
    "textarea": ("exact-selectors-lookalike", "notes box in the booking form"),
    "[itemprop=comment]": ("exact-selectors-lookalike", "the hedge is to be cut in February"),
    "footer": ("exact-selectors-lookalike", "At the foot of the site, beside the stream"),
    "[data-ad-slot]": ("exact-selectors-lookalike", "The planting plan slot for next year"),
    "ins.adsbygoogle": ("exact-selectors-lookalike", "revised in March"),
    "share": ("partial-patterns-lookalike", "Shareholders of the cycle cooperative"),
    "newsletter": ("partial-patterns-lookalike", "The club newsletter of 1987"),
    "comments": ("partial-patterns-lookalike", "A comment on method"),
    "related": ("partial-patterns-lookalike", "Related work on chain wear"),
    "ads": ("partial-patterns-lookalike", "The adventure log records every puncture"),
    "promo": ("partial-patterns-lookalike", "The promontory ride follows the cliff road"),
    "cookie-consent": ("partial-patterns-lookalike", "Oat biscuits in the saddlebag"),
    "popup": ("partial-patterns-lookalike", "The overlay map shows every steep hill"),
    "navigation-aid": ("partial-patterns-lookalike", "Pagers and phones both die quickly"),
    "sidebar-widget": ("partial-patterns-lookalike", "The little tyre gauge reviewed here"),
    "page-tools": ("partial-patterns-lookalike", "A small tool kit fits under the saddle"),
    "skip-link": ("partial-patterns-lookalike", "The ferry skipper lets bicycles on first"),
    "ticker": ("partial-patterns-lookalike", "Ticker tape once wrapped the handlebars"),
    "chart-labels": ("partial-patterns-lookalike", "A chart of tyre pressures by month"),
    "author-bio": ("partial-patterns-lookalike", "has ridden the same steel bicycle to work"),
    "tag-list": ("partial-patterns-lookalike", "The tags of the trade are small"),
    "page-header-footer": ("partial-patterns-lookalike", "A footnote on lights"),
    "share-prompt": ("text-patterns-lookalike", "Share the reading tables fairly, the vol"),
    "newsletter-signup": ("text-patterns-lookalike", "Register each donated book in the ledger"),
    "newsletter-inbox": ("text-patterns-lookalike", "Get the heating timer checked before the"),
    "reached-at-line": ("reached-at-line-lookalike", "The ridge can be reached at dawn by the eastern path"),
    "newsletter-ask": (
        "newsletter-ask-lookalike",
        "Sign up for Field Notes, a weekly newsletter I write about small gardens",
    ),
    "news-tip-ask": ("news-tip-and-external-sites-lookalike", "If you have any news tips, the editor said"),
    "external-sites-note": (
        "news-tip-and-external-sites-lookalike",
        "is not responsible for the content of external sites, the court found",
    ),
    "read-more-prompt": ("text-patterns-lookalike", "Popular books go out within a day of arr"),
    "click-here": ("text-patterns-lookalike", "Tap the radiator in the corner gently be"),
    "follow-us": ("text-patterns-lookalike", "Follow us through a year of opening afte"),
    "copyright-line": ("text-patterns-lookalike", "Copyright in the old parish records belo"),
    "all-rights-reserved": ("text-patterns-lookalike", "Readers keep all rights reserved for mem"),
    "advertisement-label": ("text-patterns-lookalike", "Advertisement boards in the porch were t"),
    "related-story-prompt": ("text-patterns-lookalike", "Watch the noticeboard in the porch close"),
    "like-this-story": ("text-patterns-lookalike", "Like this post's author, most volunteers"),
    "post-navigation": ("text-patterns-lookalike", "Previous stories in this newsletter told how"),
    "read-also-prompt": ("text-patterns-lookalike", "The French edition of the village histor"),
    "author-contact": ("text-patterns-lookalike", "Write to the county before the end of Ja"),
    "follow-on-network": ("text-patterns-lookalike", "Follow the lane past the school to reach"),
    "subscribe-to-our": ("text-patterns-lookalike", "Join the queue at the book sale early, b"),
    "citation-disclaimer": ("text-patterns-lookalike", "Disclaimers aside, the volunteers' advic"),
    "copyright-notice": ("text-patterns-lookalike", "This material may not be ideal for young"),
    "reprint-notice": (
        "print-page-notices-lookalike",
        "Note: this copy is for your personal, non-commercial use only, the label in the first book said",
    ),
    "printed-from-line": ("print-page-notices-lookalike", "This article was printed from the typed pages"),
    "comment-prompt": ("text-patterns-lookalike", "Comments from readers after the first ye"),
    "page-tool-label": ("text-patterns-lookalike", "Print the opening times on heavy card, s"),
    "loading-placeholder": ("text-patterns-lookalike", "Loading the van evenly, with the heavy b"),
    "player-status": ("text-patterns-lookalike", "This video is unavailable on the library"),
    "interface-label": ("text-patterns-lookalike", "Next comes the local history shelf, whic"),
    "media-credit": ("text-patterns-lookalike", "Source of most of the donated books is t"),
    "gallery-counter": ("text-patterns-lookalike", "3 of 12 shelves in the back room are kep"),
    "posted-date-line": ("text-patterns-lookalike", "Updated rules for borrowing came into fo"),
    "published-date-line": ("text-patterns-lookalike", "Published in the village magazine, the o"),
    "post-metadata-line": ("text-patterns-lookalike", "This post was posted from the library's o"),
    "comment-feed": ("comment-feed-lookalike", "You can follow this blog through its RSS feed."),
    "trackback-label": ("text-patterns-lookalike", "Trackbacks were the old way for one blog"),
    "tag-line": ("text-patterns-lookalike", "Topics: the volunteers choose three for e"),
    "reading-time": ("text-patterns-lookalike", "Reading time: the volunteers read aloud"),
    "[hidden]": ("hidden-and-tiny-lookalike", "Until-found text is revealed by searching"),
    "[style*=display:none]": ("hidden-and-tiny-lookalike", "the last crossing leaves at dusk in winter"),
    "[style*=visibility:hidden]": ("hidden-and-tiny-lookalike", "life jackets hang under every bench"),
    "[aria-hidden=true]": ("hidden-and-tiny-lookalike", "the ramp is steep at low water"),
    "tracking-pixel": ("hidden-and-tiny-lookalike", "A mooring cleat seen from above"),
    "tracking-pixel-url": ("hidden-and-tiny-lookalike", "The beacon light on the jetty at dusk"),
    "icon": ("hidden-and-tiny-lookalike", "A painting called Icon of the Estuary"),
    "icon-svg-class": ("hidden-and-tiny-lookalike", "The harbour wall at high tide"),
}


@cache
def fired() -> dict[tuple[str, str], set[str]]:
    """(kind, rule id) → fixtures whose debug log has it."""
    out: dict[tuple[str, str], set[str]] = {}
    for fx in fixturelib.all_fixtures():
        r = readwell.extract(fx.data, url=fx.url, **{**fx.options, "debug": True})
        for e in r.removals:
            out.setdefault((e.kind, e.rule), set()).add(fx.name)
    return out


def test_rule_ids_are_unique() -> None:
    ids = [rid for _, rid in ALL]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@pytest.mark.parametrize(("kind", "rid"), [p for p in ALL if p[1] not in LIVE_DOM_ONLY])
def test_rule_fires_on_a_fixture(kind: str, rid: str) -> None:
    assert fired().get((kind, rid)), f"{kind} rule {rid!r} fires on no fixture"


def test_every_rule_has_a_lookalike() -> None:
    assert set(LOOKALIKES) | LIVE_DOM_ONLY == {rid for _, rid in ALL}


@pytest.mark.parametrize(("kind", "rid"), [p for p in ALL if p[1] in LOOKALIKES])
def test_lookalike_survives(kind: str, rid: str) -> None:
    name, phrase = LOOKALIKES[rid]
    fx = fixturelib.load(fixturelib.FIXTURES / f"rules--{name}.html")
    assert phrase in fx.keep, "the look-alike phrase must be a keep phrase of its fixture"
    assert fx.name not in fired().get((kind, rid), set()), f"{rid} fires on its own look-alike fixture"
    assert phrase in readwell.extract(fx.data, url=fx.url, **fx.options).markdown


def _snapshot(layouts: list[dict[str, Any]]) -> dict[str, Any]:
    """A live-DOM snapshot: an article of prose and one note per layout."""
    prose = "The crossing takes eight minutes, and the skipper steers upstream of the landing in an ebb. " * 4
    notes = [
        {"t": "p", "id": 10 + i, "l": lay, "c": [f"Note number {i} about the ferry timetable."]}
        for i, lay in enumerate(layouts)
    ]
    article = {"t": "article", "id": 3, "c": [{"t": "p", "id": 4, "c": [prose]}, *notes]}
    return {"t": "html", "id": 1, "c": [{"t": "body", "id": 2, "c": [article]}]}


@pytest.mark.parametrize(
    ("rid", "hidden", "shown"),
    [
        ("computed:display-none", {"display": "none"}, {"display": "block"}),
        ("computed:visibility-hidden", {"visibility": "hidden"}, {"visibility": "visible"}),
        ("computed:opacity-0", {"opacity": 0}, {"opacity": 0.5}),
    ],
)
def test_computed_style_rules_on_a_snapshot(rid: str, hidden: dict[str, Any], shown: dict[str, Any]) -> None:
    r = readwell.extract(_snapshot([hidden, shown]), debug=True)
    assert [e.rule for e in r.removals if e.kind == "hidden"] == [rid]
    assert "Note number 0" not in r.markdown and "Note number 1 about the ferry timetable." in r.markdown


def test_text_rule_length_bounds_are_exact() -> None:
    """remove_by_pattern skips a text rule for blocks shorter or longer than any text the rule can match: the
    bounds are the pattern's shortest match and the anchored pattern's longest (+1 for the newline ``$``
    allows; none for unanchored ones), and blocks at the bounds still match where the pattern does."""
    import re

    from readwell.stages import remove_by_pattern as rbp

    assert rbp._length_bounds(re.compile(r"^ab{0,3}$")) == (1, 5)
    assert rbp._length_bounds(re.compile(r"^ab+$")) == (2, None)
    assert rbp._length_bounds(re.compile(r"^a|b$")) == (1, None)
    assert rbp._length_bounds(re.compile(r"^a$", re.MULTILINE)) == (1, None)
    longest = "x" * 119 + " all rights reserved."  # 140 characters, the most the rule can take
    rule, least, most, _, _ = next(b for b in rbp._BOUNDED_RULES if b[0].id == "all-rights-reserved")
    assert (least, most) == (19, 141)
    assert rbp.match_boilerplate("all rights reserved") is not None  # the shortest text: searched
    assert rbp.match_boilerplate(longest) is rule
    assert rbp.match_boilerplate(longest + "\n") is rule  # "$" before a final newline: still searched
    assert rbp.match_boilerplate("x" + longest) is None


def test_text_rule_dispatch_and_words_agree_with_the_patterns() -> None:
    """``match_boilerplate`` tries only the rules a block's start allows (``pattern_start``) and skips a rule
    of TEXT_RULE_WORDS on blocks without its words: on random blocks made of an opening of
    every rule (in mixed case), the words, prose and the characters case-insensitive matching folds
    specially, it answers as searching every rule in order does, and every rule matches some blocks."""
    import random

    from readwell.stages import remove_by_pattern as rbp

    words = [w for ws in rules.TEXT_RULE_WORDS.values() for w in ws]
    openings = [
        "Share this article", "SHARE on Twitter", "Teilen: x", "Sign up for our newsletter",
        "Subscribe to the free daily newsletter.", "Join our mailing list", "Register for updates",
        "To get the newsletter delivered to your inbox", "Read more", "More from Example", "Popular",
        "You may also like", "Click here to subscribe", "Follow us on X", "Copyright 2009 Example News.",
        "(c) 2010 Example", "\u00a9 Example", "All Rights Reserved.", "Example Media. All rights reserved",
        "Advertisement", "Sponsored content", "Ad", "Also on example.org: a story", "Also read: x",
        "Related stories", "Listen", "See more", "Don't miss: x", "Watch", "Like this story? Share it",
        "If you liked this article, please share", "Previous article: x", "Next post \u00bb x",
        "\u00ab x | Main | x", "Leggi anche: x", "\u00c0 lire aussi : x", "Mehr zum Thema",
        "Have a tip? Email us", "Write to the editor", "Reach the reporter at x", "Contact the writers",
        "Follow @example on Twitter", "Follow the team on Instagram", "Subscribe to our podcast",
        "Join the club today", "Citation: x", "Disclaimer: x", "This article may not be republished",
        "Leave a comment", "3 comments", "Comments", "Skip to content", "Back to top", "Print this article",
        "Loading...", "Loading\u2026", "This video is no longer available", "Caption", "Close",
        "Show more", "View the gallery", "Next", "Tags:", "\u201cEnd quote", "\"start quote",
        "Photo: Example Agency", "(Image credit: x)", "Source: x", "Credit: x", "Image 3 of 12", "3/12",
        " 4 of 9", "Photo 1 de 5", "Posted on 3 May 2019", "Updated at 10:45, 2019", "Last updated 2019",
        "This entry was posted in News and tagged x", "Trackbacks (3)", "Trackback URL for this entry:",
        "The URI to TrackBack this entry is:", "Trackbacks are closed",
        "This article was originally published in 2019", "Published 2019", "5 min read",
        "Reading time: 3 minutes", "X can be reached at x@example.org", "Email Jo Doe at jo@example.org",
        "\u017fhare this", "\u017fign up for the newsletter", "all r\u0131ghts reserved",
        "all r\u0130ghts reserved", "trac\u212abacks are closed",
        "Example Reprints: This copy is for your personal, non-commercial use only.",
        "This article was printed from https://example.org/x",
        "When news happens: send photos to x", "If you have any news tips, contact us",
        "Example is not responsible for the content of external sites.",
        "You can follow this conversation by subscribing to the comment feed for this post.",
        "Follow any comments here with the RSS feed for this post.", "Subscribe to: Post Comments (Atom)",
    ]  # fmt: skip
    pieces = [
        *words,
        *(w.upper() for w in words),
        *openings,
        *(o.upper() for o in openings),
        *(o.lower() for o in openings),
        "\u017f", "\u212a", "\u0131", "\u0130", "\u2019", "\u00e9", " ", "\n", ".", ": ", "(",
        ". More text", "the garden opens at nine", "2019",
    ]  # fmt: skip

    def every_rule(text: str) -> object:
        n = len(text)
        if not text or n > rules.MAX_PATTERN_BLOCK:
            return None
        return next((r for r in rules.TEXT_RULES if r.match.search(text)), None)

    rng = random.Random(11)
    seen: set[str] = set()
    for _ in range(60_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
        expected = every_rule(text)
        assert rbp.match_boilerplate(text) is expected, text
        if expected is not None:
            seen.add(expected.id)
    assert seen == {r.id for r in rules.TEXT_RULES}


def test_legal_notice_agrees_with_its_pattern() -> None:
    """``rules.legal_notice`` skips the pattern for ASCII texts without any of LEGAL_NOTICE_WORDS: on random
    texts made of the pattern's words (in mixed case), notices, prose and the characters case-insensitive
    matching folds specially, it answers as the pattern does, and the pattern matches often enough that
    agreement is not vacuous."""
    import random

    pieces = [
        *rules.LEGAL_NOTICE_WORDS,
        *(w.upper() for w in rules.LEGAL_NOTICE_WORDS),
        "Copyright 2009 Example News.",
        "COPYRIGHT Example Group",
        "(C) 2010",
        "\u00a9 2011",
        "All Rights Reserved.",
        "is a registered trademark of Example",
        "is a trade mark of",
        "This material may not be published, broadcast, rewritten or redistributed.",
        "Use of this website constitutes acceptance of the terms.",
        "Before using this site",
        "copyr",
        "ight",
        "rights",
        "reserved",
        "mark",
        "\u017f",  # long s: case-insensitive matching takes it for "s"
        "\u212a",  # Kelvin sign: for "k"
        "\u0131",  # dotless i
        "\u0130",
        " ",
        "  ",
        "\n",
        ".",
        "the garden opens at nine",
        "2019",
        "a",
    ]
    rng = random.Random(11)
    matched = 0
    for _ in range(30_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        expected = rules.LEGAL_NOTICE.match(text) is not None
        assert rules.legal_notice(text) == expected, text
        matched += expected
    assert matched > 1_000


def test_lines_from_the_end_are_the_lines_reversed() -> None:
    """remove_closing_notice reads the first lines (``iter_lines``) and the last ones
    (``iter_lines_from_end``) instead of every line of the root: both give ``root_lines``' lines, the same
    node lists, on random trees of blocks, breaks, preformatted and skipped (script) elements, inline
    wrappers and blank texts, and on every fixture's body."""
    import random

    import fixturelib
    from readwell.dom import Element, Text
    from readwell.parse import parse_html
    from readwell.stages import remove_by_pattern as rbp

    def ids(lines: list[list[Text]]) -> list[list[int]]:
        return [[id(t) for t in ln] for ln in lines]

    def check(root: Element) -> None:
        want = ids(rbp.root_lines(root))
        assert ids(list(rbp.iter_lines(root))) == want
        assert ids(list(rbp.iter_lines_from_end(root))[::-1]) == want

    rng = random.Random(11)
    tags = ["p", "div", "span", "br", "pre", "b", "script", "a", "li", "ul", "td", "code"]

    def grow(el: Element, depth: int) -> None:
        for _ in range(rng.randint(0, 4)):
            if depth > 4 or rng.random() < 0.45:
                el.append(Text(rng.choice(["word", " ", "", "\n", "two words", "x"])))
            else:
                child = Element(rng.choice(tags))
                el.append(child)
                grow(child, depth + 1)

    for _ in range(3000):
        root = Element("div")
        grow(root, 0)
        check(root)
    for fx in fixturelib.all_fixtures():
        check(parse_html(fx.data).body)
