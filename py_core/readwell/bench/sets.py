"""Where the benchmark sets are, what is in one, and the peers' published figures.

The sets live outside the repository (``../shared/benchmarks`` next to the repository root): real pages are
never copied into it. ``--benchmarks DIR`` or ``READWELL_BENCHMARKS`` overrides the location. The peers'
figures are parsed from that directory's README (one ``### <set> (N pages)`` table per set, measured with
``score.py`` by whoever prepared the sets), so they stay the source's numbers rather than a copy of them.
"""

from __future__ import annotations

import gzip
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

SETS: tuple[str, ...] = ("scrapinghub", "l3s-gn1", "dragnet-dev", "readability-dev", "cleanportaleval")
ENV = "READWELL_BENCHMARKS"
# The issue-10 measure of "declining a real article": found is false on a page whose gold has this many words.
REAL_ARTICLE_WORDS = 50


@dataclass(frozen=True)
class Page:
    id: str
    path: str
    url: str | None


@dataclass(frozen=True)
class Peer:
    name: str
    f1: float
    precision: float
    recall: float


def repo_root() -> Path | None:
    """The checkout this package runs from (the directory holding ``pyproject.toml`` and ``py_core``)."""
    for parent in Path(__file__).resolve().parents:
        if (parent / "pyproject.toml").is_file() and (parent / "py_core").is_dir():
            return parent
    return None


def benchmarks_dir(override: Path | None = None) -> Path | None:
    """``override``, else ``$READWELL_BENCHMARKS``, else ``../shared/benchmarks`` from the repository root
    (or from the working directory, for an installed package); None when none of them exists."""
    if override is not None:
        return override
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    bases = [b for b in (repo_root(), Path.cwd()) if b is not None]
    for base in bases:
        cand = base.parent / "shared" / "benchmarks"
        if cand.is_dir():
            return cand
    return None


def load_truth(set_dir: Path) -> tuple[dict[str, str], list[Page]]:
    """Gold text per page id and the pages in id order (``html/<id>.html.gz`` or ``.html``)."""
    gt = json.loads((set_dir / "ground-truth.json").read_text(encoding="utf-8"))
    truth = {k: v["articleBody"] for k, v in gt.items()}
    pages = []
    for pid in sorted(gt):
        path = set_dir / "html" / f"{pid}.html.gz"
        if not path.exists():
            path = set_dir / "html" / f"{pid}.html"
        pages.append(Page(pid, str(path), gt[pid].get("url")))
    return truth, pages


def read_page(path: str) -> bytes:
    data = Path(path).read_bytes()
    return gzip.decompress(data) if path.endswith(".gz") else data


_HEADING = re.compile(r"^###\s+(\S+)\s+\((\d+) pages\)")
_ROW = re.compile(r"^\|\s*([^|]+?)\s*\|\s*([0-9.]+)\s*\|\s*([0-9.]+)\s*\|\s*([0-9.]+)\s*\|")


def peers(bench_dir: Path) -> dict[str, list[Peer]]:
    """Per set, the peers' F1/P/R from ``README.md``'s tables (empty when the README is absent)."""
    readme = bench_dir / "README.md"
    if not readme.is_file():
        return {}
    out: dict[str, list[Peer]] = {}
    current: str | None = None
    for line in readme.read_text(encoding="utf-8").splitlines():
        h = _HEADING.match(line)
        if h:
            current = h.group(1)
            out[current] = []
            continue
        if line.startswith("#"):
            current = None
            continue
        r = _ROW.match(line)
        if current is not None and r:
            out[current].append(Peer(r.group(1), float(r.group(2)), float(r.group(3)), float(r.group(4))))
    return out
