"""Two builds of the extension side by side in one headless Chromium: warm reader views alternated between
them on the same tabs, so both see the same load (on a shared machine, sequential runs of bench_extension.py
move 2-3x between runs; a ratio or phase difference from one interleaved run is what can be trusted).

    python build_scripts/bench_extension_ab.py BASE_DIR [NEW_DIR] [--rounds 6]

BASE_DIR / NEW_DIR: unpacked extensions (NEW_DIR defaults to build/extension), e.g. a copy of main's
build/extension. Pages: bench_extension.py's four real pages. Prints, per content.js phase, the median and
minimum of each build (phases a build does not report are left blank) and Readability.js in the same tabs.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import bench_extension as be
from extension_harness import BROWSER_ARGS, CHROMIUM, EXTENSION, FixtureServer, tab_id

READY = "() => new Promise((r) => { const t = () => self.readwell ? r(true) : setTimeout(t, 50); t(); })"


def unpacked_id(ext_dir: Path) -> str:
    """Chromium's id for an unpacked extension: its absolute path's SHA-256, first 16 bytes as a-p."""
    digest = hashlib.sha256(str(ext_dir).encode()).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", type=Path)
    ap.add_argument("new", type=Path, nargs="?", default=EXTENSION)
    ap.add_argument("--rounds", type=int, default=6, help="views per page and build (the first is a warm-up)")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    exts = [args.base.resolve(), args.new.resolve()]
    ids = [unpacked_id(e) for e in exts]
    routes = be.pages()
    order = [p for p in routes if p != "/news.html"]
    res: list[dict[str, list[float]]] = [{}, {}]
    rd: list[float] = []
    with FixtureServer(routes) as srv, sync_playwright() as pw, tempfile.TemporaryDirectory() as td:
        joined = ",".join(map(str, exts))
        ctx = pw.chromium.launch_persistent_context(
            str(Path(td) / "profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=[f"--disable-extensions-except={joined}", f"--load-extension={joined}", *BROWSER_ARGS],
        )
        try:
            deadline = time.monotonic() + 60
            # Wait for both extensions' workers by id: a worker that restarts is listed twice, so a count of
            # two does not mean both have started.
            by_id: dict = {}
            while not set(ids) <= by_id.keys() and time.monotonic() < deadline:
                time.sleep(0.2)
                by_id = {sw.url.split("/")[2]: sw for sw in ctx.service_workers}
            missing = [str(e) for e, i in zip(exts, ids, strict=True) if i not in by_id]
            if missing:
                raise SystemExit(f"bench_extension_ab: no service worker started for {', '.join(missing)}")
            sws = [by_id[i] for i in ids]
            for sw in sws:
                sw.evaluate(READY)
                sw.evaluate("async () => self.readwell.warm()")
            page = ctx.new_page()
            page.set_default_timeout(120000)
            for rnd in range(args.rounds):
                for n, path in enumerate(order):
                    url = srv.base + path
                    page.goto(url, wait_until="load")
                    page.wait_for_timeout(150)
                    tid = tab_id(sws[0], url)
                    for k in (0, 1) if (rnd + n) % 2 == 0 else (1, 0):
                        w = sws[k].evaluate(be.READER, tid)
                        painted = sws[k].evaluate(be.PAINTED, tid)
                        sws[k].evaluate(be.READER, tid)  # close it: the other build's snapshot sees the page
                        if rnd == 0:
                            continue
                        ph = dict(w["phases"], total=w["ms"], sw=w["ms"] - w["inner"])
                        if painted is not None:
                            ph["painted"] = w["ms"] - w["inner"] + painted
                        for key, v in ph.items():
                            if isinstance(v, (int, float)):
                                res[k].setdefault(key, []).append(v)
                    if rnd and be.READABILITY.is_file():
                        page.add_script_tag(path=str(be.READABILITY))
                        rd.append(page.evaluate(be.READABILITY_RUN)["ms"])
        finally:
            ctx.close()

    def cell(v: list[float]) -> str:
        return f"{statistics.median(v):7.1f} /{min(v):6.1f}" if v else " " * 15

    print(f"{'phase (median / min, ms)':>26}  {'base':>15}  {'new':>15}")
    for key in dict.fromkeys([*res[0], *res[1]]):
        print(f"{key:>26}  {cell(res[0].get(key, []))}  {cell(res[1].get(key, []))}")
    if rd:
        r = statistics.median(rd)
        a, b = (statistics.median(x["total"]) / r for x in res)
        print(f"Readability.js median {r:.1f} ms; total / Readability.js: base {a:.2f}x, new {b:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
