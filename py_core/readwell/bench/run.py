"""Run ``readwell.extract`` over a set's pages (optionally in worker processes) and report the figures.

The extraction is the default ``readwell.extract`` path users get; a crash is a result (empty text), not a
reason to stop. Results come back in page-id order whatever ``jobs`` is, so every report is deterministic.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from .scoring import page_f1, score, summary_line
from .sets import REAL_ARTICLE_WORDS, Page, Peer, read_page

A = TypeVar("A")
T = TypeVar("T")


@dataclass(frozen=True)
class PageResult:
    id: str
    text: str
    found: bool
    ms: float


def run_page(page: Page) -> PageResult:
    from .. import extract

    data = read_page(page.path)
    t0 = time.perf_counter()
    try:
        r = extract(data, url=page.url)
        text, found = r.text or "", r.found
    except Exception as exc:  # a crash is a benchmark result, not a reason to stop
        text, found = "", False
        print(f"  {page.id}: {type(exc).__name__}: {exc}", file=sys.stderr)
    return PageResult(page.id, text, found, (time.perf_counter() - t0) * 1000)


def map_pages(fn: Callable[[A], T], items: Iterable[A], jobs: int) -> list[T]:
    """``fn`` over ``items`` in order; ``jobs`` > 1 uses that many worker processes."""
    todo = list(items)
    if jobs > 1 and len(todo) > 1:
        with ProcessPoolExecutor(jobs) as pool:
            return list(pool.map(fn, todo, chunksize=2))
    return [fn(x) for x in todo]


@dataclass
class SetFigures:
    """One set's scores, the pages where no article was found, and timings."""

    name: str
    metrics: dict[str, Any]
    line: str  # score.py's summary line
    pages: int
    not_found: int
    not_found_real: int  # of which the gold has >= REAL_ARTICLE_WORDS words
    not_found_ids: list[str]
    ms: list[float]


def figures(name: str, truth: dict[str, str], results: list[PageResult]) -> SetFigures:
    preds: dict[str, str | None] = {r.id: r.text for r in results}
    m = score(truth, preds)
    missed = [r.id for r in results if not r.found]
    real = [pid for pid in missed if len(truth.get(pid, "").split()) >= REAL_ARTICLE_WORDS]
    return SetFigures(
        name,
        m,
        summary_line(m, truth, preds),
        len(truth),
        len(missed),
        len(real),
        real,
        [r.ms for r in results],
    )


def print_set(fig: SetFigures, peers: list[Peer], worst: int) -> None:
    print(f"== {fig.name} ({fig.pages} pages)")
    print(fig.line)
    times = sorted(fig.ms)
    if times:
        p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
        print(f"ms/page median {statistics.median(times):.1f}  p95 {p95:.1f}  max {times[-1]:.1f}")
    ids = fig.not_found_ids
    listed = f" ({', '.join(ids[:8])}{' ...' if len(ids) > 8 else ''})" if ids else ""
    print(
        f"found: false on {fig.not_found} pages; "
        f"{fig.not_found_real} of them with gold >= {REAL_ARTICLE_WORDS} words{listed}"
    )
    m = fig.metrics
    rows = [("Readwell (this run)", m["f1"], m["precision"], m["recall"])]
    rows += [(p.name, p.f1, p.precision, p.recall) for p in peers]
    if peers:
        print(f"  {'#':>2}  {'extractor':<46} {'F1':>6} {'P':>6} {'R':>6}")
        for i, (n, f, p, r) in enumerate(sorted(rows, key=lambda x: -x[1]), 1):
            mark = "*" if n.startswith("Readwell") else " "
            print(f" {mark}{i:>2}  {n[:46]:<46} {f:6.3f} {p:6.3f} {r:6.3f}")
    if worst:
        for k, c in sorted(m["per_page"].items(), key=lambda kv: page_f1(kv[1]))[:worst]:
            print(f"  {k}  page-F1 {page_f1(c):.3f}  tp {c[0]:.2f} fp {c[1]:.2f} fn {c[2]:.2f}")
    print()


def print_summary(figs: list[SetFigures], peers: dict[str, list[Peer]]) -> None:
    """Per-set rows and the macro-average (mean over sets) beside the peers measured on every one of them."""
    print(f"== summary ({len(figs)} sets)")
    print(
        f"{'set':<18} {'pages':>5} {'F1':>6} {'P':>6} {'R':>6}  {'no article (gold>=50w)':>22}  best peer F1"
    )
    for f in figs:
        m = f.metrics
        best = max(peers.get(f.name, []), key=lambda p: p.f1, default=None)
        b = f"{best.f1:.3f} {best.name}" if best else "-"
        nf = f"{f.not_found} ({f.not_found_real})"
        prf = f"{m['f1']:6.3f} {m['precision']:6.3f} {m['recall']:6.3f}"
        print(f"{f.name:<18} {f.pages:>5} {prf}  {nf:>22}  {b}")
    if len(figs) < 2:
        return
    n = len(figs)
    mac = [sum(f.metrics[k] for f in figs) / n for k in ("f1", "precision", "recall")]
    print(f"{'macro-average':<18} {'':>5} {mac[0]:6.3f} {mac[1]:6.3f} {mac[2]:6.3f}")
    names = [f.name for f in figs]
    common = [
        p.name
        for p in peers.get(names[0], [])
        if all(any(q.name == p.name for q in peers.get(s, [])) for s in names)
    ]
    for pname in common:
        vals = [next(q for q in peers[s] if q.name == pname) for s in names]
        f1 = sum(v.f1 for v in vals) / n
        pr = sum(v.precision for v in vals) / n
        rc = sum(v.recall for v in vals) / n
        print(f"  peer {pname[:41]:<41} {f1:6.3f} {pr:6.3f} {rc:6.3f}")
