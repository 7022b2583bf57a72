"""The installed ``readwell`` command, run as a subprocess: the contract other tools rely on.

Exit codes: 0 article found, 3 no article (JSON still printed, ``found: false``), 2 bad usage or unreadable
input with exactly one line on stderr and never a traceback.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import fixturelib
import localserver
import pytest
import readwell
from readwell.render_markdown import front_matter

STAGES = [
    "flatten_shadow",
    "resolve_deferred",
    "select_root",
    "normalize_structures",
    "callouts",
    "remove_hidden_and_tiny_media",
    "remove_low_score",
    "remove_by_selector",
    "remove_by_pattern",
    "normalize_output",
    "resolve_urls",
]

FX = fixturelib.FIXTURES
ARTICLE = FX / "core--news-article-basic.html"
NO_ARTICLE = FX / "readerable--nav-plus-four-words.html"
SELECTOR_FX = FX / "stage-remove_by_selector--boilerplate-classes.html"


def readwell_cmd() -> list[str]:
    """This interpreter's own console script (not a pyenv shim), else ``python -m readwell.cli``."""
    script = Path(sysconfig.get_path("scripts")) / "readwell"
    if script.is_file():
        return [str(script)]
    exe = shutil.which("readwell")
    return [exe] if exe else [sys.executable, "-m", "readwell.cli"]


def run(
    *args: str, stdin: bytes | None = None, cmd: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*(cmd or readwell_cmd()), *args], input=stdin, capture_output=True, timeout=60)
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    )


def assert_usage_error(p: subprocess.CompletedProcess[str]) -> None:
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), f"expected exactly one stderr line, got {p.stderr!r}"
    assert lines[0].startswith("readwell:")
    assert p.stdout == ""


def test_console_script_installed() -> None:
    assert shutil.which("readwell"), "the `readwell` console script is not on PATH (pip install -e .)"


@pytest.mark.parametrize("cmd", [None, [sys.executable, "-m", "readwell.cli"]], ids=["script", "module"])
def test_stages_in_order(cmd: list[str] | None) -> None:
    p = run("stages", cmd=cmd)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == STAGES
    assert p.stdout.splitlines() == STAGES
    assert list(readwell.STAGE_NAMES) == STAGES


def test_extract_found_exit_0() -> None:
    p = run("extract", str(ARTICLE), "--url", "https://example.org/news/x")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["found"] is True and d["text"] and d["url"] == "https://example.org/news/x"
    assert p.stderr == ""


def test_extract_not_found_exit_3_still_prints_json() -> None:
    p = run("extract", str(NO_ARTICLE))
    assert p.returncode == 3, p.stderr
    d = json.loads(p.stdout)
    assert d["found"] is False
    assert d["readerable"]["value"] is False
    assert d["text"] == "" and d["markdown"] == "" and d["content_html"] == ""
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["extract", "/nonexistent/dir/page.html"],
        ["extract", str(ARTICLE), "--disable", "no_such_stage"],
        ["extract", str(ARTICLE), "--selector", "div[["],
        ["extract", str(ARTICLE), "--no-such-flag"],
        ["extract", str(ARTICLE), "--format", "pdf"],
        ["frobnicate"],
        [],
        ["why-missing", str(ARTICLE)],  # --text is required
        ["why-missing", "/nonexistent/page.html", "--text", "x"],
        ["extract", "http://127.0.0.1:9/unreachable.html"],  # port 9 (discard): connection refused
    ],
    ids=[
        "missing-file",
        "unknown-stage",
        "bad-selector",
        "unknown-flag",
        "bad-format",
        "unknown-command",
        "no-command",
        "why-missing-no-text",
        "why-missing-missing-file",
        "unreachable-url",
    ],
)
def test_usage_errors_exit_2_one_line(args: list[str]) -> None:
    assert_usage_error(run(*args))


def test_directory_as_source_is_usage_error(tmp_path: Path) -> None:
    assert_usage_error(run("extract", str(tmp_path)))


def test_selector_matching_nothing_is_usage_error() -> None:
    assert_usage_error(run("extract", str(ARTICLE), "--selector", "#no-such-element-anywhere"))


def test_stdin_dash_equals_file() -> None:
    data = ARTICLE.read_bytes()
    via_stdin = run("extract", "-", "--url", "https://example.org/a", stdin=data)
    via_file = run("extract", str(ARTICLE), "--url", "https://example.org/a")
    assert via_stdin.returncode == via_file.returncode == 0
    assert json.loads(via_stdin.stdout) == json.loads(via_file.stdout)


def test_stdin_default_source_and_text_format() -> None:
    p = run("extract", "--format", "text", stdin=ARTICLE.read_bytes())
    assert p.returncode == 0, p.stderr
    assert p.stdout == readwell.extract(ARTICLE.read_bytes()).text + "\n"


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "article.md"
    p = run("extract", str(ARTICLE), "--format", "markdown", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    md = readwell.extract(ARTICLE.read_bytes()).markdown
    assert out.read_text(encoding="utf-8") == (md if md.endswith("\n") else md + "\n")


def test_output_file_not_found_still_written(tmp_path: Path) -> None:
    out = tmp_path / "nothing.json"
    p = run("extract", str(NO_ARTICLE), "--output", str(out))
    assert p.returncode == 3
    assert json.loads(out.read_text(encoding="utf-8"))["found"] is False


def test_output_file_unwritable(tmp_path: Path) -> None:
    assert_usage_error(run("extract", str(ARTICLE), "-o", str(tmp_path / "no" / "such" / "dir" / "x.json")))


def test_html_format_is_content_html() -> None:
    p = run("extract", str(ARTICLE), "--format", "html")
    assert p.returncode == 0
    assert p.stdout.strip() == readwell.extract(ARTICLE.read_bytes()).content_html.strip()


def test_debug_adds_removals_and_timings() -> None:
    plain = json.loads(run("extract", str(SELECTOR_FX)).stdout)
    assert "removals" not in plain and "timings" not in plain
    p = run("extract", str(SELECTOR_FX), "--debug")
    assert p.returncode == 0
    d = json.loads(p.stdout)
    assert isinstance(d["removals"], list) and d["removals"]
    assert set(d["removals"][0]) == {
        "stage",
        "action",
        "kind",
        "rule",
        "reason",
        "text",
        "node_id",
        "path",
        "tag",
    }
    assert isinstance(d["timings"], dict)
    for stage in STAGES:
        assert isinstance(d["timings"][stage], int | float) and d["timings"][stage] >= 0
    assert fixturelib.stable(d) == plain


def _drop_phrases_back(disable: list[str]) -> list[str]:
    fx = fixturelib.load(SELECTOR_FX)
    args = ["extract", str(SELECTOR_FX), "--debug"]
    for s in disable:
        args += ["--disable", s]
    d = json.loads(run(*args).stdout)
    for stage in disable:
        assert not [e for e in d["removals"] if e["stage"] == stage], f"log has entries of disabled {stage}"
    return [p for p in fx.drop if p in d["text"]]


def test_disable_changes_output_and_log() -> None:
    """Disabling a stage is visible in the output and in the log (remove_by_pattern on its own fixture)."""
    path = FX / "stage-remove_by_pattern--boilerplate-text.html"
    fx = fixturelib.load(path)
    base = json.loads(run("extract", str(path), "--debug").stdout)
    off = json.loads(run("extract", str(path), "--debug", "--disable", "remove_by_pattern").stdout)
    assert any(e["stage"] == "remove_by_pattern" for e in base["removals"])
    assert not any(e["stage"] == "remove_by_pattern" for e in off["removals"])
    assert off["timings"]["remove_by_pattern"] == 0
    assert base["markdown"] != off["markdown"]
    assert [p for p in fx.drop if p in off["text"]], "disabling remove_by_pattern brought no drop phrase back"


def test_disable_remove_by_selector_brings_drop_phrase_back() -> None:
    assert _drop_phrases_back(["remove_by_selector"])


def test_disable_is_repeatable() -> None:
    assert _drop_phrases_back(["remove_by_selector", "remove_low_score", "select_root"])


def _parse_front_matter(md: str) -> tuple[dict[str, str], str]:
    """A tiny YAML-subset reader: '---', then `key: "json string"` lines, then '---'."""
    lines = md.split("\n")
    assert lines[0] == "---", md[:200]
    end = lines.index("---", 1)
    fields: dict[str, str] = {}
    for ln in lines[1:end]:
        key, sep, value = ln.partition(": ")
        assert sep and key.isidentifier(), f"not a `key: value` line: {ln!r}"
        assert value.startswith('"') and value.endswith('"'), f"value not double-quoted: {ln!r}"
        fields[key] = json.loads(value)
    block = "\n".join(lines[: end + 1])
    try:
        import yaml
    except ImportError:  # pragma: no cover - yaml is optional
        pass
    else:
        docs = [d for d in yaml.safe_load_all(block + "\n") if d is not None]
        assert docs == [fields]
    return fields, "\n".join(lines[end + 1 :])


HOSTILE_TITLE = "Line one\n---\nauthor: \"evil\" # not a comment\n'single' \\ back: slash"


def test_front_matter_value_cannot_end_block() -> None:
    fm = front_matter(
        {
            "title": HOSTILE_TITLE,
            "url": "https://example.org/a?x=1#y",
            "author": "---",
            "site": "a\u2028b\u2029c\x85d",
            "published": None,
        }
    )
    fields, rest = _parse_front_matter(fm)
    assert fields == {
        "title": HOSTILE_TITLE,
        "url": "https://example.org/a?x=1#y",
        "author": "---",
        "site": "a\u2028b\u2029c\x85d",
    }
    assert rest.strip() == ""


def test_cli_front_matter_with_hostile_title(tmp_path: Path) -> None:
    body = "".join(
        f"<p>Paragraph {i} about stone bridges, arches and the way masons cut each voussoir, "
        f"with enough words to count as prose.</p>"
        for i in range(8)
    )
    title = html.escape('He said "stop"\n---\nauthor: evil # x \\ y', quote=True)
    page = tmp_path / "hostile.html"
    page.write_text(
        f'<html><head><title>{title}</title><meta property="og:title" content="{title}">'
        f'<meta name="author" content="---"></head><body><article>{body}</article></body></html>',
        encoding="utf-8",
    )
    p = run("extract", str(page), "--format", "markdown", "--front-matter", "--url", "https://example.org/a")
    assert p.returncode == 0, p.stderr
    fields, rest = _parse_front_matter(p.stdout)
    r = readwell.extract(page.read_bytes(), url="https://example.org/a")
    assert fields["title"] == r.title and '"stop"' in fields["title"] and "---" in fields["title"]
    assert fields["url"] == "https://example.org/a"
    assert "Paragraph 3 about stone bridges" in rest
    # without --front-matter there is no block
    plain = run("extract", str(page), "--format", "markdown").stdout
    assert not plain.startswith("---")


def why(*args: str) -> subprocess.CompletedProcess[str]:
    return run("why-missing", *args)


def test_why_missing_names_stage_and_rule() -> None:
    fx = fixturelib.load(SELECTOR_FX)
    phrase = fx.drop[0]
    res = readwell.extract(fx.data, url=fx.url, debug=True)
    assert phrase not in res.text
    p = why(str(SELECTOR_FX), "--text", phrase, "--json")
    assert p.returncode == 0, p.stderr
    ans = json.loads(p.stdout)
    assert ans["status"] == "removed"
    assert ans["stage"] in STAGES
    entry = ans["entry"]
    assert entry is not None and entry["stage"] == ans["stage"]
    # the entry is one of the run's log entries, and its text holds the phrase (the removed subtree)
    assert entry in [e.to_dict() for e in res.removals]
    assert phrase in entry["text"] or entry["text"] in phrase or len(entry["text"]) == 80
    human = why(str(SELECTOR_FX), "--text", phrase)
    assert human.returncode == 0
    assert ans["stage"] in human.stdout and entry["rule"] in human.stdout


def test_why_missing_blames_remove_by_selector_on_its_fixture() -> None:
    fx = fixturelib.load(SELECTOR_FX)
    answers = [json.loads(why(str(SELECTOR_FX), "--text", ph, "--json").stdout) for ph in fx.drop[:2]]
    assert any(a["stage"] == "remove_by_selector" for a in answers), answers


def test_why_missing_with_disable_moves_blame() -> None:
    """With the first culprit stage disabled, why-missing names a later stage (or the text is present)."""
    fx = fixturelib.load(SELECTOR_FX)
    phrase = fx.drop[0]
    first = json.loads(why(str(SELECTOR_FX), "--text", phrase, "--json").stdout)
    second = json.loads(why(str(SELECTOR_FX), "--text", phrase, "--json", "--disable", first["stage"]).stdout)
    assert second["status"] in ("removed", "present")
    if second["status"] == "removed":
        assert second["stage"] != first["stage"]


def test_why_missing_not_in_page() -> None:
    p = why(str(SELECTOR_FX), "--text", "A sentence that appears nowhere in this page at all")
    assert p.returncode == 0
    assert "not in the parsed page" in p.stdout
    ans = json.loads(why(str(SELECTOR_FX), "--text", "appears nowhere in this page", "--json").stdout)
    assert ans["status"] == "not-in-page"


def test_why_missing_present() -> None:
    fx = fixturelib.load(SELECTOR_FX)
    p = why(str(SELECTOR_FX), "--text", fx.keep[0], "--json")
    assert p.returncode == 0
    assert json.loads(p.stdout)["status"] == "present"
    human = why(str(SELECTOR_FX), "--text", fx.keep[0]).stdout
    assert "present" in human.lower() or "is in the extracted article" in human


# --- URL source ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with localserver.serve(
        {
            "/x.html": (ARTICLE.read_bytes(), "text/html; charset=utf-8"),
            "/none.html": (NO_ARTICLE.read_bytes(), "text/html"),
        }
    ) as base:
        yield base


def test_extract_from_url(server: str) -> None:
    url = f"{server}/x.html"
    p = run("extract", url)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    want = readwell.extract(ARTICLE.read_bytes(), url=url).to_dict()
    assert d == json.loads(json.dumps(want))
    assert d["url"] == url


def test_extract_from_url_with_explicit_page_url(server: str) -> None:
    d = json.loads(run("extract", f"{server}/x.html", "--url", "https://example.org/real").stdout)
    assert d["url"] == "https://example.org/real"


def test_extract_from_url_not_found_and_404(server: str) -> None:
    p = run("extract", f"{server}/none.html")
    assert p.returncode == 3 and json.loads(p.stdout)["found"] is False
    assert_usage_error(run("extract", f"{server}/missing.html"))
