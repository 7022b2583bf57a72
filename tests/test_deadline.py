"""The core's own deadline (``deadline_ms``, CLI ``--timeout``): checked inside parse and pipeline loops.

No wall-clock assertions: the pathological cases only have a hang guard (a 60 s subprocess timeout); where a
test needs the deadline to pass at a precise point it drives a fake clock.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import fixturelib
import pytest
import readwell
from readwell import deadline
from readwell.cli import EXIT_TIMEOUT

FX = fixturelib.FIXTURES
# 10,000 sibling spans: seconds of pipeline work with html5lib (issue 11), the shape that hung batch runs.
WIDE = "<html><body><article>" + "<span>word word</span>" * 10_000 + "</article></body></html>"
PAGE = FX / "quality--comments-section.html"


def test_deadline_checks_the_clock_every_stride_ticks() -> None:
    now = [0.0]
    dl = deadline.Deadline(5, clock=lambda: now[0])
    now[0] = 1.0  # long past 5 ms
    for _ in range(deadline.STRIDE - 1):
        dl.tick()  # the counter alone: no clock read, no raise
    with pytest.raises(deadline.DeadlineExceeded) as info:
        dl.tick()
    assert info.value.limit_ms == 5 and info.value.elapsed_ms == pytest.approx(1000.0)


def test_no_deadline_is_free_of_checks() -> None:
    assert deadline.current() is None
    deadline.check()
    deadline.tick()
    assert deadline.checked_input("<p>x</p>") == "<p>x</p>"


def test_zero_deadline_times_out_before_any_content() -> None:
    r = readwell.extract(WIDE, deadline_ms=0)
    assert r.status == "timeout" and not r.found
    d = r.to_dict()
    assert d["status"] == "timeout" and d["timeout"]["stage"] == "parse" and d["timeout"]["limit_ms"] == 0
    assert d["text"] == "" and d["markdown"] == "" and d["content_html"] == ""
    assert deadline.current() is None  # the context variable is reset after the run


def test_normal_results_keep_their_json_keys() -> None:
    r = readwell.extract(PAGE.read_bytes(), deadline_ms=60_000)
    assert r.status == "ok"
    assert "status" not in r.to_dict() and "timeout" not in r.to_dict()
    assert r.to_dict() == readwell.extract(PAGE.read_bytes()).to_dict()


@pytest.mark.parametrize("stage", ["remove_by_selector", "remove_by_pattern", "normalize_output"])
def test_timeout_in_a_stage_returns_the_log_so_far(stage: str) -> None:
    """The clock passes the deadline when ``stage`` starts: the log holds every earlier stage's entries."""
    full = readwell.extract(PAGE.read_bytes(), debug=True)
    holder: list[deadline.Deadline | None] = []

    def clock() -> float:
        dl = holder[0] if holder else None
        return 1e6 if dl is not None and dl.ctx is not None and dl.ctx.stage == stage else 0.0

    with deadline.started(1000, clock=clock) as dl:
        holder.append(dl)
        r = readwell.extract(PAGE.read_bytes(), debug=True, deadline_ms=1000)
    assert r.status == "timeout" and r.timeout is not None and r.timeout["stage"] == stage
    earlier = readwell.stage_names()[: readwell.stage_names().index(stage)]
    expected = [e.to_dict() for e in full.removals if e.stage in earlier]
    assert expected, "the fixture must have removals before the stage"
    assert [e.to_dict() for e in r.removals] == expected
    assert r.to_dict()["removals"] == expected


def test_deadline_passing_during_render_is_a_timeout() -> None:
    holder: list[deadline.Deadline | None] = []

    def clock() -> float:
        dl = holder[0] if holder else None
        # After run_stages the context's stage is "" again: sanitize and render.
        return 1e6 if dl is not None and dl.ctx is not None and dl.ctx.stage == "" else 0.0

    with deadline.started(1000, clock=clock) as dl:
        holder.append(dl)
        r = readwell.extract(PAGE.read_bytes(), deadline_ms=1000)
    assert r.status == "timeout" and r.timeout is not None and r.timeout["stage"] == "render"


@pytest.mark.parametrize("value", [-1, "soon", True, float("nan")])
def test_bad_deadline_is_an_input_error(value: object) -> None:
    with pytest.raises(readwell.InputError, match="deadline_ms"):
        readwell.extract("<p>x</p>", deadline_ms=value)


def test_aextract_keeps_the_deadline_in_its_thread() -> None:
    import asyncio

    r = asyncio.run(readwell.aextract(WIDE, deadline_ms=0))
    assert r.status == "timeout"


def _cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "readwell.cli", *args], input=stdin, capture_output=True, timeout=60
    )


def test_cli_timeout_exit_code_and_json(tmp_path: Path) -> None:
    page = tmp_path / "wide.html"
    page.write_text(WIDE, encoding="utf-8")
    p = _cli("extract", str(page), "--timeout", "50", "--debug")  # hang guard: 60 s
    assert p.returncode == EXIT_TIMEOUT == 4, p.stderr
    d = json.loads(p.stdout)
    assert (
        d["status"] == "timeout" and d["found"] is False and "removals" in d and d["timings"]["total"] >= 50
    )
    assert p.stderr == b""


def test_cli_timeout_from_stdin_and_text_format() -> None:
    p = _cli("extract", "-", "--timeout", "0", "--format", "text", stdin=WIDE.encode())
    assert p.returncode == 4 and p.stdout == b"" and p.stderr == b""


def test_cli_generous_timeout_changes_nothing() -> None:
    plain = _cli("extract", str(PAGE))
    timed = _cli("extract", str(PAGE), "--timeout", "600000")
    assert plain.returncode == timed.returncode == 0
    assert plain.stdout == timed.stdout


def test_cli_bad_timeout_is_a_usage_error() -> None:
    p = _cli("extract", str(PAGE), "--timeout", "-3")
    assert p.returncode == 2 and p.stderr.startswith(b"readwell:") and b"Traceback" not in p.stderr
