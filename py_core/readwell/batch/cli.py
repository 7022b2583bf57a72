"""``readwell batch INPUT... -o OUT.jsonl``: the command-line face of ``readwell.batch.runner``.

Exit codes: 0 when the run completed (whatever each record's status: the summary on stderr counts them),
2 for bad usage or unreadable inputs (one line, no traceback), 130 when interrupted (``--resume`` goes on).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import DEFAULT_DEADLINE_MS, DEFAULT_MAX_BYTES, DEFAULT_MAX_WORK


def add_parser(sub: Any) -> None:
    b = sub.add_parser("batch", help="extract many pages: folders, WARC files, JSONL → JSONL or Parquet")
    b.add_argument("inputs", nargs="+", metavar="INPUT", help="folder, .html(.gz), .warc(.gz) or .jsonl file")
    b.add_argument("-o", "--output", required=True, help="OUT.jsonl (or OUT.parquet with pyarrow)")
    b.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    b.add_argument("--resume", action="store_true", help="skip ids already in OUT.jsonl and append")
    b.add_argument(
        "--timeout",
        type=int,
        default=DEFAULT_DEADLINE_MS,
        metavar="MS",
        help=f"per-page wall-clock backstop in ms (default {DEFAULT_DEADLINE_MS:g}; 0 disables it)",
    )
    b.add_argument(
        "--max-work",
        type=int,
        default=DEFAULT_MAX_WORK,
        metavar="N",
        help=f"per-page work budget in deadline checks: the same pages time out on every run "
        f"(default {DEFAULT_MAX_WORK}; 0 disables it)",
    )
    b.add_argument(
        "--max-bytes", type=int, default=DEFAULT_MAX_BYTES, help="larger pages are too_large (default 10 MB)"
    )
    b.add_argument("--selector", help="CSS selector of the content root on every page")
    b.add_argument("--disable", action="append", default=[], metavar="STAGE", help="skip a stage")
    b.add_argument("--front-matter", action="store_true", help="YAML front matter before the Markdown")
    b.add_argument(
        "--no-timings", action="store_true", help="write elapsed_ms as null (byte-identical reruns)"
    )
    b.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def cmd_batch(a: argparse.Namespace) -> int:
    from .runner import run

    options = {
        "deadline_ms": a.timeout if a.timeout else None,
        "max_bytes": a.max_bytes,
        "max_work": a.max_work if a.max_work else None,
        "selector": a.selector,
        "disable": a.disable,
        "front_matter": a.front_matter,
    }
    summary = run(
        a.inputs,
        a.output,
        jobs=a.jobs,
        options=options,
        resume=a.resume,
        timings=not a.no_timings,
        progress=not a.no_progress,
    )
    sys.stderr.write(summary.line() + "\n")
    return 0
