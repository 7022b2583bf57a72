"""Benchmark: run the extractor over a real-page benchmark and print F1, precision, recall and ms per page.

    python -m readwell.bench [--data DIR] [--out outputs.json] [--worst N] [--jobs N]

The metric is the reference scorer's (``shared/benchmarks/score.py``): tokens are ``\\w+`` matches, shingles
are token 4-grams, per-page tp/fp/fn are multiset overlaps normalized by their sum, precision and recall
are means over pages, F1 is computed from the two means, ± are standard deviations over 1000 bootstraps
(seed 0). ``--out`` writes the outputs in the scorer's input format so both can be run on the same file.
The extraction goes through ``readwell.extract`` with default options: the same path users get.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

WORD = re.compile(r"\w+")


def shingles(text: str | None, n: int = 4) -> Counter[tuple[str, ...]]:
    t = WORD.findall(text or "")
    if not t:
        return Counter()
    if len(t) < n:
        return Counter([tuple(t)])
    return Counter(tuple(t[i : i + n]) for i in range(len(t) - n + 1))


def page_counts(true: str, pred: str | None) -> tuple[float, float, float]:
    t, p = shingles(true), shingles(pred)
    tp, fp, fn = sum((t & p).values()), sum((p - t).values()), sum((t - p).values())
    s = tp + fp + fn
    return (tp / s, fp / s, fn / s) if s else (0.0, 0.0, 0.0)


def prf(counts: list[tuple[float, float, float]]) -> dict[str, float]:
    ps = [tp / (tp + fp) for tp, fp, fn in counts if tp + fp > 0]
    rs = [tp / (tp + fn) for tp, fp, fn in counts if tp + fn > 0]
    p = statistics.fmean(ps) if ps else 0.0
    r = statistics.fmean(rs) if rs else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


def score(
    truth: dict[str, str], preds: dict[str, str | None], n_boot: int = 1000, seed: int = 0
) -> dict[str, Any]:
    keys = sorted(truth)
    counts = [page_counts(truth[k], preds.get(k)) for k in keys]
    m: dict[str, Any] = prf(counts)
    rng = random.Random(seed)
    boots = [prf([counts[rng.randrange(len(keys))] for _ in keys]) for _ in range(n_boot)]
    for k in ("precision", "recall", "f1"):
        m[k + "_std"] = statistics.stdev(b[k] for b in boots)
    m["per_page"] = dict(zip(keys, counts, strict=True))
    return m


def page_f1(c: tuple[float, float, float]) -> float:
    tp, fp, fn = c
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0


def default_data_dir() -> Path | None:
    env = os.environ.get("READWELL_BENCH_DATA")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / "shared" / "benchmarks" / "scrapinghub"
        if cand.is_dir():
            return cand
        cand = parent.parent / "shared" / "benchmarks" / "scrapinghub"
        if cand.is_dir():
            return cand
    return None


def _run_one(args: tuple[str, str, str | None]) -> tuple[str, str, float]:
    from . import extract

    pid, path, url = args
    data = gzip.decompress(Path(path).read_bytes()) if path.endswith(".gz") else Path(path).read_bytes()
    t0 = time.perf_counter()
    try:
        text = extract(data, url=url).text
    except Exception as exc:  # a crash is a benchmark result, not a reason to stop
        text = ""
        print(f"  {pid}: {type(exc).__name__}: {exc}", file=sys.stderr)
    return pid, text, (time.perf_counter() - t0) * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m readwell.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="benchmark dir with html/ and ground-truth.json")
    ap.add_argument("--out", type=Path, help="write {id: text} outputs (score.py input format)")
    ap.add_argument("--worst", type=int, default=0, help="list the N pages with the lowest page F1")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (timings are per page either way)")
    ap.add_argument("--only", nargs="*", help="only these page ids (prefixes)")
    ap.add_argument(
        "--peers",
        action="store_true",
        help="compare page by page with the benchmark's published peer outputs",
    )
    a = ap.parse_args(argv)
    data = a.data or default_data_dir()
    if data is None or not (data / "ground-truth.json").is_file():
        print("benchmark data not found: pass --data DIR or set READWELL_BENCH_DATA", file=sys.stderr)
        return 2
    gt = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    truth = {k: v["articleBody"] for k, v in gt.items()}
    jobs = []
    for pid in sorted(gt):
        if a.only and not any(pid.startswith(p) for p in a.only):
            continue
        path = data / "html" / f"{pid}.html.gz"
        if not path.exists():
            path = data / "html" / f"{pid}.html"
        jobs.append((pid, str(path), gt[pid].get("url")))
    preds: dict[str, str] = {}
    times: list[float] = []
    if a.jobs > 1:
        with ProcessPoolExecutor(a.jobs) as pool:
            results = list(pool.map(_run_one, jobs, chunksize=4))
    else:
        results = [_run_one(j) for j in jobs]
    for pid, text, ms in results:
        preds[pid] = text
        times.append(ms)
    if a.only:
        truth = {k: v for k, v in truth.items() if k in preds}
    if a.out:
        a.out.write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")
    m = score(truth, preds)
    times.sort()
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))] if times else 0.0
    print(
        f"F1 {m['f1']:.3f} ± {m['f1_std']:.3f}  precision {m['precision']:.3f} ± {m['precision_std']:.3f}  "
        f"recall {m['recall']:.3f} ± {m['recall_std']:.3f}  pages {len(truth)}  "
        f"missing {sum(1 for k in truth if k not in preds)}"
    )
    print(
        f"ms/page median {statistics.median(times) if times else 0:.1f}  p95 {p95:.1f}  max {times[-1] if times else 0:.1f}"
    )
    if a.worst:
        for k, c in sorted(m["per_page"].items(), key=lambda kv: page_f1(kv[1]))[: a.worst]:
            print(f"  {k}  page-F1 {page_f1(c):.3f}  tp {c[0]:.2f} fp {c[1]:.2f} fn {c[2]:.2f}")
    if a.peers:
        compare_peers(data, truth, m["per_page"])
    return 0


def compare_peers(data: Path, truth: dict[str, str], ours: dict[str, tuple[float, float, float]]) -> None:
    """Pages where the best published peer beats us by more than 0.05 page-F1 (each is a why-missing case)."""
    best: dict[str, tuple[float, str]] = {}
    for f in sorted((data / "published-output").glob("*.json.gz")):
        out = json.loads(gzip.decompress(f.read_bytes())).get("output", {})
        tool = f.name.split(".")[0]
        for k in truth:
            v = out.get(k)
            text = v.get("articleBody") if isinstance(v, dict) else v
            f1 = page_f1(page_counts(truth[k], text))
            if f1 > best.get(k, (-1.0, ""))[0]:
                best[k] = (f1, tool)
    worse = sorted(
        ((best[k][0] - page_f1(ours[k]), k) for k in truth if best[k][0] - page_f1(ours[k]) > 0.05),
        reverse=True,
    )
    print(f"pages where the best peer is ahead by > 0.05 page-F1: {len(worse)} of {len(truth)}")
    for _gap, k in worse:
        tp, fp, fn = ours[k]
        print(
            f"  {k[:12]}  ours {page_f1(ours[k]):.3f} (fp {fp:.2f} fn {fn:.2f})  best {best[k][0]:.3f} {best[k][1]}"
        )


if __name__ == "__main__":
    sys.exit(main())
