"""The CSS subset that ``--selector`` and the exact rules use: each combinator against a small tree.

Why a table: ``select(doc, "article .body")`` is what users type; a combinator that silently matches nothing
turns an explicit root into "no article" with no hint why.
"""

from __future__ import annotations

import pytest
from readwell.errors import InputError
from readwell.parse import parse_html
from readwell.selectors import select

PAGE = (
    '<div id="outer"><p class="lead">a <span class="slot">one</span></p>'
    '<section><p><b><span class="slot">two</span></b></p></section></div>'
    '<aside><span class="slot">three</span></aside>'
)


@pytest.mark.parametrize(
    ("selector", "want"),
    [
        ("span.slot", ["one", "two", "three"]),
        ("p .slot", ["one", "two"]),  # descendant combinator, any depth
        ("p span", ["one", "two"]),
        ("div .slot", ["one", "two"]),
        ("#outer section .slot", ["two"]),
        ("p > span", ["one"]),  # child combinator
        ("div > p .slot", ["one"]),
        ("div>p>span", ["one"]),
        ("  aside   .slot ", ["three"]),
        ("p.lead .slot, aside .slot", ["one", "three"]),
        ("section span:not(.x)", ["two"]),
    ],
)
def test_combinators(selector: str, want: list[str]) -> None:
    root = parse_html(PAGE).root
    assert [e.text() for e in select(root, selector)] == want


@pytest.mark.parametrize("selector", ["", "p >", "p ~ span", "p + span", "::before"])
def test_unsupported_or_empty_selectors_are_refused(selector: str) -> None:
    with pytest.raises(InputError):
        select(parse_html(PAGE).root, selector)
