"""Benchmark: run the extractor over the real-page sets and print F1, precision, recall beside the peers'.

    python -m readwell.bench [--set NAME|all ...] [--jobs N] [--out FILE|DIR] [--worst N] [--peers]
    python -m readwell.bench --blame [--set ...] [--json FILE] [--top N]
    python -m readwell.bench --data SET_DIR        # any directory with html/ and ground-truth.json

Sets are looked up in ``../shared/benchmarks`` beside the repository root (``--benchmarks DIR`` or
``READWELL_BENCHMARKS`` override it). Figures are computed exactly as ``score.py`` computes them (the first
line of each set is its output, character for character); ``--out`` writes ``{id: text}`` files in its
input format so both can be run on the same outputs. ``--blame`` attributes every lost gold shingle and every
removed or kept boilerplate shingle to the stage and rule responsible (see ``readwell/bench/blame.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .run import SetFigures, figures, map_pages, print_set, print_summary, run_page
from .sets import SETS, benchmarks_dir, load_truth, peers


def _out_path(out: Path, name: str, several: bool) -> Path:
    """``--out``: a file for one set; for several, a directory (``DIR/<set>.json``) or a ``{set}`` name."""
    if "{set}" in str(out):
        return Path(str(out).replace("{set}", name))
    if several or out.is_dir():
        out.mkdir(parents=True, exist_ok=True)
        return out / f"{name}.json"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m readwell.bench", description=(__doc__ or "").split("\n")[0])
    ap.add_argument(
        "--set",
        dest="sets",
        action="append",
        help=f"set name or 'all' (repeatable; default all): {', '.join(SETS)}",
    )
    ap.add_argument(
        "--benchmarks", type=Path, help="directory holding the sets (default ../shared/benchmarks)"
    )
    ap.add_argument(
        "--data", type=Path, help="one set directory with html/ and ground-truth.json (overrides --set)"
    )
    ap.add_argument(
        "--out", type=Path, help="write {id: text} outputs: a file, or a directory / '{set}' name"
    )
    ap.add_argument("--worst", type=int, default=0, help="list the N pages with the lowest page F1 per set")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (results stay in page-id order)")
    ap.add_argument("--only", nargs="*", help="only these page ids (prefixes)")
    ap.add_argument(
        "--peers", action="store_true", help="page-by-page comparison with published peer outputs"
    )
    ap.add_argument("--blame", action="store_true", help="loss accounting: which stage and rule cost what")
    ap.add_argument("--json", type=Path, help="with --blame: also write the full accounting as JSON")
    ap.add_argument("--top", type=int, default=30, help="with --blame: rows of the rule table")
    ap.add_argument("--verify", action="store_true", help="with --blame: also run extract, compare texts")
    a = ap.parse_args(argv)
    if a.jobs < 1:
        ap.error("--jobs must be at least 1")

    bench = benchmarks_dir(a.benchmarks)
    if a.data is not None:
        targets = [(a.data.name, a.data)]
    else:
        wanted = a.sets or ["all"]
        names = list(SETS) if "all" in wanted else wanted
        unknown = [n for n in names if n not in SETS]
        if unknown:
            ap.error(f"unknown set(s) {', '.join(unknown)}; sets are: {', '.join(SETS)}, all")
        if bench is None:
            print(
                "benchmark sets not found: pass --benchmarks DIR or set READWELL_BENCHMARKS", file=sys.stderr
            )
            return 2
        targets = [(n, bench / n) for n in names]
    for name, d in targets:
        if not (d / "ground-truth.json").is_file():
            print(f"{name}: no ground-truth.json in {d}", file=sys.stderr)
            return 2
    peer_table = peers(bench) if bench is not None else {}

    if a.blame:
        from .blame import run_blame

        return run_blame(targets, a.jobs, a.only, a.top, a.json, a.verify)

    figs: list[SetFigures] = []
    for name, d in targets:
        truth, pages = load_truth(d)
        if a.only:
            pages = [p for p in pages if any(p.id.startswith(o) for o in a.only)]
            truth = {p.id: truth[p.id] for p in pages}
        results = map_pages(run_page, pages, a.jobs)
        if a.out:
            path = _out_path(a.out, name, len(targets) > 1)
            path.write_text(json.dumps({r.id: r.text for r in results}, ensure_ascii=False), encoding="utf-8")
        fig = figures(name, truth, results)
        print_set(fig, peer_table.get(name, []) if not a.only else [], a.worst)
        if a.peers:
            from .published import compare_peers

            compare_peers(d, truth, fig.metrics["per_page"])
        figs.append(fig)
    if len(figs) > 1:
        print_summary(figs, peer_table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
