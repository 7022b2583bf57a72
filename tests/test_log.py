"""No removal happens without a log entry.

The pipeline is walked stage by stage (``run_pipeline``'s ``after_stage`` hook) and the working tree is
snapshotted after each stage. Every element under the original ``<body>`` must end up in the output tree (the
chosen root's subtree after ``sanitize_tree``), be an ancestor of the root (the root's container chain), or
have disappeared in a step that logged it: an entry of that step for the element itself, or a remove/replace
entry of that step for one of its ancestors in the tree as it was just before that step. Comparing against the
tree *before the step* (not the original document) keeps moves honest: content moved by one stage and removed
by a later one is blamed on the later one.

Also: every log entry has all fields with a known rule kind, and a disabled stage logs nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import fixturelib
import pytest
import readwell
from readwell import pipeline
from readwell.context import ROOT_RULES, Context
from readwell.dom import Element, css_path, detach
from readwell.extract import (
    RETRY_CHOICES,
    _has_article,
    _may_retry,
    make_options,
    min_article_units,
    run_pipeline,
)
from readwell.parse import parse_html
from readwell.render_markdown import to_text
from readwell.sanitize import sanitize_tree
from readwell.textstats import text_units
from readwell.thresholds import RETRY_MIN_CHARS_FACTOR

FIXTURES = fixturelib.all_fixtures()
KINDS = {
    "exact-selector",
    "partial-pattern",
    "score",
    "selector",
    "hidden",
    "tiny-media",
    "text-pattern",
    "structure",
    "allow-list",
}
ACTIONS = {"remove", "unwrap", "replace"}
FIELDS = ("stage", "action", "kind", "rule", "reason", "text", "node_id", "path", "tag")
STEPS = (*readwell.STAGE_NAMES, "sanitize")


def _parents(root: Element) -> dict[int, int | None]:
    """Element id → parent element id, for the whole working tree."""
    out: dict[int, int | None] = {}
    for el in root.iter():
        out[el.nid] = el.parent.nid if el.parent is not None else None
    return out


def _ancestors(nid: int, parents: dict[int, int | None]) -> list[int]:
    out = []
    cur = parents.get(nid)
    while cur is not None:
        out.append(cur)
        cur = parents.get(cur)
    return out


@dataclass
class Trace:
    ctx: Context
    root: Element | None
    before: dict[str, dict[int, int | None]] = field(default_factory=dict)  # step → tree before it
    after: dict[str, dict[int, int | None]] = field(default_factory=dict)  # step → tree after it
    found: bool = False  # the run has an article, as ``extract`` decides (selector pages aside)
    units: int = 0  # text units of the rendered text


def trace(data: bytes, url: str | None, options: dict[str, Any]) -> tuple[Any, Trace]:
    """The instrumented run ``extract`` makes, including its retries of a declined page with scoring's best
    element and then a prose runner-up (``extract._may_retry``): the trace of the run whose result
    ``extract`` reports."""
    doc = parse_html(data)
    opts = make_options(url, options)
    t = first = _trace_run(doc, opts, ROOT_RULES)
    for choice in RETRY_CHOICES:
        if t.found or not _may_retry(first.ctx, opts, choice):
            continue
        again = _trace_run(doc, opts, choice)
        if again.found and again.units >= RETRY_MIN_CHARS_FACTOR * opts.min_article_chars:
            t = again
    return doc, t


def _trace_run(doc: Any, opts: Any, root_choice: str) -> Trace:
    snaps: list[tuple[str, dict[int, int | None]]] = []

    def after(ctx: Context, stage: str) -> None:
        snaps.append((stage, _parents(ctx.doc.root)))

    ctx = run_pipeline(doc, opts, after_stage=after, root_choice=root_choice)
    t = Trace(ctx, None)
    prev = _parents(doc.root)  # the working copy starts as an exact copy of the original
    for stage, snap in snaps:
        t.before[stage], t.after[stage] = prev, snap
        prev = snap
    root = ctx.root if "select_root" not in opts.disable else ctx.doc.body
    t.root = root
    if root is not None:
        least = min_article_units(ctx, root)
        has_article = _has_article(root, opts, least)
        sanitize_tree(ctx, root)
        t.before["sanitize"], t.after["sanitize"] = prev, _parents(ctx.doc.root)
        t.units = text_units(to_text(root))
        t.found = has_article and t.units >= least
    return t


MODES = {
    "debug": {"debug": True},
    "default": {},
    "no-select_root": {"debug": True, "disable": ["select_root"]},
}


def _cases() -> list[Any]:
    return [pytest.param(fx, mode, id=f"{mode}:{fx.name}") for fx in FIXTURES for mode in MODES]


def unlogged_removals(data: bytes, url: str | None, options: dict[str, Any]) -> list[str] | None:
    """Descriptions of elements that vanished without a log entry; None when there is no article root."""
    doc, t = trace(data, url, options)
    if t.root is None:
        return None
    ctx, root = t.ctx, t.root
    final = {el.nid for el in root.iter()}
    container = {a.nid for a in root.ancestors()}
    logged: dict[str, dict[int, set[str]]] = {}
    for e in ctx.log:
        logged.setdefault(e.stage, {}).setdefault(e.node_id, set()).add(e.action)
    problems = []
    for el in doc.body.iter():
        nid = el.nid
        if nid in final or nid in container:
            continue
        step = next(
            (s for s in STEPS if s in t.before and nid in t.before[s] and nid not in t.after[s]), None
        )
        if step is None:
            problems.append(
                f"{css_path(el)} (id {nid}): not in the output, yet never left the working tree "
                f"(left outside the root without a log entry)"
            )
            continue
        entries = logged.get(step, {})
        if nid in entries:
            continue
        if any(entries.get(a, set()) & {"remove", "replace"} for a in _ancestors(nid, t.before[step])):
            continue
        problems.append(
            f"{css_path(el)} (id {nid}, <{el.tag}>): disappeared in {step} without a log entry "
            f"for it or a removed ancestor"
        )
    return problems


@pytest.mark.parametrize(("fx", "mode"), _cases())
def test_no_removal_without_log_entry(fx: fixturelib.Fixture, mode: str) -> None:
    options = {**fx.options, **MODES[mode]}
    if "disable" in MODES[mode] and "selector" in options:
        pytest.skip("an explicit selector needs select_root")
    problems = unlogged_removals(fx.data, fx.url, options)
    if problems is None:
        assert readwell.extract(fx.data, url=fx.url, **options).found is False
        pytest.skip("no article root: nothing is output")
    assert not problems, f"{len(problems)} unlogged removal(s):\n" + "\n".join(problems[:20])


def test_checker_catches_a_silent_removal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above is not vacuous: a stage that detaches a paragraph without logging is caught."""
    fx = fixturelib.load(fixturelib.FIXTURES / "core--news-article-basic.html")
    assert unlogged_removals(fx.data, fx.url, {"debug": True}) == []

    def silent(ctx: Context) -> None:
        root = ctx.root or ctx.doc.body
        victim = next(e for e in root.iter() if e.tag == "p")
        detach(victim)

    stages = tuple(
        pipeline.Stage(s.name, silent, s.summary) if s.name == "remove_by_pattern" else s
        for s in pipeline.STAGES
    )
    monkeypatch.setattr(pipeline, "STAGES", stages)
    problems = unlogged_removals(fx.data, fx.url, {"debug": True})
    assert problems and all("remove_by_pattern" in p for p in problems), problems
    assert len(problems) >= 1 and "<p>" in problems[0]


@pytest.mark.parametrize("fx", [pytest.param(fx, id=fx.name) for fx in FIXTURES])
def test_traced_log_is_the_public_log(fx: fixturelib.Fixture) -> None:
    """The instrumented run above logs exactly what ``extract(debug=True)`` reports (same pipeline)."""
    options = {**fx.options, "debug": True}
    result = readwell.extract(fx.data, url=fx.url, **options)
    _, t = trace(fx.data, fx.url, options)
    ours = [e.to_dict() for e in t.ctx.log]
    public = [e.to_dict() for e in result.removals]
    if result.found:
        assert public == ours
    else:  # not found: the public run may stop before sanitizing
        assert public == ours[: len(public)]
        assert all(e["stage"] == "sanitize" for e in ours[len(public) :])


@pytest.mark.parametrize("fx", [pytest.param(fx, id=fx.name) for fx in FIXTURES])
def test_log_entries_are_complete(fx: fixturelib.Fixture) -> None:
    result = readwell.extract(fx.data, url=fx.url, debug=True, **fx.options)
    d = result.to_dict()
    json.dumps(d)
    original = parse_html(fx.data).by_id()
    for e in d["removals"]:
        assert tuple(e) == FIELDS, e
        assert e["stage"] in STEPS, e
        assert e["action"] in ACTIONS, e
        assert e["kind"] in KINDS, e
        assert isinstance(e["rule"], str) and e["rule"], e
        assert isinstance(e["reason"], str) and e["reason"], e
        assert isinstance(e["text"], str) and len(e["text"]) <= 80, e
        assert e["text"] == e["text"].lstrip() and "  " not in e["text"] and "\n" not in e["text"], e
        assert isinstance(e["node_id"], int) and not isinstance(e["node_id"], bool), e
        assert isinstance(e["path"], str), e
        assert isinstance(e["tag"], str) and e["tag"], e
        orig = original.get(e["node_id"])
        if orig is not None and e["tag"] != "#text":
            # the path points into the original page (the live element, in the extension)
            assert e["path"] == css_path(orig), e
    stages_logged = [e["stage"] for e in d["removals"]]
    assert stages_logged == sorted(stages_logged, key=STEPS.index), "log is not in pipeline order"
    if result.found:
        assert isinstance(d["timings"], dict)
        assert set(readwell.STAGE_NAMES) <= set(d["timings"])


_baseline: dict[str, readwell.Result] = {}


def baseline(fx: fixturelib.Fixture) -> readwell.Result:
    if fx.name not in _baseline:
        _baseline[fx.name] = readwell.extract(fx.data, url=fx.url, debug=True, **fx.options)
    return _baseline[fx.name]


@pytest.mark.parametrize("stage", readwell.STAGE_NAMES)
def test_disabled_stage_logs_nothing(stage: str) -> None:
    """On every fixture where the stage logs something (and on its own fixtures), disabling it silences it."""
    checked = 0
    for fx in FIXTURES:
        if stage == "select_root" and "selector" in fx.options:
            continue
        if not fx.name.startswith(f"stage-{stage}--") and not any(
            e.stage == stage for e in baseline(fx).removals
        ):
            continue
        options = {**fx.options, "debug": True, "disable": [stage]}
        r = readwell.extract(fx.data, url=fx.url, **options)
        assert not [e for e in r.removals if e.stage == stage], f"{fx.name}: disabled {stage} still logged"
        assert r.timings[stage] == 0
        checked += 1
    assert checked


# Disabling a stage must be visible in the output on at least one of that stage's own fixtures.
SILENT_STAGES: dict[str, str] = {}  # stage -> why disabling it changes nothing on its fixtures


@pytest.mark.parametrize(
    "stage",
    [
        pytest.param(
            s, marks=[pytest.mark.xfail(strict=True, reason=SILENT_STAGES[s])] if s in SILENT_STAGES else []
        )
        for s in readwell.STAGE_NAMES
    ],
)
def test_disabling_stage_is_visible(stage: str) -> None:
    own = fixturelib.all_fixtures(f"stage-{stage}")
    assert own, f"no fixtures for {stage}"
    changed = []
    for fx in own:
        if stage == "select_root" and "selector" in fx.options:
            continue
        base = baseline(fx)
        off = readwell.extract(fx.data, url=fx.url, debug=True, **{**fx.options, "disable": [stage]})
        if (base.markdown, base.content_html) != (off.markdown, off.content_html):
            changed.append(fx.name)
    assert changed, f"disabling {stage} changes nothing on any of its fixtures"


@pytest.mark.parametrize("fx", [pytest.param(fx, id=fx.name) for fx in FIXTURES[:40]])
def test_copy_index_is_by_id(fx: fixturelib.Fixture) -> None:
    """Log paths find original elements through the index ``Document.copy`` fills while copying: it must be
    ``by_id()`` of the original, element for element; the element lists it fills are the trees' walks."""
    doc = parse_html(fx.data)
    index: dict[int, Element] = {}
    order: list[Element] = []
    source_order: list[Element] = []
    copy = doc.copy(index, order, source_order)
    want = doc.by_id()
    assert list(index) != [] and index.keys() == want.keys()
    assert all(index[k] is want[k] for k in want)
    # and both element lists are the two trees in document order (they stand in for walks)
    assert [id(e) for e in source_order] == [id(e) for e in doc.root.iter()]
    assert [id(e) for e in order] == [id(e) for e in copy.root.iter()]


def test_copy_index_with_repeated_ids_keeps_document_order() -> None:
    """A snapshot element without an id gets 0, as ``#document`` does: the index then falls back to
    ``by_id()``'s answer (the last element in document order wins)."""
    kids = [{"t": "section", "c": [{"t": "span", "c": ["a"]}]}, {"t": "div"}]  # the copy visits span last
    snap = {"t": "html", "id": 1, "c": [{"t": "body", "id": 2, "c": kids}]}
    doc = readwell.adapters.from_snapshot(snap)
    index: dict[int, Element] = {}
    doc.copy(index)
    want = doc.by_id()
    assert want[0].tag == "div"
    assert index.keys() == want.keys() and all(index[k] is want[k] for k in want)


@pytest.mark.parametrize("fx", [pytest.param(fx, id=fx.name) for fx in FIXTURES[:60]])
def test_remembered_css_paths_equal_fresh_ones(fx: fixturelib.Fixture) -> None:
    """The removal log remembers each original element's CSS path and builds a path from its parent's: asked
    for every element in shuffled order (descendants before and after their ancestors), each path equals a
    fresh ``css_path``."""
    import random

    doc = parse_html(fx.data)
    elements = list(doc.root.iter())
    random.Random(fx.name).shuffle(elements)
    cache: dict[int, dict[int, tuple[int, int]]] = {}
    paths: dict[int, str] = {}
    for el in elements:
        assert css_path(el, cache, paths) == css_path(el), el
    detached = Element("div")
    p = Element("p")
    detached.append(p)
    assert css_path(p, {}, {}) == css_path(p) == "div > p"
