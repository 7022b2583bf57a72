"""The names-masked probe: every set re-run with the class/id tokens containing a word masked in the input.

The held-out sets are pages whose templates we never saw, so their class and id vocabulary is the unknown.
This replaces every class/id token containing PATTERN (default ``comment``, case-insensitive) with ``x``
in the raw HTML (``readwell.bench.masking``), extracts with the default ``readwell.extract`` and writes ``OUT/<set>.json`` ({page id:
text}), which ``score4.py``-style scorers read like a ``readwell.bench --out`` directory.

    PYTHONPATH=py_core python3 benchmarks/names_masked.py OUT [--pattern comment] [--jobs 2] [SET ...]
"""

from __future__ import annotations

import argparse
import json
from functools import partial
from pathlib import Path

from readwell import extract
from readwell.bench.masking import mask
from readwell.bench.run import map_pages
from readwell.bench.sets import benchmarks_dir, load_truth, read_page

SET_NAMES = ("scrapinghub", "l3s-gn1", "dragnet-dev", "readability-dev", "cleanportaleval")


def job(page, pattern: str) -> tuple[str, str]:
    data = mask(read_page(page.path), pattern)
    try:
        r = extract(data, url=page.url)
        return page.id, (r.text or "") if r.found else ""
    except Exception:  # a crash is a result
        return page.id, ""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("sets", nargs="*")
    ap.add_argument("--pattern", default="comment")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in a.sets or SET_NAMES:
        _, pages = load_truth(benchmarks_dir() / name)
        res = dict(map_pages(partial(job, pattern=a.pattern), pages, a.jobs))
        (out / f"{name}.json").write_text(json.dumps(res, ensure_ascii=False, sort_keys=True))


if __name__ == "__main__":
    main()
