"""Block roles of render mode against a benchmark set's gold article text (measurement only, no assertions).

    python benchmarks/render_roles.py [--set l3s-gn1] [--limit N] [--jobs 2] [--json OUT]

Each page of ``../shared/benchmarks/SET/html`` is served from 127.0.0.1 with ``Content-Security-Policy:
script-src 'none'`` (the page's scripts are inert: 2008 pages, no network) and every other host name fails
to resolve, rendered in headless Chromium, segmented into blocks (``readwell.render.blocks``). The gold of
these sets is the article text only (l3s-gn1: headline + full text), so roles are measured as where the gold
text lands, in 4-word shingles as score.py counts: ``main_content`` precision/recall against the gold, and for
every other role the share of its shingles that are gold (article text labelled as boilerplate; lower is
better) and the share of all gold it holds. ``top`` = pages whose block holding the most gold is the
main_content block. The main content block's text is what the core kept (``result.text``).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import http.server
import json
import re
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from readwell.adapters import from_snapshot
from readwell.extract import extract
from readwell.render.analyze import root_element
from readwell.render.blocks import find_blocks
from readwell.render.browser import BrowserPool
from readwell.render.options import RenderOptions
from readwell.render.page import TIMERS_JS, Requests, Settler, World

SETS = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
LOCAL_ONLY = ("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",)
WORD = re.compile(r"\w+")


def _words(text: str) -> Counter[str]:
    """4-word shingles (as score.py counts): common words alone would make any text look like gold."""
    w = [t.lower() for t in WORD.findall(text)]
    return Counter(" ".join(w[i : i + 4]) for i in range(max(0, len(w) - 3)))


def _serve(html_dir: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server API)
            f = html_dir / (self.path.strip("/") + ".html.gz")
            if "/" in self.path.strip("/") or not f.is_file():
                self.send_error(404)
                return
            body = gzip.decompress(f.read_bytes())
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")  # the sets are UTF-8 (README)
            self.send_header("Content-Security-Policy", "script-src 'none'")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


async def _one(pool: BrowserPool, url: str, gold: Counter[str]) -> dict[str, Any] | None:
    opts = pool.opts
    async with pool.page() as (page, _refusals):
        deadline = time.monotonic() + opts.timeout_ms / 1000
        world = World(page, deadline)
        settler = Settler(world, Requests(page, opts.stale_request_ms), opts, deadline)
        await page.add_init_script(TIMERS_JS)
        try:
            await page.goto(url, wait_until="domcontentloaded", timeout=opts.timeout_ms)
            await settler.quiet()
            snap = await world.snapshot()
        except Exception as exc:  # a page that breaks the browser counts as missing, with its reason
            print(f"  {url}: {type(exc).__name__}: {str(exc)[:120]}", file=sys.stderr)
            return None

    def work() -> dict[str, Any]:
        doc = from_snapshot(json.loads(snap))
        res = extract(doc, url=url)
        blocks = find_blocks(
            doc, root_element(doc, res), res.removals, res.title, res.text, opts.viewport_height, None, None
        )
        by_role: dict[str, Counter[str]] = {}
        best = ("", 0)
        for b in blocks:
            toks = _words(b.text if b.text is not None else b.el.text())
            by_role.setdefault(b.role, Counter()).update(toks)
            hit = sum((toks & gold).values())
            if hit > best[1]:
                best = (b.role, hit)
        return {
            "roles": {r: (sum(t.values()), sum((t & gold).values())) for r, t in by_role.items()},
            "top": best[0],
            "blocks": len(blocks),
        }

    return await asyncio.to_thread(work)


async def run(ids: list[str], truth: dict[str, Any], base: str, jobs: int) -> list[dict[str, Any] | None]:
    opts = RenderOptions(jobs=jobs, scroll=False, settle_ms=200, timeout_ms=20_000, browser_args=LOCAL_ONLY)
    async with BrowserPool(opts) as pool:
        golds = {i: _words(truth[i]["articleBody"]) for i in ids}
        return list(await asyncio.gather(*(_one(pool, f"{base}/{i}", golds[i]) for i in ids)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="l3s-gn1")
    ap.add_argument("--limit", type=int, default=0, help="first N pages by id (0: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write per-role totals here")
    a = ap.parse_args()
    d = SETS / a.set
    truth = json.loads((d / "ground-truth.json").read_text(encoding="utf-8"))
    ids = sorted(truth)[: a.limit or None]
    httpd, base = _serve(d / "html")
    t0 = time.monotonic()
    try:
        outs = asyncio.run(run(ids, truth, base, a.jobs))
    finally:
        httpd.shutdown()
    secs = time.monotonic() - t0
    done = [o for o in outs if o is not None]
    gold_total = sum(
        sum(_words(truth[i]["articleBody"]).values()) for i, o in zip(ids, outs, strict=True) if o
    )
    tot: dict[str, list[int]] = {}
    for o in done:
        for role, (n, hit) in o["roles"].items():
            t = tot.setdefault(role, [0, 0, 0])
            t[0] += n
            t[1] += hit
            t[2] += 1
    print(f"{a.set}: {len(done)}/{len(ids)} pages rendered in {secs:.0f} s, {gold_total} gold shingles")
    print(f"{'role':14} {'pages':>5} {'shingles':>9} {'gold in it':>10} {'share of gold':>14}")
    for role, (n, hit, pages) in sorted(tot.items(), key=lambda kv: -kv[1][0]):
        print(f"{role:14} {pages:5d} {n:9d} {hit / n if n else 0:10.3f} {hit / gold_total:14.3f}")
    m = tot.get("main_content", [0, 0, 0])
    p = m[1] / m[0] if m[0] else 0.0
    r = m[1] / gold_total if gold_total else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    top = sum(1 for o in done if o["top"] == "main_content")
    print(
        f"main_content: P {p:.3f} R {r:.3f} F1 {f:.3f}; top block is main_content on {top}/{len(done)} pages"
    )
    if a.json:
        Path(a.json).write_text(json.dumps({"pages": len(done), "gold": gold_total, "roles": tot}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
