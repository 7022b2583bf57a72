"""Speed of the pathological page shapes that tests/test_robustness.py runs under a hang guard only.

    python3 build_scripts/bench_shapes.py              # every shape, 3 runs each
    python3 build_scripts/bench_shapes.py --repeat 5 --only deep-div-100k

The tests check what these shapes produce; how fast they run is a number to watch, not a test verdict
(wall-clock limits fail at random on shared machines). For each shape this prints the page size, the
median wall time of ``readwell extract FILE --format json`` in a subprocess (interpreter start-up
included, what a user waits for) and of ``readwell.extract`` in this process, and the CLI's exit code.
No assertions: compare the figures before and after a change.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import readwell

SENTENCE = "Stone bridges carry their load by pushing outward, and masons cut each voussoir with care. "
ARTICLE_P = "".join(f"<p>Paragraph {i}: {SENTENCE * 2}</p>" for i in range(6))

# name -> page; the same shapes as the hang-guarded CLI tests in tests/test_robustness.py
SHAPES: dict[str, Callable[[], str]] = {
    "deep-div-100k": lambda: "<div>" * 100_000 + ARTICLE_P + "</div>" * 100_000,
    "attributes-20k": lambda: "<p " + " ".join(f"a{i}=v{i}" for i in range(20_000)) + f">{SENTENCE * 10}</p>",
    "logged-siblings-10k": lambda: "<span>x</span>" * 10_000,
}


def readwell_cmd() -> list[str]:
    script = Path(sysconfig.get_path("scripts")) / "readwell"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "readwell.cli"]


def time_cli(path: Path) -> tuple[float, int]:
    """(seconds, exit code) of one CLI run."""
    t0 = time.perf_counter()
    proc = subprocess.run([*readwell_cmd(), "extract", str(path), "--format", "json"], capture_output=True)
    return time.perf_counter() - t0, proc.returncode


def time_in_process(page: str) -> float:
    t0 = time.perf_counter()
    readwell.extract(page)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    doc = __doc__ or ""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per shape; the median is printed (default 3)")
    ap.add_argument("--only", action="append", default=[], choices=sorted(SHAPES), help="repeatable")
    a = ap.parse_args(argv)
    print(f"{'shape':22s} {'size':>9s} {'CLI s':>7s} {'in-process s':>13s}  exit")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in SHAPES.items():
            if a.only and name not in a.only:
                continue
            page = make()
            path = Path(tmp) / f"{name}.html"
            path.write_text(page, encoding="utf-8")
            cli = [time_cli(path) for _ in range(a.repeat)]
            inproc = [time_in_process(page) for _ in range(a.repeat)]
            codes = sorted({code for _, code in cli})
            print(
                f"{name:22s} {len(page) / 1e3:7.0f}kB {statistics.median(t for t, _ in cli):7.2f} "
                f"{statistics.median(inproc):13.2f}  {','.join(map(str, codes))}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
