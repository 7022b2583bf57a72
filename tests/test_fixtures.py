"""Every fixture in ``fixtures/*.html``: keep/drop phrases, expected fields, golden JSON and Markdown, and the
CLI's JSON and Markdown outputs on the same fixtures (in-process, through ``readwell.cli.main``).

Golden files are regenerated with ``python tests/update_fixtures.py`` (review the diff before committing).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import fixturelib
import pytest
import readwell
import readwell.cli
from readwell.dom import Element, Text
from readwell.parse import parse_html

FIXTURES = fixturelib.all_fixtures()
REGEN = "run `python tests/update_fixtures.py` to (re)generate golden files, then review `git diff fixtures/`"

# Fixtures whose keep/drop/expect assertions currently fail: genuine extractor bugs, reported to the lead.
# strict=True: when the extractor is fixed the XPASS fails the run, so the entry must be removed here.
KNOWN_BAD: dict[str, str] = {}  # currently none; format: name -> reason


def _params(fixtures: list[fixturelib.Fixture], known: dict[str, str] | None = None) -> list[Any]:
    out = []
    for fx in fixtures:
        marks = []
        if known and fx.name in known:
            marks.append(pytest.mark.xfail(strict=True, reason=known[fx.name]))
        out.append(pytest.param(fx, id=fx.name, marks=marks))
    return out


_results: dict[str, readwell.Result] = {}


def result_of(fx: fixturelib.Fixture) -> readwell.Result:
    """One extraction per fixture per session (the library output is the reference for every check)."""
    if fx.name not in _results:
        _results[fx.name] = readwell.extract(fx.data, url=fx.url, **fx.options)
    return _results[fx.name]


def _golden(path: Path) -> str:
    if not path.exists():
        pytest.fail(f"golden file {path.relative_to(fixturelib.ROOT)} is missing: {REGEN}")
    return path.read_text(encoding="utf-8")


def _jsonable(d: dict[str, Any]) -> Any:
    return json.loads(json.dumps(d, ensure_ascii=False))


def test_fixture_set_is_not_empty() -> None:
    assert len(FIXTURES) >= 40
    names = {fx.name.split("--")[0] for fx in FIXTURES}
    for stage in readwell.STAGE_NAMES:
        assert f"stage-{stage}" in names, f"no fixture for stage {stage}"


@pytest.mark.parametrize("fx", _params(FIXTURES, KNOWN_BAD))
def test_keep_drop_expect(fx: fixturelib.Fixture) -> None:
    r = result_of(fx)
    # keep/drop are checked on the Markdown (the complete article, captions included); the plain text
    # leaves figure captions out, which fixtures state with "text_absent".
    problems = [f"keep phrase missing: {p!r}" for p in fx.keep if p not in r.markdown]
    problems += [f"drop phrase present: {p!r}" for p in fx.drop if p in r.markdown or p in r.text]
    problems += [f"phrase should not be in text: {p!r}" for p in fx.text_absent if p in r.text]
    for key, want in fx.expect.items():
        got = r.readerable.value if key == "readerable" else getattr(r, key)
        if got != want:
            problems.append(f"{key}: got {got!r}, expected {want!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("fx", _params(FIXTURES))
def test_golden_json(fx: fixturelib.Fixture) -> None:
    want = json.loads(_golden(fx.json_path))
    got = _jsonable(fixturelib.stable(result_of(fx).to_dict()))
    if got != want:
        diff = {
            k: (want.get(k), got.get(k)) for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)
        }
        short = {k: tuple(str(v)[:200] for v in pair) for k, pair in diff.items()}
        pytest.fail(
            f"output differs from {fx.json_path.name} in {sorted(diff)} (golden, now): {short}\n{REGEN}"
        )


@pytest.mark.parametrize("fx", _params(FIXTURES))
def test_golden_markdown(fx: fixturelib.Fixture) -> None:
    want = _golden(fx.md_path)
    assert result_of(fx).markdown == want, f"markdown differs from {fx.md_path.name}: {REGEN}"


# What plain text leaves out of what HTML shows, by design: captions and video players are media, math is
# carried as its TeX; scripts and styles are never shown. Inline tags do not separate words.
_NOT_PROSE = frozenset({"figcaption", "math", "script", "style"})
_INLINE = frozenset(
    "a abbr b bdi bdo big cite code data del dfn em font i ins kbd mark q s samp small span strike strong "
    "sub sup time tt u var".split()
)
_WORD = re.compile(r"\w+")


def _shown_words(html: str) -> Counter[str]:
    """The words a browser shows for ``content_html``, minus what plain text leaves out by design."""
    parts: list[str] = []

    def walk(n: Element | Text) -> None:
        if isinstance(n, Text):
            parts.append(n.data)
            return
        if n.tag in _NOT_PROSE or n.get("data-embed") == "video" or n.get("data-tex"):
            return
        gap = [] if n.tag in _INLINE else [" "]
        parts.extend(gap)
        for c in n.children:
            if isinstance(c, Element | Text):
                walk(c)
        parts.extend(gap)

    walk(parse_html(f"<html><body>{html}</body></html>").body)
    return Counter(_WORD.findall("".join(parts)))


@pytest.mark.parametrize("fx", _params(FIXTURES))
def test_text_has_every_word_the_html_shows(fx: fixturelib.Fixture) -> None:
    """The three formats agree: a word HTML shows is in the plain text (text once lacked a list's bare text
    and footnote markers)."""
    r = result_of(fx)
    missing = _shown_words(r.content_html) - Counter(_WORD.findall(r.text))
    assert not missing, f"words in content_html but not in text: {dict(missing.most_common(12))}"


@pytest.mark.parametrize("fx", _params(FIXTURES))
def test_no_caption_inside_a_caption(fx: fixturelib.Fixture) -> None:
    """content_html never nests a figcaption in a figcaption (invalid HTML; readers style it twice): a
    "caption" box around a picture and its own caption (WordPress's div.wp-caption) once became a figcaption
    holding the image and the inner caption, and a caption's styled part (span.caption-text) became one."""
    body = parse_html(f"<html><body>{result_of(fx).content_html or ''}</body></html>").body
    caps = [e for e in body.iter() if isinstance(e, Element) and e.tag == "figcaption"]
    nested = [c for c in caps if any(isinstance(a, Element) and a.tag == "figcaption" for a in c.ancestors())]
    assert not nested, f"{len(nested)} figcaption(s) inside another"


def cli_flags(options: dict[str, Any]) -> list[str]:
    """Library options as CLI flags (the CLI's option surface)."""
    flags: list[str] = []
    for key, value in options.items():
        if key == "selector":
            flags += ["--selector", value]
        elif key == "disable":
            for stage in [value] if isinstance(value, str) else value:
                flags += ["--disable", stage]
        elif key in ("debug", "front_matter"):
            if value:
                flags.append("--" + key.replace("_", "-"))
        else:
            pytest.skip(f"option {key!r} has no CLI flag")
    return flags


def run_cli(capsys: pytest.CaptureFixture[str], fx: fixturelib.Fixture, fmt: str) -> tuple[int, str]:
    argv = ["extract", str(fx.path), "--format", fmt]
    if fx.url:
        argv += ["--url", fx.url]
    argv += cli_flags(fx.options)
    capsys.readouterr()
    code = readwell.cli.main(argv)
    out, err = capsys.readouterr()
    assert err == "", f"unexpected stderr: {err!r}"
    return code, out


@pytest.mark.parametrize("fx", _params(FIXTURES))
def test_cli_json(fx: fixturelib.Fixture, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_cli(capsys, fx, "json")
    r = result_of(fx)
    assert code == (0 if r.found else 3)
    got = json.loads(out)
    assert fixturelib.stable(got) == _jsonable(fixturelib.stable(r.to_dict()))
    assert "removals" not in got and "timings" not in got


@pytest.mark.parametrize("fx", _params(FIXTURES))
def test_cli_markdown(fx: fixturelib.Fixture, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_cli(capsys, fx, "markdown")
    want = _golden(fx.md_path)
    assert code == (0 if result_of(fx).found else 3)
    # the CLI ends non-empty output with exactly one newline
    assert out == (want if (want.endswith("\n") or not want) else want + "\n")


# --- targeted output checks (known extractor bugs are xfail strict: remove the mark when fixed) -------------


def fixture_result(name: str) -> readwell.Result:
    return result_of(fixturelib.load(fixturelib.FIXTURES / f"{name}.html"))


PROSE_1 = "First paragraph about clay and kilns, long enough to count as prose in any reasonable extractor."
PROSE_2 = "Second paragraph about glazes and firing, also long enough to be counted as real article text."


def test_footnotes_render_as_gfm_definitions() -> None:
    md = fixture_result("stage-normalize_structures--footnotes").markdown
    assert "[^1]" in md
    assert "[^1]: Counts were made with a standard kick net" in md


def test_backlinks_of_a_note_cited_twice_are_not_references() -> None:
    """Wikipedia's "Jump up to: a b" links lead from a note back to its two markers in the text: they are
    the note's text (as Readability keeps it), not references labelled "Jumpuptoa" and "b" (were)."""
    r = fixture_result("stage-normalize_structures--footnote-cited-twice-backlinks")
    assert "^ Jump up to: a b A regional style manual" in r.text
    assert r.markdown.count("[^1]") == 3 and "[^1]: ^ [Jump up to:" in r.markdown  # two markers, one note
    assert "[^2]: A county survey" in r.markdown
    # look-alike: a note cited twice keeps both markers, and a note's link to another note is a reference
    md = fixture_result("stage-normalize_structures--footnote-cited-twice-backlinks-lookalike").markdown
    assert md.count("[^1]") == 4 and "as in the survey of note [^1]." in md


def test_nested_table_rows_read_once() -> None:
    """A data table whose cells hold tables: the inner rows are their cell's content, read once (they were
    read again as rows of the outer table, and the inner GFM table's pipes split the outer row)."""
    r = fixture_result("quality--data-table-with-nested-tables")
    for key in ("markdown", "text"):
        assert getattr(r, key).count("Gauge B") == 1, key
    assert "| --- | --- |\n| North pier Gauge A" in r.markdown and r.markdown.count("---") == 2  # one table
    # look-alike: two tables one after the other keep every row as a row of its own table
    md = fixture_result("quality--data-table-with-nested-tables-lookalike").markdown
    assert "| North pier | 4.2 m |\n| South pier | 3.9 m |" in md and "| Gauge C | South pier |" in md


def test_docusaurus_callout_title_not_repeated() -> None:
    md = fixture_result("stage-callouts--docusaurus-admonition").markdown
    assert "> [!WARNING]" in md and "> [!TIP]" in md
    lines = [ln.strip().lower() for ln in md.splitlines()]
    assert "> warning" not in lines and "> tip" not in lines


def test_code_gutter_lines_not_doubled() -> None:
    r = fixture_result("stage-normalize_structures--code-gutter-table")
    want = "function addHandlingFee(total, fee) {\n  // return total plus one for the handling fee\n"
    for key in ("content_html", "markdown", "text"):
        assert want in getattr(r, key), key


def test_code_block_with_one_blank_line_kept() -> None:
    code = "def a():\n    return 1\n\ndef b():\n    return 2"
    r = readwell.extract(
        f'<div id=c><p>{PROSE_1}</p><pre><code class="language-python">{code}</code></pre></div>',
        selector="#c",
    )
    assert f"```python\n{code}\n```" in r.markdown
    assert code in r.content_html and code in r.text


def test_code_block_kept_verbatim() -> None:
    code = "def a():\n    return 1\n\n\ndef b():\n    return 2"
    r = readwell.extract(
        f'<div id=c><p>{PROSE_1}</p><pre><code class="language-python">{code}</code></pre></div>',
        selector="#c",
    )
    for key in ("content_html", "markdown", "text"):
        assert code in getattr(r, key), key


def test_inline_wrapper_around_paragraphs_keeps_breaks() -> None:
    r = readwell.extract(f"<div id=c><b><p>{PROSE_1}</p><p>{PROSE_2}</p></b></div>", selector="#c")
    assert "extractor.Second" not in r.text
    assert f"{PROSE_1}\n\n{PROSE_2}" in r.text
    assert "\n\n" in r.markdown.strip()


MARKDOWN_KNOWN_BAD: dict[str, str] = {}  # fixture name -> reason its Markdown is known to be malformed


@pytest.mark.parametrize("fx", _params(FIXTURES, MARKDOWN_KNOWN_BAD))
def test_markdown_is_well_formed(fx: fixturelib.Fixture) -> None:
    md = result_of(fx).markdown
    problems = []
    if any(ln.strip() == "\\" for ln in md.split("\n")):
        problems.append("a line holding only a backslash (hard break with no text)")
    refs = set(re.findall(r"\[\^([\w-]+)\](?!:)", md))
    defs = set(re.findall(r"^\[\^([\w-]+)\]:", md, re.M))
    if refs - defs:
        problems.append(f"footnote references without definitions: {sorted(refs - defs)}")
    if md.count("```") % 2:
        problems.append("unbalanced code fence")
    if md and (not md.endswith("\n") or md.endswith("\n\n")):
        problems.append("markdown should end with exactly one newline")
    assert not problems, problems


def test_misnested_fixture_keeps_words_apart() -> None:
    """Paragraph boundaries in the 20-level misnested fixture at least keep a space between sentences."""
    text = fixture_result("broken--misnested-20-levels").text
    assert "later.Centring" not in text and "wobble.Pots" not in text


def test_mathml_without_tex_is_kept() -> None:
    """A formula without a TeX source stays MathML in HTML; its symbols stay in the text (were dropped)."""
    r = fixture_result("stage-normalize_structures--mathml-without-tex")
    assert "<math>" in r.content_html and '<math display="block">' in r.content_html
    assert "<mfrac> <mn>2</mn> <mn>3</mn> </mfrac>" in r.content_html
    assert "The volume is V = π r 2 d , where r" in r.text
    assert "V pond ≈ 2 3 V" in r.text
