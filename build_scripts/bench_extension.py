"""Speed of the extension in headless Chromium: time from the reader command to the article being shown,
cold (first use in a fresh browser) and warm (later pages), the longest main-thread task the page saw, and
Readability.js 0.6.0 (node_modules/@mozilla/readability) injected into the same tabs as the peer figure.
Also measures the alternative we rejected: Pyodide loaded in the content script (page main thread).

Cold is measured the way a user sees it: a fresh browser (new profile: the extension is installed and
pre-warms its engine), a page loaded, then the reader command, either right away ("cold_0s") or 3 s after the
browser started ("cold_3s"); each in its own fresh browser, --cold-rounds times. "cold_unwarmed" is the engine
loaded by the command itself (engine document closed first), i.e. what a first command cost before the
pre-warm.

    python build_scripts/bench_extension.py [--json out/bench-extension.json] [--rounds 3] [--cold-rounds 2]

Pages: the bundled example fixture and the four median-sized real pages of shared/benchmarks/scrapinghub when
present. Warm runs also print where the time went (content.js phases: remembered-root lookup, snapshot, engine
(Python in the engine document), the message round trip to it (toEngine / fromEngine: the way there and
back), reading the reply, showing the reader; "sw" is what the service worker's side adds) and "painted": the
command until the first frame with the reader has been painted (the page's style and layout work included;
"article shown" ends when the reader is in the DOM). Needs `make build`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from extension_harness import EXTENSION, FixtureServer, extension_browser, tab_id

ROOT = Path(__file__).resolve().parent.parent
READABILITY = ROOT / "node_modules" / "@mozilla" / "readability" / "Readability.js"
# the shared benchmark sets sit beside the repository (../shared), as for readwell.bench
CORPUS = ROOT.parent / "shared" / "benchmarks" / "scrapinghub" / "html"

LONGTASKS = """(() => { window.__rwLong = []; try { new PerformanceObserver((l) => {
  for (const e of l.getEntries()) window.__rwLong.push(e.duration);
}).observe({ type: 'longtask', buffered: true }); } catch (e) {} })();"""
READER = """async (tab) => { const t0 = performance.now(); const r = await self.readwell.reader(tab);
  return { ms: performance.now() - t0, found: r.found, snapshotMs: r.snapshotMs, phases: r.phases,
    inner: r.ms }; }"""
PAGE_ENGINE = """async (tab) => { const t0 = performance.now();
  const r = await chrome.tabs.sendMessage(tab,
    { to: 'content', cmd: 'extract', options: { engine: 'page' } });
  return { ms: performance.now() - t0, engine: r.value ? r.value.engine : r.error }; }"""
# command -> the first frame with the reader painted (the page's style and layout work included), read from
# the content script once the command has returned
PAINTED = """async (tab) => (await chrome.scripting.executeScript({ target: { tabId: tab },
  func: () => globalThis.__readwell.content.painted }))[0].result"""
READABILITY_RUN = """() => { const t0 = performance.now();
  const a = new Readability(document.cloneNode(true)).parse();
  return { ms: performance.now() - t0, found: !!a, chars: a ? a.textContent.length : 0 }; }"""


def pages() -> dict[str, tuple[str, bytes]]:
    out = {"/news.html": ("text/html", (ROOT / "fixtures" / "core--news-article-basic.html").read_bytes())}
    if CORPUS.is_dir():
        files = sorted(CORPUS.glob("*.html.gz"), key=lambda p: (p.stat().st_size, p.name))
        mid = len(files) // 2
        for i, p in enumerate(files[mid : mid + 4]):
            out[f"/real{i}.html"] = ("text/html; charset=utf-8", gzip.decompress(p.read_bytes()))
    return out


def longest(page) -> float:
    page.wait_for_timeout(250)  # long-task entries are delivered asynchronously
    vals = page.evaluate("() => window.__rwLong || []")
    return max(vals) if vals else 0.0


STATUS = "async () => self.readwell.status()"
PHASES = ("siteRoot", "snapshot", "engine", "transfer", "toEngine", "fromEngine", "parse", "show")


def cold_run(pw, srv, path: str, delay_s: float, ext: Path) -> dict:
    """A fresh browser and profile; load `path`; at `delay_s` after launch (or right after the load, if later)
    send the reader command. Times: launch -> service worker ready, page load, command -> article shown."""
    with tempfile.TemporaryDirectory() as td:
        td = Path(td)
        (td / "dl").mkdir()
        t0 = time.monotonic()
        with extension_browser(pw, td / "profile", td / "dl", ext) as (ctx, sw, _):
            t_sw = time.monotonic()
            ctx.add_init_script(script=LONGTASKS)
            page = ctx.new_page()
            page.set_default_timeout(120000)
            url = srv.base + path
            page.goto(url, wait_until="load")
            t_loaded = time.monotonic()
            wait = t0 + delay_s - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            page.evaluate("() => { window.__rwLong = []; }")
            before = sw.evaluate(STATUS)
            t_cmd = time.monotonic()
            r = sw.evaluate(READER, tab_id(sw, url))
            r["longest_task_ms"] = longest(page)
            eng = sw.evaluate(STATUS)["engine"] or {}
            r.update(
                page=path,
                delay_s=delay_s,
                sw_ready_ms=(t_sw - t0) * 1000,
                page_load_ms=(t_loaded - t_sw) * 1000,
                command_at_ms=(t_cmd - t0) * 1000,
                engine_state_at_command=(before["engine"] or {}).get("state"),
                engine_load_ms=eng.get("loadMs"),
                from_snapshot=eng.get("fromSnapshot"),
                prewarm=(before.get("prewarm") or {}).get("reason"),
                warm_ups=(before["engine"] or {}).get("warmUps"),
            )
            return r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cold-rounds", type=int, default=2, help="fresh browsers per cold variant")
    ap.add_argument(
        "--ext", type=Path, default=EXTENSION, help="the unpacked extension (default build/extension)"
    )
    ap.add_argument(
        "--no-page-engine", action="store_true", help="skip the content-script Pyodide measurement"
    )
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    routes = pages()
    order = [p for p in routes if p != "/news.html"] + ["/news.html"]
    report: dict = {"pages": {p: len(b) for p, (_, b) in routes.items()}}
    with FixtureServer(routes) as srv, sync_playwright() as pw, tempfile.TemporaryDirectory() as td:
        td = Path(td)
        (td / "dl").mkdir()
        # the small local fixture loads at once (the command comes ~1 s after launch: the worst case for the
        # pre-warm); a real page takes longer to load, which gives the engine time
        cold_pages = ["/news.html"] + [p for p in order[:1] if p != "/news.html"]
        for delay in (0.0, 3.0):
            report[f"cold_{delay:.0f}s"] = [
                cold_run(pw, srv, page, delay, args.ext)
                for _ in range(args.cold_rounds)
                for page in cold_pages
            ]
        with extension_browser(pw, td / "profile", td / "dl", args.ext) as (ctx, sw, _):
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

            # unwarmed: the engine document closed, so the command loads the engine itself (no pre-warm)
            first = order[0]
            tid = open_(first)
            page.wait_for_timeout(2000)  # let the browser start-up work settle
            sw.evaluate("async () => self.readwell.unload()")
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
                    # the service worker's side, then the content script's time to the painted frame
                    w["painted_ms"] = w["ms"] - w["inner"] + sw.evaluate(PAINTED, tid)
                    w["longest_task_ms"] = longest(page)
                    w["page"] = path
                    w["readability"] = readability()
                    warm.append(w)
            report["warm"] = warm
            if not args.no_page_engine:
                tid = open_(order[0])
                sw.evaluate(
                    "async (t) => chrome.scripting.executeScript({target: {tabId: t}, files: ['messages.js', "
                    "'snapshot.js', 'safe_dom.js', 'reader.js', 'overlay.js', 'content.js']})",
                    tid,
                )
                pe = sw.evaluate(PAGE_ENGINE, tid)
                pe["longest_task_ms"] = longest(page)
                page.evaluate("() => { window.__rwLong = []; }")
                pe2 = sw.evaluate(PAGE_ENGINE, tid)
                pe2["longest_task_ms"] = longest(page)
                report["page_engine"] = {"cold": pe, "second_call": pe2}
    warm_ms = [w["ms"] for w in report["warm"]]
    phases = {k: [w["phases"][k] for w in report["warm"] if w.get("phases")] for k in PHASES}
    phases["sw"] = [w["ms"] - w["inner"] for w in report["warm"] if w.get("inner") is not None]
    rd = [w["readability"]["ms"] for w in report["warm"] if w.get("readability")]
    c0, c3 = report["cold_0s"], report["cold_3s"]
    summary = {
        "cold_0s_reader_ms": {c["page"]: [round(x["ms"]) for x in c0 if x["page"] == c["page"]] for c in c0},
        "cold_3s_reader_ms": {c["page"]: [round(x["ms"]) for x in c3 if x["page"] == c["page"]] for c in c3},
        "cold_0s_command_after_launch_ms": {
            c["page"]: [round(x["command_at_ms"]) for x in c0 if x["page"] == c["page"]] for c in c0
        },
        "cold_engine_load_ms": [round(c["engine_load_ms"] or 0) for c in c0 + c3],
        "cold_from_snapshot": all(c["from_snapshot"] for c in c0 + c3),
        "cold_longest_task_ms": round(max(c["longest_task_ms"] for c in c0 + c3)),
        "cold_unwarmed_reader_ms": round(report["cold"]["ms"]),
        "warm_reader_ms_median": round(statistics.median(warm_ms)),
        "warm_reader_ms_max": round(max(warm_ms)),
        "warm_longest_task_ms_max": round(max(w["longest_task_ms"] for w in report["warm"])),
        "readability_ms_median": round(statistics.median(rd), 1) if rd else None,
        "readability_ms_max": round(max(rd), 1) if rd else None,
        "warm_vs_readability": round(statistics.median(warm_ms) / statistics.median(rd), 1) if rd else None,
        "warm_painted_ms_median": round(statistics.median([w["painted_ms"] for w in report["warm"]])),
        "warm_snapshot_ms_median": round(statistics.median([w["snapshotMs"] for w in report["warm"]]), 1),
        "warm_phase_ms_median": {k: round(statistics.median(v), 1) for k, v in phases.items() if v},
    }
    if "page_engine" in report:
        summary["page_engine_cold_ms"] = round(report["page_engine"]["cold"]["ms"])
        summary["page_engine_longest_task_ms"] = round(report["page_engine"]["cold"]["longest_task_ms"])
        summary["page_engine_warm_longest_task_ms"] = round(
            report["page_engine"]["second_call"]["longest_task_ms"]
        )
    report["summary"] = summary
    print("readwell extension (reader command -> article shown; longest main-thread task seen by the page)")
    for c in c0 + c3:
        print(
            f"  cold {c['delay_s']:.0f}s {c['page']:<12} {c['ms']:7.0f} ms  "
            f"(command {c['command_at_ms']:5.0f} ms after launch: sw {c['sw_ready_ms']:4.0f} ms "
            f"+ page load {c['page_load_ms']:4.0f} ms; engine {c['engine_state_at_command']} at command, "
            f"loaded in {c['engine_load_ms'] or 0:4.0f} ms, snapshot {c['from_snapshot']}, "
            f"pre-warm {c['prewarm']}, engine warm-ups before the command {c['warm_ups']})  "
            f"longest task {c['longest_task_ms']:4.0f} ms"
        )
    for w in [report["cold"], *report["warm"]]:
        rdb = w.get("readability") or {}
        print(
            f"  {'unwarmed' if w is report['cold'] else 'warm'} {w['page']:<12} {w['ms']:7.0f} ms  "
            f"longest task {w['longest_task_ms']:5.0f} ms  snapshot {w.get('snapshotMs') or 0:5.1f} ms  "
            f"engine {(w.get('phases') or {}).get('engine') or 0:6.1f} ms  "
            f"painted {w.get('painted_ms') or 0:5.0f} ms  "
            f"| Readability.js {rdb.get('ms', float('nan')):6.1f} ms"
        )
    for k, v in summary.items():
        print(f"  {k}: {v}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
