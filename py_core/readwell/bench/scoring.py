"""The reference metric of ``shared/benchmarks/score.py``, line for line, so our figures are its figures.

Tokens are ``\\w+`` matches (case kept); shingles are token 4-grams (a text of 1-3 tokens is one shingle). Per
page, tp/fp/fn are the multiset overlap/surplus counts divided by tp+fp+fn, so every page weighs the same.
Precision is the mean of tp/(tp+fp) over pages with a non-empty prediction, recall the mean of tp/(tp+fn) over
pages with a non-empty truth, F1 = 2PR/(P+R) of the two means; ± are standard deviations over 1000 page
bootstraps (seed 0). ``tests/test_bench.py`` checks that this module and ``score.py`` agree.
"""

from __future__ import annotations

import random
import re
import statistics
from collections import Counter
from typing import Any

WORD = re.compile(r"\w+")

Counts = tuple[float, float, float]


def shingles(text: str | None, n: int = 4) -> Counter[tuple[str, ...]]:
    t = WORD.findall(text or "")
    if not t:
        return Counter()
    if len(t) < n:
        return Counter([tuple(t)])
    return Counter(tuple(t[i : i + n]) for i in range(len(t) - n + 1))


def page_counts(true: str, pred: str | None) -> Counts:
    t, p = shingles(true), shingles(pred)
    tp, fp, fn = sum((t & p).values()), sum((p - t).values()), sum((t - p).values())
    s = tp + fp + fn
    return (tp / s, fp / s, fn / s) if s else (0.0, 0.0, 0.0)


def prf(counts: list[Counts]) -> dict[str, float]:
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


def page_f1(c: Counts) -> float:
    tp, fp, fn = c
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0


def text_of(v: Any) -> str | None:
    """An output value as ``score.py`` reads it: a string, or ``{"articleBody": ...}`` / ``{"text": ...}``."""
    if isinstance(v, dict):
        return v.get("articleBody", v.get("text"))
    return v


def summary_line(m: dict[str, Any], truth: dict[str, str], preds: dict[str, Any]) -> str:
    """The first line ``score.py`` prints, character for character."""
    missing = sum(1 for k in truth if k not in preds)
    return (
        f"F1 {m['f1']:.3f} ± {m['f1_std']:.3f}  precision {m['precision']:.3f} ± {m['precision_std']:.3f}  "
        f"recall {m['recall']:.3f} ± {m['recall_std']:.3f}  pages {len(truth)}  missing {missing}"
    )
