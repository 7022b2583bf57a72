"""Parser parity on the development corpus: the share of pages whose extracted text is identical with
html5lib and with the fast parser (lexbor), per set and overall (issue 11 wants >= 99%).

    python benchmarks/parity.py [--sets DIR ...] [--limit N] [--show N]      # or: make bench-parity

Both parsers get the page's bytes, so encoding sniffing is compared too. For differing pages it prints the
page id and where the texts part (character offset, and how many characters each side has), never the
pages' text: the corpus stays out of the repository and its logs. The difference classes are explained,
with synthetic inputs, in tests/test_parse_fast.py and benchmarks/PARSERS.md.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SETS = sorted(p.parent for p in (ROOT.parent / "shared" / "benchmarks").glob("*/ground-truth.json"))


def extract_text(raw: bytes, parser: str) -> str:
    import readwell

    os.environ["READWELL_PARSER"] = parser
    try:
        return readwell.extract(raw).text
    except Exception as exc:  # a crash is a result
        return f"<{type(exc).__name__}>"


def first_difference(a: str, b: str) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="*", type=Path, default=DEFAULT_SETS, help="benchmark set folders")
    ap.add_argument("--limit", type=int, default=None, help="first N pages of each set")
    ap.add_argument("--show", type=int, default=50, help="list at most N differing pages")
    a = ap.parse_args(argv)
    from readwell.parse import fast_parser

    if fast_parser() is None:
        print("the fast parser is not installed: pip install -e '.[fast]'", file=sys.stderr)
        return 2
    if not a.sets:
        print("no benchmark sets found: pass --sets DIR ...", file=sys.stderr)
        return 2
    total = same = 0
    shown = 0
    for folder in a.sets:
        paths = sorted((folder / "html").glob("*.html*"))[: a.limit]
        n_same = 0
        for path in paths:
            raw = path.read_bytes()
            raw = gzip.decompress(raw) if path.suffix == ".gz" else raw
            slow, fast = extract_text(raw, "html5lib"), extract_text(raw, "fast")
            if slow == fast:
                n_same += 1
            elif shown < a.show:
                shown += 1
                at = first_difference(slow, fast)
                print(f"  differs: {folder.name}/{path.name.split('.')[0]} at char {at}", end="")
                print(f" (html5lib {len(slow)} chars, fast {len(fast)} chars)", flush=True)
        total += len(paths)
        same += n_same
        pct = 100 * n_same / len(paths) if paths else 100.0
        print(f"{folder.name:<18} {n_same:>5}/{len(paths):<5} identical text  {pct:6.2f}%", flush=True)
    print(f"{'all':<18} {same:>5}/{total:<5} identical text  {100 * same / max(total, 1):6.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
