"""The reader's own DOM work, old against new: ``reader.js`` ``buildPage`` (``safe_dom.js``'s allow-list copy
of the article, line-break tidying, the hero check, video cards) on real pages, with this checkout's
``extension/`` and another git revision's (default ``main``) side by side in one headless Chromium, calls
interleaved so that machine load hits both alike. Prints per-page medians and the ratio new/old.

What it leaves out on purpose: the engine (Python in Pyodide) and the snapshot, which dominate
``make bench-extension`` and are the same code in both; on a shared machine their noise hides a change of a
few milliseconds in the reader.

    python build_scripts/bench_reader_dom.py [--rev main] [--pages 6] [--rounds 15]
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import subprocess
from pathlib import Path

import readwell
from extension_harness import BROWSER_ARGS, CHROMIUM

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "benchmarks" / "scrapinghub" / "html"
FIXTURE = ROOT / "fixtures" / "core--news-article-basic.html"
FILES = ("safe_dom.js", "reader.js")
TIME_BUILD = """([result, reps]) => {
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) globalThis.__readwell.reader.buildPage(result, document);
  return (performance.now() - t0) / reps;
}"""


def sources(rev: str | None) -> str:
    """safe_dom.js + reader.js of git revision `rev` (None: the working tree)."""
    out = []
    for name in FILES:
        if rev is None:
            out.append((ROOT / "extension" / name).read_text("utf-8"))
        else:
            show = ["git", "-C", str(ROOT), "show", f"{rev}:extension/{name}"]
            out.append(subprocess.run(show, check=True, capture_output=True, text=True).stdout)
    return "\n".join(out)


def results(n: int) -> dict[str, dict]:
    """readwell's results (CPython) for the bundled example and n median-sized real pages."""
    got = {"news": readwell.extract(FIXTURE.read_bytes(), url="https://example.org/news").to_dict()}
    files = sorted(CORPUS.glob("*.html.gz"), key=lambda p: (p.stat().st_size, p.name))
    mid = max(0, len(files) // 2 - n // 2)
    for i, p in enumerate(files[mid : mid + n]):
        r = readwell.extract(gzip.decompress(p.read_bytes()), url=f"https://example.org/{i}").to_dict()
        if r["found"]:
            got[f"real{i}"] = r
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="main", help="the git revision to compare with (default main)")
    ap.add_argument("--pages", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--reps", type=int, default=5, help="buildPage calls per timing")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    pages = results(args.pages)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS, headless=True)
        tabs = {}
        for label, rev in (("old", args.rev), ("new", None)):
            tab = browser.new_page()
            tab.set_content("<!DOCTYPE html><html><body></body></html>")
            tab.add_script_tag(content=sources(rev))
            tabs[label] = tab
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.rounds):
            for name, result in pages.items():
                for label, tab in tabs.items():
                    ms = tab.evaluate(TIME_BUILD, [result, args.reps])
                    times.setdefault((name, label), []).append(ms)
        browser.close()
    print(f"reader buildPage, ms per call (median of {args.rounds} rounds x {args.reps} calls)")
    print(f"{'page':10} {'KB html':>8} {args.rev:>10} {'this tree':>10} {'ratio':>7}")
    ratios = []
    for name, result in pages.items():
        old = statistics.median(times[(name, "old")])
        new = statistics.median(times[(name, "new")])
        ratios.append(new / old)
        kb = len(result["content_html"]) / 1024
        print(f"{name:10} {kb:8.1f} {old:10.2f} {new:10.2f} {new / old:7.2f}")
    print(f"median ratio this tree / {args.rev}: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
