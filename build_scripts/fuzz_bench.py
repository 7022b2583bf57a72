"""Fuzz benchmark: many hostile inputs through ``readwell.extract``, every output statically checked, timed.

    python3 -m build_scripts.fuzz_bench                  # 2,000 random cases + the big inputs at scale 0.1
    python3 -m build_scripts.fuzz_bench --cases 20000 --seed 7
    python3 -m build_scripts.fuzz_bench --big-scale 1.0  # the sizes of issue 4: 100,000-deep nesting, 20 MB
    python3 -m build_scripts.fuzz_bench --cases 0 --only deep-div-nesting --big-scale 0.5

Run it as a module from the repository root: ``tests.security`` (the test kit) then imports like any package,
with no ``sys.path`` edits. Cases come from ``tests/security/fuzzer.py`` (``fuzz_case``, the generator the CI
fuzz test drives through hypothesis): tag soup and mutated security fixtures spliced with the payload corpus,
sometimes as bytes with invalid UTF-8. Each case is extracted once (timed: the per-page figure) and then
checked on every output format by ``security.checks.check_all`` (not timed). Prints cases/second, the median
and worst extraction time and the slowest cases; exits 1 if any case raised something other than
``readwell.InputError`` or failed a check.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import traceback
from pathlib import Path

import readwell

try:
    from tests.security import checks, fuzzer
    from tests.security.article import PAGE_URL
except ImportError as exc:  # run as a script, or from another folder
    sys.exit(f"run this as `python3 -m build_scripts.fuzz_bench` from the repository root ({exc})")


def run_one(page: str | bytes, url: str | None, full: bool) -> tuple[float, str | None]:
    """(extraction ms, failure or None)."""
    t0 = time.perf_counter()
    try:
        readwell.extract(page, url=url)
    except readwell.InputError:
        return (time.perf_counter() - t0) * 1000, None
    except BaseException as exc:  # noqa: BLE001 (anything else is a finding, including RecursionError)
        return (
            time.perf_counter() - t0
        ) * 1000, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"
    ms = (time.perf_counter() - t0) * 1000
    try:
        checks.check_all(page, url=url, allowed_markers=None, deep=full, front_matter_check=full)
    except readwell.InputError:
        pass
    except BaseException as exc:  # noqa: BLE001
        return ms, f"{type(exc).__name__}: {exc}"
    return ms, None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=2000, help="random cases (default 2000)")
    ap.add_argument("--seed", type=int, default=4, help="random seed (default 4)")
    ap.add_argument(
        "--big-scale",
        type=float,
        default=0.1,
        help="size of the big inputs; 1.0 = 100,000-deep nesting and 20 MB pages (default 0.1)",
    )
    ap.add_argument("--only", action="append", default=[], help="run only these big cases (repeatable)")
    ap.add_argument("--save-failures", type=Path, help="write failing inputs to this folder")
    a = ap.parse_args(argv)
    sys.setrecursionlimit(1000)  # the default: a recursion bug must show up here as it would for a user

    rng = random.Random(a.seed)
    times: list[tuple[float, str, int]] = []
    failures: list[tuple[str, str, str | bytes]] = []
    t_all = time.perf_counter()
    for i in range(a.cases):
        page, url = fuzzer.fuzz_case(rng)
        ms, err = run_one(page, url, full=True)
        times.append((ms, f"random #{i}", len(page)))
        if err:
            failures.append((f"random #{i}", err, page))
    wall = time.perf_counter() - t_all
    if a.cases:
        ms_list = [t for t, _, _ in times]
        p99 = sorted(ms_list)[int(len(ms_list) * 0.99) - 1]
        print(
            f"random cases: {a.cases} in {wall:.1f} s ({a.cases / wall:.1f} cases/s with checks, "
            f"{a.cases / (sum(ms_list) / 1000):.1f} extractions/s); extraction ms per page: "
            f"median {statistics.median(ms_list):.1f}, p99 {p99:.1f}, "
            f"worst {max(ms_list):.1f}"
        )

    for name, make in fuzzer.BIG_CASES:
        if a.only and name not in a.only:
            continue
        page = make(a.big_scale)
        ms, err = run_one(page, PAGE_URL, full=False)
        times.append((ms, f"big {name}", len(page)))
        print(
            f"big {name:22s} scale {a.big_scale:g}: {len(page) / 1e6:7.2f} MB  {ms:10.1f} ms"
            + ("  FAILED" if err else ""),
            flush=True,
        )
        if err:
            failures.append((f"big {name}", err, page))

    worst = sorted(times, reverse=True)[:5]
    print("slowest:", "; ".join(f"{n} ({size / 1e3:.0f} kB) {ms:.0f} ms" for ms, n, size in worst))
    for name, err, page in failures:
        print(f"\nFAILED {name}: {err}")
        if a.save_failures:
            a.save_failures.mkdir(parents=True, exist_ok=True)
            data = page if isinstance(page, bytes) else page.encode("utf-8", "surrogatepass")
            (a.save_failures / (name.replace(" ", "-").replace("#", "") + ".html")).write_bytes(data)
    print(f"\n{len(times)} cases, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
