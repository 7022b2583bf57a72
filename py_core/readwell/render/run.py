"""One rendered page: navigate, settle, scroll, snapshot, extract; optionally expand "show more" and again.

The snapshot is the extension's (snapshot.js, unchanged) and the extraction is ``readwell.extract`` on it,
so render mode and the extension agree on the same DOM. A page that never settles still gives a result:
``status: "timeout"`` with whatever the page showed at the deadline.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..adapters import from_snapshot
from ..dom import detach
from ..extract import Result, extract, make_options
from ..selectors import select
from .analyze import analyze
from .browser import BrowserPool, Refusals
from .options import RenderOptions
from .page import TIMERS_JS, Requests, Settler, World
from .screenshot import shoot

# Labels of controls that reveal more of the same article (lower-cased substring match in JS). Only inside
# the chosen root, only buttons, summaries and links that do not navigate elsewhere, each clicked once.
SHOW_MORE_LABELS = (
    "show more",
    "read more",
    "load more",
    "see more",
    "view more",
    "continue reading",
    "read the full",
    "expand",
    "mehr anzeigen",
    "weiterlesen",
    "voir plus",
    "lire la suite",
    "ver más",
    "leer más",
    "mostra di più",
    "toon meer",
    "lees meer",
)
SHOW_MORE_JS = """((sel, max, labels) => {
  const done = (globalThis.__rwClicked = globalThis.__rwClicked || new WeakSet());
  let root = null;
  try { root = sel ? document.querySelector(sel) : null; } catch (_) { root = null; }
  root = root || document.body;
  let n = 0;
  for (const el of root.querySelectorAll('button, [role="button"], summary, a')) {
    if (n >= max) break;
    if (done.has(el) || !el.getClientRects().length) continue;
    const label = (el.innerText || el.getAttribute('aria-label') || '').trim().toLowerCase();
    if (!label || label.length > 40) continue;
    if (!labels.some((w) => label.includes(w)) && el.getAttribute('aria-expanded') !== 'false') continue;
    if (el.localName === 'a') {
      const h = (el.getAttribute('href') || '').trim();
      if (h && !h.startsWith('#')) continue; // a link to another page is navigation, not expansion
    }
    if (el.form && el.type === 'submit') continue;
    done.add(el);
    el.click();
    n++;
  }
  return n;
})"""

STATUS_OK, STATUS_TIMEOUT, STATUS_ERROR = "ok", "timeout", "error"
ERROR_PAGE = "chrome-error:"  # the URL of the page Chromium shows when a navigation fails


@dataclass
class RenderResult:
    """``result`` is the extraction (None when the page could not be loaded at all)."""

    url: str
    status: str
    result: Result | None = None
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    # what the layout adds: blocks, outline, images, product; empty when the page could not be loaded
    page: dict[str, Any] = field(default_factory=dict)
    # the whole JSON when the result came from the cache (there is no live Result object then)
    cached: dict[str, Any] | None = None

    @property
    def found(self) -> bool:
        if self.cached is not None:
            return bool(self.cached.get("found"))
        return self.result is not None and self.result.found

    def to_dict(self) -> dict[str, Any]:
        if self.cached is not None:
            hit = dict(self.cached)
            hit["render"] = {**hit.get("render", {}), "cache": "hit"}
            return hit
        d: dict[str, Any] = self.result.to_dict() if self.result is not None else {"found": False}
        d.update(self.page)
        d["status"] = self.status
        if self.error:
            d["error"] = self.error
        d["render"] = {"requested_url": self.url, **self.info}
        return d


async def render_page(
    pool: BrowserPool,
    url: str,
    extract_options: dict[str, Any] | None = None,
    page_options: RenderOptions | None = None,
    screenshot: str | None = None,
) -> RenderResult:
    """Render ``url`` in a fresh context and extract it; never raises for page problems.

    ``page_options`` overrides the pool's settings for this page (its browser fields are ignored);
    ``screenshot``: write a full-page PNG with the blocks drawn there."""
    opts = page_options.validate() if page_options is not None else pool.opts
    xopts = dict(extract_options or {})
    async with pool.page() as (page, refusals):
        t0 = time.monotonic()  # the page's own time starts when it has a browser context, not in the queue
        deadline = t0 + opts.timeout_ms / 1000
        world = World(page, deadline)
        requests = Requests(page, opts.stale_request_ms)
        settler = Settler(world, requests, opts, deadline)
        info: dict[str, Any] = {}
        lap = _Laps()
        status = STATUS_OK
        await page.add_init_script(TIMERS_JS)
        try:
            resp = await page.goto(url, wait_until="domcontentloaded", timeout=opts.timeout_ms)
            info["http_status"] = resp.status if resp is not None else None
        except Exception as exc:
            if "Timeout" not in type(exc).__name__:
                return _failed(url, exc, refusals, t0)
            status = STATUS_TIMEOUT  # never reached DOMContentLoaded: take what is there
        lap("navigate")
        moved: list[str] = []  # main-frame navigations after the page loaded: a meta refresh or a script
        page.on("framenavigated", lambda f: moved.append(f.url) if f == page.main_frame else None)
        try:
            settled = status == STATUS_OK and await settler.quiet()
            lap("settle")
            if opts.scroll and settler.remaining() > 0:
                info["scroll"] = await settler.scroll()
                settled = settled and await settler.quiet()
                lap("scroll")
            if not settled:
                status = STATUS_TIMEOUT
            await _not_an_error_page(world)
            result, layout = await _extract(world, page.url, xopts, lap, opts)
            clicks = 0
            while opts.show_more and clicks < opts.max_show_more_clicks and settler.remaining() > 0:
                js = f"{SHOW_MORE_JS}({json.dumps(result.root)}, {opts.max_show_more_clicks - clicks}, "
                n = int(await world.eval(js + json.dumps(SHOW_MORE_LABELS) + ")"))
                if not n:
                    break
                clicks += n
                if not await settler.quiet():
                    status = STATUS_TIMEOUT
                result, layout = await _extract(world, page.url, xopts, lap, opts)
            await _not_an_error_page(world)  # the move can also land while the snapshot is taken
            if opts.show_more:
                info["show_more_clicks"] = clicks
            if screenshot:
                await shoot(page, world, layout.get("blocks", []), screenshot)
                lap("screenshot")
        except Exception as exc:  # the page crashed, closed itself or navigated away mid-way
            why: BaseException = exc
            if moved:  # "Cannot find context with specified id" says less than this
                why = RuntimeError(f"the page navigated itself to {moved[-1][:200]} while it was being read")
            return _failed(url, why, refusals, t0)
        info["final_url"] = page.url
        info["refused"] = refusals.to_dict()
        info["elapsed_ms"] = round((time.monotonic() - t0) * 1000)
        info["timings"] = lap.ms
        return RenderResult(url, status, result, info=info, page=layout)


class _Laps:
    """Milliseconds per phase (summed when a phase repeats, as snapshot/extract do after clicks)."""

    def __init__(self) -> None:
        self.t = time.monotonic()
        self.ms: dict[str, float] = {}

    def __call__(self, name: str) -> None:
        now = time.monotonic()
        self.ms[name] = round(self.ms.get(name, 0.0) + (now - self.t) * 1000, 1)
        self.t = now


async def _extract(
    world: World, page_url: str, xopts: dict[str, Any], lap: _Laps, opts: RenderOptions
) -> tuple[Result, dict[str, Any]]:
    """Snapshot, extraction, and the layout analysis (blocks...) of the same document."""
    snap = await world.snapshot()
    lap("snapshot")

    def work() -> tuple[Result, dict[str, Any]]:
        doc = from_snapshot(json.loads(snap))
        for sel in opts.remove_selectors:
            for el in select(doc.root, sel):
                detach(el)
        result = extract(doc, url=page_url, **xopts)
        return result, analyze(doc, result, opts.viewport_height, opts.blocks, opts.weights)

    result, layout = await asyncio.to_thread(work)
    lap("extract")
    return result, layout


async def _not_an_error_page(world: World) -> None:
    """A meta refresh or script that moved the page to an address that failed leaves the browser's own error
    page on screen ("ERR_NAME_NOT_RESOLVED"): that is never the page's content. The document's own
    ``location`` is asked (Playwright's ``page.url`` can lag behind the commit of the error page)."""
    try:
        href = str(await world.eval("location.href"))
    except Exception:  # noqa: BLE001 (the document is being replaced right now: page.url decides)
        href = ""
    if href.startswith(ERROR_PAGE) or world.page.url.startswith(ERROR_PAGE):
        raise RuntimeError("the page navigated itself to an address that failed to load")


def _failed(url: str, exc: BaseException, refusals: Refusals, t0: float) -> RenderResult:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    info = {"refused": refusals.to_dict(), "elapsed_ms": round((time.monotonic() - t0) * 1000)}
    return RenderResult(url, STATUS_ERROR, None, error=msg[:300], info=info)


async def render_urls(
    urls: list[str],
    opts: RenderOptions,
    extract_options: dict[str, Any] | None = None,
    screenshots: list[str | None] | None = None,
) -> list[RenderResult]:
    """Render many URLs with one browser, ``opts.jobs`` at a time; results in input order. ``screenshots``:
    a PNG path (or None) per URL."""
    make_options(None, dict(extract_options or {}))  # bad options: one clear error before any browser starts
    shots = screenshots or [None] * len(urls)
    async with BrowserPool(opts.validate()) as pool:
        return list(
            await asyncio.gather(
                *(
                    render_with_retries(pool, u, extract_options, screenshot=shot)
                    for u, shot in zip(urls, shots, strict=True)
                )
            )
        )


def should_retry(r: RenderResult) -> bool:
    """Navigation errors, timeouts and server errors (5xx) may pass; a 4xx answer will not change."""
    status = r.info.get("http_status")
    if isinstance(status, int) and 400 <= status < 500:
        return False
    return r.status in (STATUS_ERROR, STATUS_TIMEOUT) or (isinstance(status, int) and status >= 500)


def backoff_s(attempt: int, opts: RenderOptions, rand: Callable[[], float] = random.random) -> float:
    """Seconds before retry ``attempt`` (1, 2, ...): base x 2^(attempt-1), capped, with full jitter in
    [0.5, 1.5) so that many pages failing together do not come back together."""
    base = min(opts.retry_max_ms, opts.retry_base_ms * 2 ** (attempt - 1))
    return base * (0.5 + rand()) / 1000


async def render_with_retries(
    pool: BrowserPool,
    url: str,
    extract_options: dict[str, Any] | None = None,
    page_options: RenderOptions | None = None,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    screenshot: str | None = None,
) -> RenderResult:
    """``render_page``, again after a backoff while ``should_retry`` (at most ``opts.retries`` times); the
    last attempt's result, with ``render.attempts`` and the waits."""
    opts = page_options or pool.opts
    waits: list[float] = []
    attempt = 0
    while True:
        r = await render_page(pool, url, extract_options, page_options, screenshot)
        if attempt >= opts.retries or not should_retry(r):
            break
        attempt += 1
        wait = backoff_s(attempt, opts)
        waits.append(round(wait * 1000))
        await sleep(wait)
    r.info["attempts"] = attempt + 1
    if waits:
        r.info["retry_waits_ms"] = waits
    return r


def render(url: str, opts: RenderOptions | None = None, **extract_options: Any) -> RenderResult:
    """Synchronous convenience: render one URL and extract it."""
    return asyncio.run(render_urls([url], opts or RenderOptions(), extract_options))[0]
