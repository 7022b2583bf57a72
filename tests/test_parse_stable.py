"""The tree we serialize is the tree an HTML parser builds from our serialization (``sanitize.parse_stable``).

A browser showing ``content_html`` re-parses it: a block inside a ``<p>`` would close the paragraph (an empty
``<p></p>`` after the block), a table cell outside its table would lose its tag, content between a table's
cells would move out before the table. Each fixture's sanitized tree is serialized as ``extract`` does and
re-parsed with html5lib and lexbor (when installed) and the two trees compared (``reparselib``).
"""

from __future__ import annotations

import sys
from typing import Any

import fixturelib
import pytest
import readwell
import readwell.extract
from readwell.context import Context
from readwell.dom import Element
from readwell.options import Options
from readwell.parse import parse_html
from readwell.render_html import serialize
from readwell.sanitize import parse_stable
from reparselib import differences

_extract_module: Any = sys.modules["readwell.extract"]


def _sanitized_trees(fx: fixturelib.Fixture, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, str]]:
    """The re-parse differences of every tree ``extract`` serialized for ``fx``'s content_html."""
    found: list[dict[str, str]] = []

    def checked(el: Element, include_self: bool = True) -> str:
        found.append(differences(el, include_self))
        return serialize(el, include_self=include_self)

    monkeypatch.setattr(_extract_module, "serialize", checked)
    readwell.extract(fx.data, url=fx.url, **fx.options)
    return found


@pytest.mark.parametrize("fx", [pytest.param(f, id=f.name) for f in fixturelib.all_fixtures()])
def test_every_fixture_is_parse_stable(fx: fixturelib.Fixture, monkeypatch: pytest.MonkeyPatch) -> None:
    for diff in _sanitized_trees(fx, monkeypatch):
        assert not diff, f"the re-parse of content_html differs from the tree we serialized: {diff}"


def _sanitized(body: str) -> tuple[Element, Context]:
    doc = parse_html(f"<!DOCTYPE html><html><body><div>{body}</div></body></html>")
    assert doc.body is not None
    root = doc.body.element_children[0]
    return root, Context(doc, Options())


def _set_tag(root: Element, old: str, new: str) -> None:
    """What a stage does to the tree after the parse (a caption span becomes a figcaption, a layout table's
    rows are unwrapped): ``old`` elements renamed to ``new``."""
    for el in root.iter():
        if el.tag == old:
            el.tag = new


@pytest.mark.parametrize(
    ("body", "old", "new", "expect"),
    [
        # a caption span became a figcaption inside the paragraph that held the picture
        (
            "<p>a <span><img src='x.png' width='2' height='2'><em>cap</em></span></p>",
            "em",
            "figcaption",
            "div",
        ),
        # a block (a layout cell made a div) inside a paragraph of a quirks-mode page
        ("<p>a <span>b</span><b>c</b></p>", "b", "div", "div"),
        # a paragraph inside a paragraph
        ("<p>a <span>b</span></p>", "span", "p", "div"),
    ],
)
def test_a_paragraph_holding_a_block_becomes_a_div(body: str, old: str, new: str, expect: str) -> None:
    root, ctx = _sanitized(body)
    _set_tag(root, old, new)
    assert differences(root, include_self=False), "the shape is not one the parser restructures"
    text = root.text()
    parse_stable(ctx, root)
    assert not differences(root, include_self=False)
    assert root.element_children[0].tag == expect
    assert root.text() == text


def test_stray_table_parts_become_divs() -> None:
    root, ctx = _sanitized("<table><tbody><tr><td>one</td><td>two</td></tr></tbody></table>")
    row = next(e for e in root.iter() if e.tag == "tr")
    parse_stable(ctx, row)  # a row chosen as the article root: its cells are serialized without it
    assert [c.tag for c in row.element_children] == ["div", "div"]
    assert not differences(row, include_self=False)


def test_content_between_a_tables_cells_is_removed() -> None:
    root, ctx = _sanitized("<table><tbody><tr><td>cell</td></tr></tbody></table>")
    table = root.element_children[0]
    tbody = table.element_children[0]
    links = ctx.new_element("div")
    links.append(ctx.new_text("links"))
    table.insert(0, links)  # what unwrapping a nested table's rows leaves in it
    assert differences(root, include_self=False)
    parse_stable(ctx, root)
    assert not differences(root, include_self=False)
    assert table.element_children == [tbody] and "links" not in root.text()


def test_a_table_root_keeps_its_tag() -> None:
    doc = parse_html(
        "<!DOCTYPE html><html><body><table><tbody><tr><td>" + "Words of the article. " * 40 + "</td></tr>"
        "</tbody></table></body></html>"
    )
    assert doc.body is not None
    root = doc.body.element_children[0]
    ctx = Context(doc, Options())
    parse_stable(ctx, root)
    assert root.tag == "table"
    assert not differences(root, include_self=True)


def test_a_heading_right_inside_a_heading_becomes_a_span() -> None:
    root, ctx = _sanitized("<h2>Title <em>part</em></h2>")
    _set_tag(root, "em", "h3")
    assert differences(root, include_self=False)
    parse_stable(ctx, root)
    assert [e.tag for e in root.iter(include_self=False)] == ["h2", "span"]
    assert not differences(root, include_self=False)


def test_the_newlines_that_start_a_pre_go() -> None:
    root, ctx = _sanitized("<pre><span>x</span>code</pre>")
    pre = root.element_children[0]
    pre.children[0].children[0].data = "\n\nfirst line"  # type: ignore[union-attr]
    span = pre.children[0]
    assert isinstance(span, Element)
    ctx.unwrap(span, "structure", "test", "a wrapper unwrapped: its text now starts the pre")
    assert differences(root, include_self=False)
    parse_stable(ctx, root)
    assert pre.text() == "first linecode"
    assert not differences(root, include_self=False)


def test_a_link_inside_a_link_becomes_a_span() -> None:
    root, ctx = _sanitized("<p><a href='https://example.org/a'>one <em>two</em></a></p>")
    inner = next(e for e in root.iter() if e.tag == "em")
    inner.tag, inner.attrs = "a", {"href": "https://example.org/b"}
    assert differences(root, include_self=False)
    parse_stable(ctx, root)
    assert inner.tag == "span" and not inner.attrs
    assert not differences(root, include_self=False)


def test_fuzz_pages_are_parse_stable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tag soup and mutated pages (``tests/security/fuzzer``, fixed seed): where the heading, link and
    ``<pre>`` shapes were found."""
    import random

    from security.fuzzer import fuzz_case

    found: list[dict[str, str]] = []

    def checked(el: Element, include_self: bool = True) -> str:
        found.append(differences(el, include_self))
        return serialize(el, include_self=include_self)

    monkeypatch.setattr(_extract_module, "serialize", checked)
    rng = random.Random(2)
    for _ in range(300):
        page, url = fuzz_case(rng)
        readwell.extract(page, url=url)
    assert len(found) > 50
    assert not [d for d in found if d]
