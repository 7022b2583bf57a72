"""Speed of the extension in headless Chromium: time from the reader command to the article being shown,
cold (first use in a fresh browser) and warm (later pages), the longest main-thread task the page saw, and
Readability.js 0.6.0 (node_modules/@mozilla/readability) injected into the same tabs as the peer figure.
Also measures the alternative we rejected: Pyodide loaded in the content script (page main thread).

    python build_scripts/bench_extension.py [--json out/bench-extension.json] [--rounds 3]

Pages: the bundled example fixture and two median-sized real pages from shared/benchmarks/scrapinghub when
present. Needs `make build`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extension_harness import FixtureServer, extension_browser, tab_id  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
READABILITY = ROOT / "node_modules" / "@mozilla" / "readability" / "Readability.js"
CORPUS = Path("/work/shared/benchmarks/scrapinghub/html")

LONGTASKS = """(() => { window.__rwLong = []; try { new PerformanceObserver((l) => { for (const e of l.getEntries())
  window.__rwLong.push(e.duration); }).observe({ type: 'longtask', buffered: true }); } catch (e) {} })();"""
READER = """async (tab) => { const t0 = performance.now(); const r = await self.readwell.reader(tab);
  return { ms: performance.now() - t0, found: r.found, snapshotMs: r.snapshotMs }; }"""
PAGE_ENGINE = """async (tab) => { const t0 = performance.now();
  const r = await chrome.tabs.sendMessage(tab, { to: 'content', cmd: 'extract', options: { engine: 'page' } });
  return { ms: performance.now() - t0, engine: r.value ? r.value.engine : r.error }; }"""
READABILITY_RUN = """() => { const t0 = performance.now(); const a = new Readability(document.cloneNode(true)).parse();
  return { ms: performance.now() - t0, found: !!a, chars: a ? a.textContent.length : 0 }; }"""


def pages() -> dict[str, tuple[str, bytes]]:
    out = {"/news.html": ("text/html", (ROOT / "fixtures" / "core--news-article-basic.html").read_bytes())}
    if CORPUS.is_dir():
        files = sorted(CORPUS.glob("*.html.gz"), key=lambda p: (p.stat().st_size, p.name))
        mid = len(files) // 2
        for i, p in enumerate(files[mid:mid + 4]):
            out[f"/real{i}.html"] = ("text/html; charset=utf-8", gzip.decompress(p.read_bytes()))
    return out


def longest(page) -> float:
    page.wait_for_timeout(250)  # long-task entries are delivered asynchronously
    vals = page.evaluate("() => window.__rwLong || []")
    return max(vals) if vals else 0.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-page-engine", action="store_true", help="skip the content-script Pyodide measurement")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    routes = pages()
    order = [p for p in routes if p != "/news.html"] + ["/news.html"]
    report: dict = {"pages": {p: len(b) for p, (_, b) in routes.items()}}
    with FixtureServer(routes) as srv, sync_playwright() as pw, tempfile.TemporaryDirectory() as td:
        td = Path(td)
        (td / "dl").mkdir()
        with extension_browser(pw, td / "profile", td / "dl") as (ctx, sw, _):
            ctx.add_init_script(script=LONGTASKS)
            page = ctx.new_page()
            page.set_default_timeout(120000)

            def open_(path):
                url = srv.base + path
                page.goto(url, wait_until="load")
                page.wait_for_timeout(300)  # let the page's own start-up long tasks pass
                page.evaluate("() => { window.__rwLong = []; }")
                return tab_id(sw, url)

            def readability():
                if not READABILITY.is_file():
                    return None
                page.add_script_tag(path=str(READABILITY))
                return page.evaluate(READABILITY_RUN)

            # cold: first use in this fresh browser (engine not loaded, offscreen document not created)
            first = order[0]
            tid = open_(first)
            cold = sw.evaluate(READER, tid)
            cold["longest_task_ms"] = longest(page)
            cold["page"] = first
            cold["readability"] = readability()
            report["cold"] = cold
            warm = []
            for r in range(args.rounds):
                for path in order[1:] if r == 0 else order:
                    tid = open_(path)
                    w = sw.evaluate(READER, tid)
                    w["longest_task_ms"] = longest(page)
                    w["page"] = path
                    w["readability"] = readability()
                    warm.append(w)
            report["warm"] = warm
            if not args.no_page_engine:
                tid = open_(order[0])
                sw.evaluate("async (t) => chrome.scripting.executeScript({target: {tabId: t}, files: "
                            "['snapshot.js', 'safe_dom.js', 'reader.js', 'overlay.js', 'content.js']})", tid)
                pe = sw.evaluate(PAGE_ENGINE, tid)
                pe["longest_task_ms"] = longest(page)
                page.evaluate("() => { window.__rwLong = []; }")
                pe2 = sw.evaluate(PAGE_ENGINE, tid)
                pe2["longest_task_ms"] = longest(page)
                report["page_engine"] = {"cold": pe, "second_call": pe2}
    warm_ms = [w["ms"] for w in report["warm"]]
    rd = [w["readability"]["ms"] for w in report["warm"] if w.get("readability")]
    summary = {
        "cold_reader_ms": round(report["cold"]["ms"]),
        "cold_longest_task_ms": round(report["cold"]["longest_task_ms"]),
        "warm_reader_ms_median": round(statistics.median(warm_ms)),
        "warm_reader_ms_max": round(max(warm_ms)),
        "warm_longest_task_ms_max": round(max(w["longest_task_ms"] for w in report["warm"])),
        "readability_ms_median": round(statistics.median(rd), 1) if rd else None,
        "readability_ms_max": round(max(rd), 1) if rd else None,
    }
    if "page_engine" in report:
        summary["page_engine_cold_ms"] = round(report["page_engine"]["cold"]["ms"])
        summary["page_engine_longest_task_ms"] = round(report["page_engine"]["cold"]["longest_task_ms"])
        summary["page_engine_warm_longest_task_ms"] = round(report["page_engine"]["second_call"]["longest_task_ms"])
    report["summary"] = summary
    print("readwell extension (reader command -> article shown; longest main-thread task seen by the page)")
    for w in [report["cold"], *report["warm"]]:
        rdb = w.get("readability") or {}
        print(f"  {'cold' if w is report['cold'] else 'warm'} {w['page']:<12} {w['ms']:7.0f} ms  longest task "
              f"{w['longest_task_ms']:5.0f} ms  snapshot {w.get('snapshotMs') or 0:5.1f} ms  "
              f"| Readability.js {rdb.get('ms', float('nan')):6.1f} ms")
    for k, v in summary.items():
        print(f"  {k}: {v}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
