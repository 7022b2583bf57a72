"""Render-mode settings: one object, grouped, each default with its reason.

Times are milliseconds, sizes CSS pixels. The CLI and the configuration file (config.py) fill the same fields.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any

from ..errors import InputError
from ..selectors import compile_selector
from .blocks import Thresholds, Weights

CHROMIUM = "/usr/bin/chromium"  # Debian's package; Playwright's own browser download is never used
# Headless without the sandbox (containers run as root), and nothing the page did not ask for: no GPU process,
# no background update/sync/metrics traffic, no first-run UI.
BROWSER_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
)


@dataclass
class RenderOptions:
    """How a page is loaded, settled and recycled."""

    # -- time
    timeout_ms: int = 30_000  # whole page: navigation, settling, scrolling, clicking; then status "timeout"
    settle_ms: int = 500  # quiet window: no DOM mutation and no request in flight for this long = settled
    # a request open longer than this no longer blocks settling: long polling, beacons and hanging trackers
    # would otherwise turn every page that uses them into a timeout
    stale_request_ms: int = 5_000
    # one-shot timers due this soon when the page first looks quiet are waited for once (shells that build the
    # article in a setTimeout); later timers and polling loops are not chased
    timer_horizon_ms: int = 3_000
    # -- lazy content
    scroll: bool = True
    max_scroll_steps: int = 40  # one step = one viewport height; caps infinite lists
    max_scroll_height: int = 60_000  # px; a page taller than this stops growing our way (infinite feeds)
    scroll_step_wait_ms: int = 2_000  # longest wait for quiet after one step (a busy page still moves on)
    # -- "show more" / expand controls inside the chosen root (off: clicking changes the page)
    show_more: bool = False
    max_show_more_clicks: int = 5
    # -- browser
    viewport_width: int = 1280
    viewport_height: int = 800
    jobs: int = 2  # pages rendered at once (one context each)
    recycle_after: int = 100  # pages per browser process before it is relaunched (leaks stay bounded)
    max_browser_rss_mb: int = 1_500  # relaunch earlier when the browser's processes grow past this
    chromium: str = field(default_factory=lambda: os.environ.get("READWELL_CHROMIUM", CHROMIUM))
    user_agent: str | None = None  # None: Chromium's own
    browser_args: tuple[str, ...] = ()  # extra Chromium switches (tests confine it to 127.0.0.1 this way)
    # -- retries: navigation errors, timeouts and 5xx answers, never 4xx; waits grow base x 2^n with jitter
    retries: int = 2
    retry_base_ms: int = 500
    retry_max_ms: int = 10_000
    # -- the CLI's on-disk cache of fully rendered pages (readwell.render.cache); 0 = off; "" = default path
    cache_ttl_s: int = 3_600
    cache_path: str = ""
    # -- what is read
    # elements matching these CSS selectors are dropped from the snapshot before extraction (a site's own
    # widgets the rules miss); the core's selector engine, so the same syntax as --selector
    remove_selectors: tuple[str, ...] = ()
    # -- layout analysis (readwell.render.blocks): segmentation thresholds and importance weights
    blocks: Thresholds = field(default_factory=Thresholds)
    weights: Weights = field(default_factory=Weights)

    def validate(self) -> RenderOptions:
        """Clear errors for values that would hang or make no sense."""
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, int) and not isinstance(v, bool) and v < 0:
                raise InputError(f"render option {f.name} must not be negative (got {v})")
        if self.timeout_ms < 100:
            raise InputError("render timeout must be at least 100 ms")
        if self.jobs < 1 or self.recycle_after < 1:
            raise InputError("jobs and recycle_after must be at least 1")
        if self.viewport_width < 100 or self.viewport_height < 100:
            raise InputError("viewport must be at least 100x100")
        for sel in self.remove_selectors:
            compile_selector(sel)  # a bad selector is an InputError now, not in the middle of a run
        return self

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
