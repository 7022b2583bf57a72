"""Speed, side by side: Readwell (html5lib and the fast lexbor parser), trafilatura and readability-lxml on
the same pages in ONE interleaved run, page by page, every extractor given the same decoded text.

    python benchmarks/speed.py [--data DIR] [--limit N] [--repeat N]     # or: make bench-speed

Prints median and p95 ms per page and each median's ratio to trafilatura's (issue 11: with the fast
parser the ratio should be <= 1.0, with html5lib <= 2.5). The Readwell rows render HTML, Markdown and text,
as a default ``readwell.extract`` call does; "fast, text only" renders the one output trafilatura's default
call returns (``formats=("text",)``: no serializing, bleach or Markdown). Interleaving (the order rotates from page to page)
means load from other jobs on a shared machine hits every extractor alike; the absolute figures still move
with load, the ratios much less. Peers come from the ``bench`` extra: ``pip install -e '.[bench,fast]'``.
Numbers only: nothing here asserts a time (tests never do, see COMMON.md).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "benchmarks" / "scrapinghub"

Extractor = Callable[[str, str | None], str]


def decode(raw: bytes) -> str:
    """The characters Readwell's parser sees (html5lib's sniffing: BOM, <meta>, UTF-8, windows-1252)."""
    from html5lib._inputstream import HTMLBinaryInputStream

    kwargs: dict[str, object] = {"default_encoding": "windows-1252", "useChardet": False}
    try:
        raw.decode("utf-8")
        kwargs["likely_encoding"] = "utf-8"
    except UnicodeDecodeError:
        pass
    stream = HTMLBinaryInputStream(raw, **kwargs)
    start = stream.rawStream.tell()
    return raw[start:].decode(stream.charEncoding[0].codec_info.name, "replace")


def readwell_with(parser: str, formats: tuple[str, ...] | None = None) -> Extractor:
    """Readwell with one parser; by default all three outputs (HTML with bleach's final pass, Markdown,
    text), as ``readwell.extract`` renders them; ``formats=("text",)`` renders what trafilatura's default
    call returns, plain text (the same text: only the HTML and Markdown are not rendered)."""
    import readwell

    options = {} if formats is None else {"formats": formats}

    def run(html: str, url: str | None) -> str:
        os.environ["READWELL_PARSER"] = parser  # read by parse_html at each call
        return readwell.extract(html, url=url, **options).text

    return run


def extractors() -> tuple[dict[str, Extractor], list[str]]:
    """Every extractor that is installed, and a note for each one that is not."""
    found: dict[str, Extractor] = {"readwell (html5lib)": readwell_with("html5lib")}
    missing: list[str] = []
    from readwell.parse import fast_parser

    if fast_parser() is not None:
        found["readwell (fast: lexbor)"] = readwell_with("fast")
        found["readwell (fast, text only)"] = readwell_with("fast", ("text",))
    else:
        missing.append("readwell fast parser: pip install -e '.[fast]'")
    try:
        import trafilatura

        found["trafilatura"] = lambda html, url: (
            trafilatura.extract(html, url=url, include_comments=False) or ""
        )
    except ImportError:
        missing.append("trafilatura: pip install -e '.[bench]'")
    try:
        import lxml.html
        from readability import Document

        def readability_lxml(html: str, url: str | None) -> str:
            summary = Document(html, url=url).summary(html_partial=True)
            return str(lxml.html.fromstring(summary).text_content()) if summary.strip() else ""

        found["readability-lxml"] = readability_lxml
    except ImportError:
        missing.append("readability-lxml: pip install -e '.[bench]'")
    return found, missing


def load_pages(data: Path, limit: int | None) -> list[tuple[str, str, str | None]]:
    truth = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for path in sorted((data / "html").glob("*.html*")):
        pid = path.name.split(".")[0]
        raw = path.read_bytes()
        raw = gzip.decompress(raw) if path.suffix == ".gz" else raw
        pages.append((pid, decode(raw), (truth.get(pid) or {}).get("url")))
    return pages[:limit] if limit else pages


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="benchmark set: html/ + ground-truth.json"
    )
    ap.add_argument("--limit", type=int, default=None, help="only the first N pages")
    ap.add_argument("--repeat", type=int, default=1, help="passes over the pages (times are per page)")
    a = ap.parse_args(argv)
    if not (a.data / "ground-truth.json").is_file():
        print(f"benchmark data not found at {a.data}: pass --data DIR", file=sys.stderr)
        return 2
    pages = load_pages(a.data, a.limit)
    found, missing = extractors()
    names = list(found)
    for _, html, url in pages[:3]:  # warm-up: imports, caches, first-call costs
        for name in names:
            found[name](html, url)
    times: dict[str, list[float]] = {n: [] for n in names}
    failures: dict[str, int] = {n: 0 for n in names}
    for rep in range(a.repeat):
        for i, (pid, html, url) in enumerate(pages):
            shift = (i + rep) % len(names)
            for name in names[shift:] + names[:shift]:
                t0 = time.perf_counter()
                try:
                    found[name](html, url)
                except Exception as exc:  # a crash is a result, not a reason to stop
                    failures[name] += 1
                    print(f"  {name} {pid}: {type(exc).__name__}: {exc}", file=sys.stderr)
                times[name].append((time.perf_counter() - t0) * 1000)
    base = statistics.median(times["trafilatura"]) if "trafilatura" in times else None
    print(
        f"{len(pages)} pages x {a.repeat} from {a.data}, interleaved, same decoded text for every extractor"
    )
    print(
        f"{'extractor':<26} {'median ms':>10} {'p95 ms':>8} {'mean ms':>8} {'x trafilatura':>14}"
        f" {'errors':>6}"
    )
    for name in names:
        ms = times[name]
        med = statistics.median(ms)
        ratio = f"{med / base:.2f}" if base else "-"
        print(
            f"{name:<26} {med:>10.1f} {p95(ms):>8.1f} {statistics.fmean(ms):>8.1f} {ratio:>14}"
            f" {failures[name]:>6}"
        )
    for note in missing:
        print(f"not measured: {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
