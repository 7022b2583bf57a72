"""Root selection as steps: scoring, then the named refinements in order, each noted on the context.

Each refinement is checked to be *live*: on a fixture where it moves the candidate, replacing it by "stay"
changes the chosen root. A refinement that moves nothing on any fixture would be untested code.
"""

from __future__ import annotations

import fixturelib
import pytest
from readwell.context import ROOT_BEST, Context
from readwell.extract import make_options, run_pipeline
from readwell.parse import parse_html
from readwell.stages import select_root

# refinement → a fixture where it moves the candidate (and the root would differ without it). split_article
# moves the candidate on broken--misnested-20-levels, but parent_container would reach the same root there:
# it is checked on its own below.
MOVES_ON = {
    "parent_container": "quality--mixed-text-note-inside-article",
    "join_chunks": "quality--article-body-split-into-chunks",
    "sections": "broken--unclosed-tags",
    "lone_child": "core--news-article-basic",
}


def _run(name: str) -> Context:
    fx = fixturelib.load(fixturelib.FIXTURES / f"{name}.html")
    return run_pipeline(parse_html(fx.data), make_options(fx.url, fx.options))


def test_every_refinement_has_a_fixture() -> None:
    assert ("split_article", *MOVES_ON) == select_root.Refinements._fields


def test_split_article_takes_the_common_ancestor_of_strong_candidates() -> None:
    """Three near-equal candidates under one wrapper: the wrapper is the article, not the best third."""
    body = parse_html(
        "<html><body><div id=w>"
        + "".join(f"<div id=c{i}><p>x</p></div>" for i in range(3))
        + "</div><div id=other><p>y</p></div></body></html>"
    ).body
    by_id = {e.id: e for e in body.iter() if e.id}
    scores = {by_id["c0"].nid: 30.0, by_id["c1"].nid: 28.0, by_id["c2"].nid: 25.0, by_id["other"].nid: 29.0}
    sc = select_root.Scoring(scores, {e.nid: e for e in by_id.values()}, {}, {})
    assert select_root._split_article(by_id["c0"], sc) is by_id["w"]
    weak = select_root.Scoring({**scores, by_id["c1"].nid: 5.0, by_id["c2"].nid: 5.0}, sc.elements, {}, {})
    assert select_root._split_article(by_id["c0"], weak) is by_id["c0"]


@pytest.mark.parametrize("step", list(MOVES_ON))
def test_refinement_is_noted_and_live(step: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _run(MOVES_ON[step])
    steps = [n.step for n in ctx.notes if n.stage == "select_root"]
    assert steps[0] == "best-score" and step in steps
    order = [s for s in steps if s != "best-score"]
    assert order == sorted(order, key=select_root.Refinements._fields.index), "noted out of order"
    assert ctx.root is not None
    root = ctx.path_of(ctx.root)

    stay = select_root.REFINEMENTS._replace(**{step: lambda top, sc: top})
    monkeypatch.setattr(select_root, "REFINEMENTS", stay)
    off = _run(MOVES_ON[step])
    assert step not in [n.step for n in off.notes]
    assert off.root is None or off.path_of(off.root) != root, f"{step} moved the candidate but not the root"


def test_selector_pruning_has_its_own_kind() -> None:
    fx = fixturelib.load(fixturelib.FIXTURES / "stage-select_root--explicit-selector.html")
    ctx = run_pipeline(parse_html(fx.data), make_options(fx.url, fx.options))
    kinds = {e.kind for e in ctx.log if e.stage == "select_root"}
    assert kinds == {"selector"}


def test_sections_climb_is_left_for_the_trim() -> None:
    """The sections climb leaves (candidate before it, wrapper) on the context: remove_low_score removes the
    service boxes after the candidate inside the wrapper (``remove_low_score.trim_after_climb``)."""
    ctx = _run("quality--service-boxes-after-sections-climb")
    assert ctx.sections_climb is not None
    cand, wrapper = ctx.sections_climb
    assert cand.get("class") == "body" and wrapper.get("id") == "column" and ctx.root is wrapper
    trimmed = [e for e in ctx.log if e.rule == "after-climbed-candidate"]
    assert [e.stage for e in trimmed] == ["remove_low_score"] * 5


def test_sections_climb_is_dropped_with_another_root() -> None:
    """A retry's root (scoring's best element, inside the wrapper) leaves no climb to trim."""
    fx = fixturelib.load(fixturelib.FIXTURES / "quality--service-boxes-after-sections-climb.html")
    ctx = run_pipeline(parse_html(fx.data), make_options(fx.url, fx.options), root_choice=ROOT_BEST)
    assert ctx.sections_climb is None
    assert not any(e.rule == "after-climbed-candidate" for e in ctx.log)


def test_join_chunks_reads_the_chunk_first() -> None:
    """One class on a template's header, story, side column and footer: the side column of teaser blurbs is
    no chunk of the story (the join took the page's wrapper); with the same template-wide class, a lede box
    and a body of paragraphs are two chunks of one article, joined."""
    side = _run("quality--layout-class-side-column-not-a-chunk")
    assert "join_chunks" not in [n.step for n in side.notes]
    assert side.root is not None and side.root.get("class") == "frame"
    lede = _run("quality--layout-class-chunks-lookalike")
    assert "join_chunks" in [n.step for n in lede.notes]
    assert lede.root is not None and lede.root.get("class") == "shell"
