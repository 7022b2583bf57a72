"""Hostile pages, fuzzed: random tag soup and mutated real pages, spiced with the payload corpus, must never
raise anything but ``readwell.InputError`` (no RecursionError, no crash) and every output must pass the static
security checks of ``security.checks``.

Deterministic (``derandomize=True``): the same cases run on every machine, so a CI failure reproduces locally.
A larger run with timings is ``python3 -m build_scripts.fuzz_bench`` (see SECURITY.md); pathological sizes
(100,000-deep nesting, 20 MB pages) live there, because html5lib needs minutes for some of them. Here the big
inputs are scaled down to keep this file under ~20 s.
"""

from __future__ import annotations

import pytest
import readwell  # noqa: E402

from security import article, checks
from security.fuzzer import BIG_CASES, fuzz_strategy

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

MAX_EXAMPLES = 300


def check(page: str | bytes, url: str | None, full: bool = True) -> None:
    try:
        checks.check_all(page, url=url, allowed_markers=None, deep=full, front_matter_check=full)
    except readwell.InputError:
        pass


@settings(
    derandomize=True,
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(case=fuzz_strategy())
def test_fuzz_outputs_stay_safe(case: tuple[str | bytes, str | None]) -> None:
    page, url = case
    check(page, url)


@pytest.mark.parametrize("name", [n for n, _ in BIG_CASES], ids=str)
def test_big_inputs_scaled_down(name: str) -> None:
    """The benchmark's pathological inputs at a size CI can afford (scale 0.02: 2,000-deep nesting, 400 kB);
    every output format still checked, the second and third extraction of ``check_all`` skipped."""
    make = dict(BIG_CASES)[name]
    check(make(0.02), article.PAGE_URL, full=False)
