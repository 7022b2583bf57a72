"""The benchmark command: its scorer is score.py's, its output files are score.py's input, and --blame
accounts for every lost gold shingle.

Everything here runs on synthetic text and the repository's own anonymised fixtures, never on benchmark pages.
The reference scorer is imported from ``../shared/benchmarks/score.py`` when it is there (skipped otherwise).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from readwell.bench import __main__ as cli
from readwell.bench import blame, scoring, sets

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
ARTICLE = FIXTURES / "core--news-article-basic.html"
NAV_ONLY = FIXTURES / "readerable--nav-plus-four-words.html"

# Synthetic truth/outputs covering the metric's corners: exact, partial, surplus, empty, missing, 1-3 tokens,
# repeated shingles (multiset counts), non-ASCII word characters and punctuation-only text.
TRUTH = {
    "a": "the quick brown fox jumps over the lazy dog near the river bank",
    "b": "one two three four five six seven eight nine ten eleven twelve",
    "c": "short text",
    "d": "repeat repeat repeat repeat repeat repeat and then something else entirely",
    "e": "Grüße aus Köln, straße 12; ça va très bien merci",
    "f": "a page whose extractor returned nothing at all today",
    "g": "a page missing from the outputs file altogether here",
    "h": "!!! ...",
}
PREDS = {
    "a": "the quick brown fox jumps over the lazy dog near the river bank",
    "b": "menu home one two three four five six seven eight nine subscribe now to our newsletter",
    "c": "short text plus more words here",
    "d": "repeat repeat repeat repeat and then something else",
    "e": "Grüße aus Köln, straße 12; ça va",
    "f": "",
    "h": "some words where the truth has none",
}


def _reference() -> ModuleType:
    bench = sets.benchmarks_dir()
    path = bench / "score.py" if bench is not None else None
    if path is None or not path.is_file():
        pytest.skip("../shared/benchmarks/score.py not present")
    spec = importlib.util.spec_from_file_location("reference_score", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_scorer_is_score_py() -> None:
    ref = _reference()
    ours = scoring.score(TRUTH, PREDS)
    theirs = ref.score(TRUTH, PREDS)
    assert ours == theirs  # every figure, every ± and every page's tp/fp/fn, to the last bit
    for t, p in [("a b c d e", "b c d e f"), ("", "x"), ("x y", ""), ("w w w w w", "w w w")]:
        assert scoring.shingles(t) == ref.shingles(t)
        assert scoring.page_counts(t, p) == ref.page_counts(t, p)
    assert 0 < ours["f1"] < 1 and ours["per_page"]["g"] == (0.0, 0.0, 1.0)


def _make_set(root: Path, pages: dict[str, tuple[Path, str]]) -> Path:
    """A set directory in the benchmarks' layout from fixture pages and made-up gold texts."""
    (root / "html").mkdir(parents=True)
    gt = {}
    for pid, (src, gold) in pages.items():
        shutil.copy(src, root / "html" / f"{pid}.html")
        gt[pid] = {"articleBody": gold, "url": "https://example.org/news/2024/03/river-survey"}
    (root / "ground-truth.json").write_text(json.dumps(gt), encoding="utf-8")
    return root


ARTICLE_GOLD = (
    "A healthy river changes character along its length. Near the source the water is cold, fast and rich in "
    "oxygen. Aquatic insects are some of the most useful indicators of water quality. "
    "Example Valley News is an independent publication run by a small volunteer team."
)


def test_bench_output_scores_the_same_with_score_py(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = _reference()
    d = _make_set(tmp_path / "mini", {"p1": (ARTICLE, ARTICLE_GOLD), "p2": (NAV_ONLY, "a short gold " * 30)})
    out = tmp_path / "out.json"
    assert cli.main(["--data", str(d), "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    outputs = json.loads(out.read_text(encoding="utf-8"))
    assert sorted(outputs) == ["p1", "p2"] and "healthy river" in outputs["p1"] and outputs["p2"] == ""
    # the nav-only page is declined, and its gold has >= 50 words: the issue-10 count sees it
    assert "found: false on 1 pages; 1 of them with gold >= 50 words (p2)" in printed
    proc = subprocess.run(
        [sys.executable, ref.__file__, str(out), "--truth", str(d / "ground-truth.json")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert printed[1] == proc.stdout.splitlines()[0]  # score.py's summary line, character for character


def test_out_writes_one_file_per_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = tmp_path / "benchmarks"
    _make_set(bench / "scrapinghub", {"p1": (ARTICLE, ARTICLE_GOLD)})
    _make_set(bench / "cleanportaleval", {"q1": (ARTICLE, ARTICLE_GOLD)})
    monkeypatch.setenv(sets.ENV, str(bench))
    out = tmp_path / "outs"
    assert cli.main(["--set", "scrapinghub", "--set", "cleanportaleval", "--out", str(out)]) == 0
    assert json.loads((out / "scrapinghub.json").read_text())["p1"].startswith("A healthy river")
    assert list(json.loads((out / "cleanportaleval.json").read_text())) == ["q1"]
    with pytest.raises(SystemExit):
        cli.main(["--set", "nosuchset"])


def test_peers_are_parsed_from_the_readme(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(
        "# B\n\n### alpha (3 pages)\n\n| extractor | F1 | P | R | ms |\n|---|---|---|---|---|\n"
        "| tool one 1.0 | 0.900 | 0.800 | 0.950 | 10 |\n| tool two | 0.700 | 0.600 | 0.900 | 5 |\n\n"
        "Some prose.\n\n### beta (2 pages)\n\n| extractor | F1 | P | R | ms |\n|---|---|---|---|---|\n"
        "| tool one 1.0 | 0.500 | 0.400 | 0.600 | 10 |\n\n## Other section\n| x | 1 | 2 | 3 |\n",
        encoding="utf-8",
    )
    got = sets.peers(tmp_path)
    assert [p.name for p in got["alpha"]] == ["tool one 1.0", "tool two"]
    assert got["beta"] == [sets.Peer("tool one 1.0", 0.5, 0.4, 0.6)]
    assert set(got) == {"alpha", "beta"}


def test_blame_accounts_for_every_lost_shingle(tmp_path: Path) -> None:
    # Gold = headline + byline + the article + the footer's one-line blurb (outside the chosen root).
    gold = "Volunteers Map the Health of a Small River. By A. Writer, 5 March 2024. " + ARTICLE_GOLD
    page = sets.Page("p1", str(ARTICLE), "https://example.org/news/2024/03/river-survey")
    b = blame.blame_page(page, gold, verify=True)
    assert b.found and b.replay_ok
    assert b.lost > 0 and sum(b.gold_lost.values()) == b.lost  # every lost shingle is charged somewhere
    # the footer blurb (13 words) is lost to the root choice; the byline line to its text rule
    assert b.gold_lost.get("select_root:outside-root", 0) >= 10
    assert b.gold_lost.get("remove_by_pattern:byline-or-date-line", 0) >= 3
    # navigation and the sidebar are removed boilerplate, charged to the root choice
    assert b.boiler_removed.get("select_root:outside-root", 0) >= 20
    # what is kept but not gold (the article's other paragraphs) is counted, by container
    assert b.kept_boiler > 0 and sum(b.kept_by_container.values()) == b.kept_boiler
    assert b.kept_by_container.get("p", 0) > 0


def test_blame_tells_a_gold_that_repeats_text_from_text_the_render_dropped() -> None:
    """A caption is kept in the tree and left out of the plain text by design: charged to the renderer's
    caption policy. A gold that holds a kept paragraph twice loses the second copy whatever we do: charged to
    the gold, not the render."""
    fx = FIXTURES / "stage-normalize_structures--figure-caption.html"
    page = sets.Page("cap", str(fx), "https://example.org/studio/wedging")
    caption = "Wedging the clay on a canvas covered bench before a throwing session."
    para = "Centring the clay on the wheel is the first skill every beginner has to learn."
    b = blame.blame_page(page, f"{para} {caption} {para}", verify=True)
    assert b.replay_ok and sum(b.gold_lost.values()) == b.lost
    assert b.gold_lost.get(blame.CAPTION, 0) >= 8  # the caption's shingles
    assert blame.TEXT_CHANGED not in b.gold_lost  # nothing else kept went missing from the text
    assert b.gold_lost.get(blame.GOLD_REPEATS, 0) >= 10  # the second copy of the paragraph


def test_blame_tells_a_gold_junction_from_words_the_page_never_has() -> None:
    """A gold that joins two passages the page keeps apart (here the end of the kiln paragraph straight
    after the first words of the glaze paragraph) has shingles whose words are all on the page: charged to
    ``unmatched:gold-joins-separate-text``; a word the page never has (an alt text, a mojibake) stays
    ``unmatched``."""
    fx = FIXTURES / "stage-normalize_structures--figure-caption.html"
    page = sets.Page("junction", str(fx), "https://example.org/studio/wedging")
    glaze = "Glazes are made from finely ground minerals"
    kiln_end = "dropped close to that of the room before unloading."
    b = blame.blame_page(page, f"{glaze} {kiln_end} Zyxwvut qwertyuiop", verify=True)
    assert b.replay_ok and sum(b.gold_lost.values()) == b.lost
    assert b.gold_lost.get(blame.JUNCTION, 0) == 3  # the three shingles across the joint
    assert b.gold_lost.get(blame.UNMATCHED, 0) == 2  # the two holding the made-up words at the end


def test_blame_charges_a_declined_page_to_the_no_article_verdict() -> None:
    gold = "Welcome to our site. Example Pottery Studio classes and gallery."
    b = blame.blame_page(sets.Page("nav", str(NAV_ONLY), None), gold, verify=True)
    assert not b.found and b.replay_ok
    assert b.lost > 0 and sum(b.gold_lost.values()) == b.lost
    charged = {k for k, v in b.gold_lost.items() if v}
    assert charged & {blame.NO_ARTICLE, blame.NO_ROOT, "select_root:outside-root"}, charged


def test_blame_cli_writes_the_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _make_set(tmp_path / "mini", {"p1": (ARTICLE, ARTICLE_GOLD)})
    js = tmp_path / "blame.json"
    assert cli.main(["--data", str(d), "--blame", "--verify", "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "select_root:outside-root" in out and "replay differs from extract on 0 pages" in out
    data = json.loads(js.read_text(encoding="utf-8"))
    rules = {r["rule"]: r for r in data["rules"]}
    assert rules["select_root:outside-root"]["gold_lost"] > 0
    assert rules["select_root:outside-root"]["worst"][0]["page"] == "mini/p1"
    assert data["sets"]["mini"][0]["id"] == "p1"


def test_blame_replay_renders_what_extract_renders_on_every_fixture() -> None:
    """The blame replay decides "found" and renders the text itself: it must stay extract's twin."""
    diverged = []
    for html in sorted(FIXTURES.glob("*.html")):
        b = blame.blame_page(sets.Page(html.stem, str(html), "https://example.org/page"), "gold", verify=True)
        if not b.replay_ok:
            diverged.append(html.stem)
    assert diverged == []


def test_blame_table_splits_a_disputed_rule_by_set(capsys: pytest.CaptureFixture[str]) -> None:
    """A rule that removes more gold than boilerplate over the corpus but only boilerplate on one set (a
    convention the golds disagree on) is printed with its per-set split, and the JSON carries it."""
    rule = "normalize_output:duplicate-title"
    a = blame.PageBlame("a1", 100, 12, 0, True, 100, True, gold_lost={rule: 12}, boiler_removed={rule: 2})
    b = blame.PageBlame("b1", 100, 0, 0, True, 100, True, gold_lost={}, boiler_removed={rule: 6})
    results = {"human-gold": [a], "reader-gold": [b]}
    row = next(r for r in blame.table(results) if r.label == rule)
    assert (row.gold, row.boiler) == (12, 8)
    assert row.by_set == {"human-gold": [12, 2], "reader-gold": [0, 6]}
    blame.print_report(results, top=5)
    assert "per set (gold/boiler): human-gold 12/2, reader-gold 0/6" in capsys.readouterr().out
    js = blame.to_json(results)["rules"][0]
    assert js["by_set"]["reader-gold"] == {"gold_lost": 0, "boilerplate_removed": 6}
