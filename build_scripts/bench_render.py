"""Render mode over many pages: memory of the browser's process tree and of this process, pages per second.

Serves fixtures/ from 127.0.0.1 (every other host name fails to resolve), renders ``--pages`` URLs cycling
through them with one BrowserPool, and prints the RSS of Chromium (+ Playwright's driver) and of Python every
``--every`` pages. Growth is reported, not asserted: the machine is shared and noisy.

    python3 build_scripts/bench_render.py --pages 200 --jobs 2 [--recycle-after 100]   (make bench-render)

Also printed: relaunches by reason (counted by the pool: "pages", "memory", "disconnected") and the
Chromium processes still alive after the pool closed (a leak if not 0).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import time
from pathlib import Path

from extension_harness import FixtureServer
from readwell.render import RenderOptions
from readwell.render.browser import BrowserPool, process_tree_rss_mb
from readwell.render.run import render_page

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def self_rss_mb() -> float:
    """Current RSS of this process (Linux /proc; max RSS elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run(a: argparse.Namespace, base: str) -> None:
    names = sorted(p.name for p in FIXTURES.glob("*.html"))
    opts = RenderOptions(
        settle_ms=a.settle_ms,
        scroll=not a.no_scroll,
        jobs=a.jobs,
        recycle_after=a.recycle_after,
        browser_args=("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",),
    )
    rows: list[tuple[int, float, float]] = []
    t0 = time.monotonic()
    recycled: dict[str, int] = {}
    statuses: dict[str, int] = {}
    async with BrowserPool(opts) as pool:
        for start in range(0, a.pages, a.every):
            urls = [f"{base}/f/{names[i % len(names)]}" for i in range(start, min(a.pages, start + a.every))]
            for r in await asyncio.gather(*(render_page(pool, u) for u in urls)):
                statuses[r.status] = statuses.get(r.status, 0) + 1
            rows.append((start + len(urls), process_tree_rss_mb() or 0.0, self_rss_mb()))
            print(
                f"{rows[-1][0]:5d} pages {time.monotonic() - t0:6.1f} s  browser {rows[-1][1]:7.1f} MB  "
                f"python {rows[-1][2]:6.1f} MB  launches {pool.stats.launches}",
                flush=True,
            )
        launches = pool.stats.launches
        recycled = dict(pool.stats.recycled)
    secs = time.monotonic() - t0
    first, last = rows[0], rows[-1]
    print(
        f"{a.pages} pages in {secs:.1f} s ({a.pages / secs:.2f} pages/s, jobs {a.jobs}), "
        f"statuses {statuses}, "
        f"browser launches {launches} (relaunched by reason {recycled}); "
        f"RSS growth after the first {first[0]} "
        f"pages: browser {last[1] - first[1]:+.1f} MB, python {last[2] - first[2]:+.1f} MB; "
        f"peak browser {max(r[1] for r in rows):.1f} MB, python {max(r[2] for r in rows):.1f} MB"
    )
    print(f"browser processes left after the pool closed: {leftover_browsers()}")


def leftover_browsers() -> int:
    """Chromium processes still descending from this one (0 unless the pool leaked a browser)."""
    import os

    mine = {os.getpid()}
    count = 0
    for pid in sorted(int(e) for e in os.listdir("/proc") if e.isdigit()):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid in mine:
            mine.add(pid)
            count += "chrom" in name
    return count


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pages", type=int, default=200)
    p.add_argument("--every", type=int, default=25)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--settle-ms", type=int, default=200)
    p.add_argument("--no-scroll", action="store_true")
    p.add_argument("--recycle-after", type=int, default=RenderOptions().recycle_after)
    a = p.parse_args()
    with FixtureServer() as srv:
        asyncio.run(run(a, srv.base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
