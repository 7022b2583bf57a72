"""The learned root model: pure-Python inference, its file, its switch and its notes.

The model's quality is measured by ``python -m readwell.bench.train`` (cross-validated, on the benchmark
sets); here: the ensemble walks trees as exported, the shipped file matches the feature code and stays small,
and ``root_model=False`` gives the rules' root back.
"""

from __future__ import annotations

from pathlib import Path

import fixturelib
import pytest
from readwell import extract, root_model, root_model_data
from readwell.extract import make_options, run_pipeline
from readwell.parse import parse_html

TEASERS = "quality--teaser-summaries-beside-article"


def test_predict_walks_each_tree_to_one_leaf() -> None:
    # node 0 splits on feature 1 at 0.5; leaves 1 (left) and 2 (right)
    tree: root_model.Tree = ((1, -1, -1), (0.5, 0.0, 0.0), (1, -1, -1), (2, -1, -1), (0.0, -0.25, 0.75))
    assert root_model.predict([tree], 0.125, [9.0, 0.5]) == 0.125 - 0.25
    assert root_model.predict([tree, tree], 0.0, [9.0, 0.75]) == 1.5


def test_choose_keeps_the_rules_root_unless_the_gain_clears_the_margin() -> None:
    body = parse_html("<html><body><div><p>" + "Words, more words. " * 20 + "</p></div></body></html>").body
    div = body.element_children[0]
    cands = [root_model.Candidate(div, frozenset(), "rules"), root_model.Candidate(body, frozenset(), "body")]
    facts = root_model.page_facts(body, {}, {}, {}, [], None)
    # one leaf per tree: "is_body" feature → +0.3 gain for the body candidate
    i = root_model.FEATURES.index("is_body")
    tree: root_model.Tree = ((i, -1, -1), (0.5, 0.0, 0.0), (1, -1, -1), (2, -1, -1), (0.0, 0.0, 0.3))
    from readwell.measure import measure

    facts.stats = measure(body)
    assert root_model.choose(cands, facts, [tree], 0.0, 0.2)[0] == 1
    assert root_model.choose(cands, facts, [tree], 0.0, 0.4)[0] == 0


def test_a_choice_that_rests_on_names_keeps_the_rules_root() -> None:
    """Templates we never saw carry names our lists do not know: the model overrules the rules only when it
    makes the same choice with the name features read as 0 (no known name)."""
    body = parse_html("<html><body><div><p>" + "Words, more words. " * 20 + "</p></div></body></html>").body
    div = body.element_children[0]
    cands = [root_model.Candidate(div, frozenset(), "rules"), root_model.Candidate(body, frozenset(), "body")]
    facts = root_model.page_facts(body, {}, {}, {}, [], None)
    from readwell.measure import measure

    facts.stats = measure(body)
    body_at = root_model.FEATURES.index("is_body")
    names_at = root_model.FEATURES.index("class_weight")

    def gain_if(feature: int, threshold: float) -> root_model.Tree:
        return ((feature, -1, -1), (threshold, 0.0, 0.0), (1, -1, -1), (2, -1, -1), (0.0, 0.0, 0.3))

    # the body candidate wins on a name-free measure: chosen
    assert root_model.choose(cands, facts, [gain_if(body_at, 0.5)], 0.0, 0.2)[0] == 1
    # a gain for a name weight above -12.5 (any candidate, named or not, with weight 0): the same either way
    both = [gain_if(body_at, 0.5), gain_if(names_at, -12.5)]
    assert root_model.choose(cands, facts, both, 0.0, 0.2)[0] == 1
    # the gain only for a named candidate (weight above 12.5; the body here has none): blind, it is not there
    x = [0.0] * len(root_model.FEATURES)
    x[names_at] = 25.0
    assert root_model.without_names(x) == [0.0] * len(root_model.FEATURES)
    assert root_model.decide([0.0, 0.3], lambda: [0.0, 0.0], 0.2) == 0
    assert root_model.decide([0.0, 0.3], lambda: [0.0, 0.3], 0.2) == 1
    # another best without names: the rules' root stays
    assert root_model.decide([0.0, 0.3, 0.25], lambda: [0.0, 0.25, 0.3], 0.2) == 0

    # no candidate clears the margin: the blind gains are not even computed
    def never() -> list[float]:
        raise AssertionError("gains without names computed")

    assert root_model.decide([0.0, 0.1], never, 0.2) == 0


def test_candidates_offer_the_kinds_asked_and_name_a_shared_root_by_both() -> None:
    html = "<html><body><section><div><p>" + "Words, more words. " * 20 + "</p></div></section></body></html>"
    body = parse_html(html).body
    section = body.element_children[0]
    div = section.element_children[0]
    every = root_model.candidates(body, [section], div, set(), root_model.ALL_KINDS)
    # scoring's best element is also the root's parent: one candidate, named by both kinds
    assert [(c.kind, c.top) for c in every] == [("rules", div), ("up 1 = best", section), ("body", body)]
    shipped = root_model.candidates(body, [section], div, set())
    assert [(c.kind, c.top) for c in shipped] == [("rules", div), ("best", section)]
    # training keeps, from the candidates of every kind, exactly those the offered kinds make
    kept = [c.top for c in every[1:] if root_model.offered(c.kind, root_model.OFFERED)]
    assert kept == [c.top for c in shipped[1:]]
    assert not root_model.offered("up 1", root_model.OFFERED)


def test_training_labels_are_keyed_by_the_whole_pipeline(tmp_path: Path) -> None:
    """Cached labels (each candidate's real page score) must not outlive the rules that made them: any
    pipeline or scorer change rekeys them; the feature code alone rekeys only the features."""
    from readwell.bench import train

    files = {
        "root_model.py": "features",
        "root_model_data.py": "trees",
        "stages/rule.py": "a rule",
        "bench/scoring.py": "scorer",
        "bench/run.py": "runner",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    labels, feats = train._code_hashes(tmp_path)
    assert labels != feats

    def after(name: str) -> tuple[str, str]:
        (tmp_path / name).write_text(files[name] + " changed")
        try:
            return train._code_hashes(tmp_path)
        finally:
            (tmp_path / name).write_text(files[name])

    for name in ("stages/rule.py", "bench/scoring.py"):
        new_labels, new_feats = after(name)
        assert new_labels != labels and new_feats != feats, name
    new_labels, new_feats = after("root_model.py")
    assert new_labels == labels and new_feats != feats
    for name in ("root_model_data.py", "bench/run.py"):
        assert after(name) == (labels, feats), name


def test_the_shipped_model_matches_the_feature_code_and_is_small() -> None:
    assert root_model_data.TREES, "the model file holds no trees: run python -m readwell.bench.train --write"
    assert root_model_data.FEATURES == root_model.FEATURES
    n = len(root_model.FEATURES)
    for feat, thr, left, right, value in root_model_data.TREES:
        assert len(feat) == len(thr) == len(left) == len(right) == len(value)
        assert all(-1 <= f < n for f in feat)
    assert Path(root_model_data.__file__).stat().st_size < 1_000_000


def test_the_model_is_noted_and_can_be_switched_off() -> None:
    fx = fixturelib.load(fixturelib.FIXTURES / f"{TEASERS}.html")
    on = run_pipeline(parse_html(fx.data), make_options(fx.url, {}))
    off = run_pipeline(parse_html(fx.data), make_options(fx.url, {"root_model": False}))
    notes = [n for n in on.notes if n.step == "root-model"]
    assert notes and "learned model chose" in notes[0].detail and "predicted F1 gain" in notes[0].detail
    assert not [n for n in off.notes if n.step == "root-model"]
    assert on.root is not None and off.root is not None and on.root.nid != off.root.nid
    # the rules' root keeps the teaser list the model leaves out
    teaser = "judges praised their clear diction"
    assert teaser in extract(fx.data, url=fx.url, root_model=False).text
    assert teaser not in extract(fx.data, url=fx.url).text


def test_inside_counts_are_those_of_a_walk_up_on_every_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    """``features`` counts title headings, markers and comment blocks inside each candidate with remembered
    ancestor sets (``_chain``); on every fixture's candidates the counts equal a walk up from each element."""
    seen = 0
    original = root_model.features

    def checked(c: root_model.Candidate, rules: root_model.Candidate, f: root_model.PageFacts) -> list[float]:
        nonlocal seen
        x = original(c, rules, f)
        for name, part_list, elements in (
            ("title_heading", c.parts(), f.title_headings),
            ("rules_title_heading", rules.parts(), f.title_headings),
            ("markers", c.parts(), f.markers),
            ("rules_markers", rules.parts(), f.markers),
            ("comment_inside", c.parts(), f.commentish),
        ):
            walked = sum(1 for e in elements if any(a in part_list for a in (e, *e.ancestors())))
            assert x[root_model.FEATURES.index(name)] == walked, name
        best = f.best is not None and any(a in c.parts() for a in (f.best, *f.best.ancestors()))
        assert x[root_model.FEATURES.index("holds_best")] == float(best)
        seen += 1
        return x

    monkeypatch.setattr(root_model, "features", checked)
    for fx in fixturelib.all_fixtures():
        extract(fx.data, url=fx.url, **fx.options)
    assert seen > 100


def test_masking_replaces_the_name_tokens_of_a_family_only() -> None:
    """The names-masked probe and the masked training copies stand in for a template with unknown names:
    every class/id token containing the family's word becomes ``x``, other tokens and attributes stay."""
    from readwell.bench import masking

    html = b"""<div class="post-body main" id='entry-1'><p class=postscript data-x="post">t</p></div>"""
    assert masking.mask(html, "post|entry") == (
        b"""<div class="x main" id='x'><p class=x data-x="post">t</p></div>"""
    )
    assert masking.mask(html, "footer") == html
    # a page's family is drawn from the page alone: the same whatever else is collected
    drawn = masking.family_of(0, "set", "page-1")
    assert drawn in masking.FAMILIES and drawn == masking.family_of(0, "set", "page-1")
    assert len({masking.family_of(0, "set", f"page-{i}") for i in range(200)}) == len(masking.FAMILIES)


def test_a_pages_masked_copy_is_in_its_pages_fold() -> None:
    """Cross-validation grouped by page: a model scoring a page never saw any copy of it."""
    from readwell.bench import train

    pages = [("a", f"p{i}", [[float(i)]], [(1.0, 0.0, 0.0)]) for i in range(20)]
    copies = [("a", f"p{i}", [[-float(i)]], [(0.0, 1.0, 0.0)]) for i in range(0, 20, 3)]
    fold = train.folds_of(pages + copies)
    assert fold == train.folds_of(pages)
    assert sorted({*fold.values()}) == list(range(train.FOLDS))


def _pid(_: object) -> int:
    import os

    return os.getpid()


def test_training_jobs_run_outside_the_training_process() -> None:
    """``_page_job`` replaces ``root_model.choose`` and ``OFFERED`` where it runs: with ``--jobs 1`` (or one
    page to redo) it ran in the training process, whose validation then offered every kind of candidate."""
    import os

    from readwell.bench import train

    assert train._map(_pid, [0], 1) != [os.getpid()]
    assert train._map(_pid, [], 2) == []
