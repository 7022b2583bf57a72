"""One Chromium for many pages: a fresh context per page, bounded concurrency, periodic relaunch.

A context per page means no cookies, storage or service workers leak from one page into the next. Long runs
of headless Chromium grow (renderer caches, leaked processes): the browser is relaunched after
``recycle_after`` pages, or earlier when its processes use more than ``max_browser_rss_mb``; pages in flight
finish first. Every context refuses what a page may ask for without the user: downloads are cancelled,
popups closed, dialogs dismissed, permission requests denied (no permission is ever granted).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from .options import BROWSER_ARGS, RenderOptions


@dataclass
class Refusals:
    """What a page asked for and did not get (reported in the result)."""

    popups: int = 0
    dialogs: int = 0
    downloads: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"popups": self.popups, "dialogs": self.dialogs, "downloads": self.downloads}


@dataclass
class PoolStats:
    """Counted, never timed: what the pool did (tests and ``bench_render.py`` read it)."""

    pages: int = 0
    launches: int = 0
    rss_mb: list[float] = field(default_factory=list)  # browser memory at each relaunch check
    # relaunches by reason: "pages" (recycle_after reached), "memory" (over max_browser_rss_mb),
    # "disconnected" (the browser died or a context could not be closed)
    recycled: dict[str, int] = field(default_factory=dict)


def _playwright() -> Any:
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        raise InputError("render mode needs Playwright: pip install 'readwell[render]'") from None
    return async_playwright


def process_tree_rss_mb(root_pid: int | None = None) -> float | None:
    """Memory (MB) of all descendants of ``root_pid`` (default: this process), from /proc.

    Playwright starts its driver as our child and Chromium under it, so this sums the driver, the browser
    and its renderers. Proportional set size (``Pss`` in smaps_rollup) where the kernel has it: Chromium's
    processes share most of their pages, and summing plain RSS counts those once per process. None where
    /proc is not available.
    """
    root_pid = os.getpid() if root_pid is None else root_pid
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return None
    children: dict[int, list[int]] = {}
    for e in entries:
        try:
            with open(f"/proc/{e}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(e))
    total_kb = 0
    stack = list(children.get(root_pid, []))
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        total_kb += _memory_kb(pid)
    return total_kb / 1024


def _memory_kb(pid: int) -> int:
    for path, key in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
        try:
            with open(path, encoding="ascii", errors="replace") as fh:
                for line in fh:
                    if line.startswith(key):
                        return int(line.split()[1])
        except OSError:
            continue
    return 0


class BrowserPool:
    """``async with BrowserPool(opts) as pool: async with pool.page() as (page, refusals): ...``"""

    def __init__(self, opts: RenderOptions) -> None:
        self.opts = opts
        self.stats = PoolStats()
        self._pw: Any = None
        self._pw_cm: Any = None
        self._browser: Any = None
        self._since_launch = 0
        self._broken = False
        self._active = 0
        self._slots = asyncio.Semaphore(opts.jobs)
        self._idle = asyncio.Condition()

    async def __aenter__(self) -> BrowserPool:
        if not os.path.exists(self.opts.chromium):
            raise InputError(f"no Chromium at {self.opts.chromium} (set READWELL_CHROMIUM or --chromium)")
        self._pw_cm = _playwright()()
        self._pw = await self._pw_cm.__aenter__()
        await self._launch()
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            if self._browser is not None:
                await self._browser.close()
        finally:
            self._browser = None
            await self._pw_cm.__aexit__(*exc)

    async def _launch(self) -> None:
        self._browser = await self._pw.chromium.launch(
            executable_path=self.opts.chromium, headless=True, args=[*BROWSER_ARGS, *self.opts.browser_args]
        )
        self._since_launch = 0
        self._broken = False
        self.stats.launches += 1

    def _recycle_reason(self) -> str | None:
        """Why the browser should be relaunched before the next page, or None."""
        if not self._browser.is_connected() or self._broken:
            return "disconnected"
        if self._since_launch >= self.opts.recycle_after:
            return "pages"
        rss = process_tree_rss_mb()
        if rss is not None:
            self.stats.rss_mb.append(round(rss, 1))
            if rss > self.opts.max_browser_rss_mb:
                return "memory"
        return None

    async def _maybe_recycle(self) -> None:
        """Relaunch when due, once no page is open (callers hold ``_idle``)."""
        reason = None if self._since_launch == 0 else self._recycle_reason()
        if reason is None:
            return
        await self._idle.wait_for(lambda: self._active == 0)
        if self._since_launch == 0:  # another task relaunched while we waited
            return
        self.stats.recycled[reason] = self.stats.recycled.get(reason, 0) + 1
        try:
            await self._browser.close()
        except Exception:  # already gone: the relaunch is what matters
            pass
        await self._launch()

    @asynccontextmanager
    async def page(self) -> AsyncIterator[tuple[Any, Refusals]]:
        """A new page in its own context; closed (context and all) on exit."""
        async with self._slots:
            async with self._idle:
                await self._maybe_recycle()
                self._active += 1
                self._since_launch += 1
                self.stats.pages += 1
            context = None
            try:
                context = await self._browser.new_context(
                    accept_downloads=False,
                    service_workers="block",
                    viewport={"width": self.opts.viewport_width, "height": self.opts.viewport_height},
                    user_agent=self.opts.user_agent,
                )
                refusals = Refusals()
                page = await context.new_page()
                _refuse(context, page, refusals)
                yield page, refusals
            finally:
                if context is not None:
                    try:
                        await context.close()
                    except Exception:  # a crashed browser: the relaunch check replaces it
                        self._broken = True
                async with self._idle:
                    self._active -= 1
                    self._idle.notify_all()


def _refuse(context: Any, page: Any, refusals: Refusals) -> None:
    """Popups are closed, dialogs dismissed, downloads cancelled (the context does not accept them)."""

    async def close_popup(p: Any) -> None:
        if p is page:
            return
        refusals.popups += 1
        try:
            await p.close()
        except Exception:  # already gone
            pass

    async def dismiss(d: Any) -> None:
        refusals.dialogs += 1
        try:
            await d.dismiss()
        except Exception:  # the page navigated away meanwhile
            pass

    def count_download(_d: Any) -> None:
        refusals.downloads += 1

    context.on("page", close_popup)
    page.on("dialog", dismiss)
    page.on("download", count_download)
