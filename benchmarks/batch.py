"""``make bench-batch``: pages/s of ``readwell batch`` at -j 1 and -j 2 beside trafilatura's own parallel CLI
on the same files in the same run, byte-identity of repeated runs, and RSS growth over many records.

Corpus: the development sets under ``../shared/benchmarks/*/html`` (relative to the repository), decompressed
once into a temporary folder so both tools read the same plain .html files. RSS: one process running
``extract_records`` over the bundled fixture pages cycled to ``--rss-records`` records (the memory story of
one batch worker); growth is measured from record 1,000 (after caches and imports settle) to the end.
Prints numbers; asserts nothing (speed figures belong here, not in tests).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "benchmarks"


def corpus_pages(limit: int | None) -> list[Path]:
    pages = sorted(CORPUS.glob("*/html/*.html.gz"))
    return pages[:limit] if limit else pages


def unpack(pages: list[Path], folder: Path) -> None:
    folder.mkdir(parents=True)
    for p in pages:
        (folder / f"{p.parent.parent.name}--{p.name[:-3]}").write_bytes(gzip.decompress(p.read_bytes()))


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - t0


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def explain_differences(outs: dict[str, Path]) -> None:
    """Which records differ between runs, with their statuses and errors. The per-page limit is a work
    budget (counted, not timed), so no difference is expected; a record stopped by the wall-clock backstop
    says so in its error and is the one outcome that can differ by design."""
    runs = {
        k: [json.loads(line) for line in v.read_text(encoding="utf-8").splitlines()] for k, v in outs.items()
    }
    labels = list(runs)
    for i, recs in enumerate(zip(*runs.values(), strict=True)):
        if any(r != recs[0] for r in recs[1:]):
            statuses = ", ".join(
                f"{lab}={r['status']} ({r['error']})" for lab, r in zip(labels, recs, strict=True)
            )
            print(f"  differs: record {i} {recs[0]['id']}: {statuses}")


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def rss_growth(records: int) -> None:
    sys.path.insert(0, str(ROOT / "py_core"))
    from readwell.batch import extract_records

    pages = [p.read_bytes() for p in sorted((ROOT / "fixtures").glob("*.html"))]
    recs = ({"id": i, "html": h} for i, h in enumerate(itertools.islice(itertools.cycle(pages), records)))
    warm = None
    t0 = time.perf_counter()
    for i, _ in enumerate(extract_records(recs), 1):
        if i == min(1000, records):
            warm = rss_mb()
        if i % 5000 == 0 or i == records:
            print(f"  rss after {i:>6} records: {rss_mb():7.1f} MB", flush=True)
    assert warm is not None
    end = rss_mb()
    print(
        f"RSS over {records} records ({len(pages)} fixture pages cycled, {time.perf_counter() - t0:.0f} s): "
        f"{warm:.1f} MB at 1000 -> {end:.1f} MB, growth {end - warm:+.1f} MB"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, help="only the first N corpus pages (sorted by set and id)")
    ap.add_argument("--rss-records", type=int, default=20_000)
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument(
        "--identity-only",
        action="store_true",
        help="only two -j 2 runs and their byte identity (no peers, no RSS)",
    )
    args = ap.parse_args()
    if not args.skip_speed:
        pages = corpus_pages(args.limit)
        if not pages:
            sys.exit(f"no corpus under {CORPUS}")
        with tempfile.TemporaryDirectory(prefix="rw-bench-batch-") as tmp:
            folder = Path(tmp) / "pages"
            unpack(pages, folder)
            n = len(pages)
            mb = sum(f.stat().st_size for f in folder.iterdir()) / 2**20
            print(f"{n} pages from {CORPUS} ({mb:.1f} MB)")
            rw = [sys.executable, "-m", "readwell.cli", "batch", str(folder), "--no-timings", "--no-progress"]
            outs = {}
            runs = (
                (("j2", 2), ("j2-again", 2))
                if args.identity_only
                else (("j1", 1), ("j2", 2), ("j2-again", 2))
            )
            for label, jobs in runs:
                out = Path(tmp) / f"{label}.jsonl"
                secs = timed([*rw, "-o", str(out), "-j", str(jobs)])
                outs[label] = out
                print(f"readwell batch -j {jobs} ({label}): {secs:6.1f} s, {n / secs:6.2f} pages/s")
            traf = None if args.identity_only else shutil.which("trafilatura")
            if traf:
                for jobs in (1, 2):
                    dest = Path(tmp) / f"traf{jobs}"
                    secs = timed([traf, "--input-dir", str(folder), "-o", str(dest), "--parallel", str(jobs)])
                    print(f"trafilatura --parallel {jobs}:        {secs:6.1f} s, {n / secs:6.2f} pages/s")
            elif not args.identity_only:
                print("trafilatura not installed: no comparison (pip install trafilatura)")
            hashes = {k: sha(v) for k, v in outs.items()}
            same = len(set(hashes.values())) == 1
            print(f"outputs byte-identical across {', '.join(outs)}: {same} {hashes}")
            timeouts = Counter(
                json.loads(line)["error"]
                for line in outs["j2"].read_text(encoding="utf-8").splitlines()
                if '"status": "timeout"' in line
            )
            print(f"timeout records: {dict(timeouts) or 'none'}")
            if not same:
                explain_differences(outs)
    if not args.identity_only:
        rss_growth(args.rss_records)


if __name__ == "__main__":
    main()
