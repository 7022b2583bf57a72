"""Page-by-page comparison with a set's published peer outputs (``published-output/<tool>.json.gz``)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from .scoring import Counts, page_counts, page_f1, text_of


def compare_peers(set_dir: Path, truth: dict[str, str], ours: dict[str, Counts]) -> None:
    """Pages where the best published peer beats us by more than 0.05 page-F1 (each is a why-missing case)."""
    files = sorted((set_dir / "published-output").glob("*.json.gz"))
    if not files:
        print(f"no published peer outputs in {set_dir.name}")
        return
    best: dict[str, tuple[float, str]] = {}
    for f in files:
        out = json.loads(gzip.decompress(f.read_bytes())).get("output", {})
        tool = f.name.split(".")[0]
        for k in truth:
            f1 = page_f1(page_counts(truth[k], text_of(out.get(k))))
            if f1 > best.get(k, (-1.0, ""))[0]:
                best[k] = (f1, tool)
    worse = sorted(
        ((best[k][0] - page_f1(ours[k]), k) for k in truth if best[k][0] - page_f1(ours[k]) > 0.05),
        reverse=True,
    )
    print(f"pages where the best peer is ahead by > 0.05 page-F1: {len(worse)} of {len(truth)}")
    for _gap, k in worse:
        tp, fp, fn = ours[k]
        mine = page_f1(ours[k])
        print(f"  {k[:12]}  ours {mine:.3f} (fp {fp:.2f} fn {fn:.2f})  best {best[k][0]:.3f} {best[k][1]}")
