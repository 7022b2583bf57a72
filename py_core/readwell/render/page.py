"""Reading a live page from Python: an isolated JavaScript world, request tracking, settling, scrolling.

Our scripts run in a CDP isolated world (what an extension's content script gets): they share the page's DOM
but not its globals, so a page cannot replace ``JSON.stringify``, ``getComputedStyle`` or our snapshot
function to forge what we read. "Settled" means a quiet window: no DOM mutation (a MutationObserver in our
world) and no request in flight (Playwright's request events) for ``settle_ms``. That models "the page stopped
changing" better than Playwright's ``networkidle``, which ignores script-driven DOM updates and waits on
analytics pings.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .options import RenderOptions

SNAPSHOT_JS = Path(__file__).with_name("snapshot.js")  # the extension's walker (a link to extension/)

# Installed once per world: the time of the last DOM mutation, in the page's performance clock.
OBSERVE_JS = """(() => {
  if (globalThis.__rwSettle) return true;
  const s = (globalThis.__rwSettle = { last: performance.now(), n: 0 });
  new MutationObserver(() => { s.last = performance.now(); s.n++; }).observe(document,
    { subtree: true, childList: true, attributes: true, characterData: true });
  return true;
})()"""
# Main world, before the page's scripts: one-shot timers and when they are due. A shell page that builds its
# article in setTimeout(..., 800) is quiet (no mutation, no request) until the timer fires; timers due soon
# when the page first looks quiet get one chance to fire. The page can see the wrapper; it only changes how
# long we wait, never what we read.
TIMERS_JS = """(() => {
  if (window.__rwTimerWait) return;
  const due = new Map();
  const st = window.setTimeout, ct = window.clearTimeout;
  window.setTimeout = function setTimeout(fn, ms, ...rest) {
    let id = 0;
    const f = typeof fn !== 'function' ? fn
      : function () { due.delete(id); return fn.apply(this, arguments); };
    id = st.call(window, f, ms, ...rest);
    if (typeof fn === 'function') due.set(id, performance.now() + Math.max(0, Number(ms) || 0));
    return id;
  };
  window.clearTimeout = function clearTimeout(id) { due.delete(id); return ct.call(window, id); };
  Object.defineProperty(window, '__rwTimerWait', { value: (horizon) => {
    const t = performance.now();
    let wait = 0;
    for (const [id, at] of due) {
      if (at < t - 1000) { due.delete(id); continue; } // never fired (throttled, page gone): forget it
      if (at - t <= horizon) wait = Math.max(wait, at - t);
    }
    return wait;
  } });
})();"""
TIMER_WAIT_JS = "(h) => (window.__rwTimerWait ? window.__rwTimerWait(h) : 0)"
SINCE_MUTATION_JS = "performance.now() - globalThis.__rwSettle.last"
# After the step, two animation frames (at most 200 ms): IntersectionObserver callbacks, which start most lazy
# loads, run at the next rendering step, so the quiet check that follows sees the timers and requests they
# start; without the wait it could find the page quiet before the callback ran and end the scroll early.
SCROLL_JS = """(async () => {
  const el = document.scrollingElement || document.documentElement;
  window.scrollBy(0, window.innerHeight);
  await new Promise((done) => {
    const t = setTimeout(done, 200);
    requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(t); done(); }));
  });
  return { y: el.scrollTop, h: el.scrollHeight, vh: window.innerHeight };
})()"""
HEIGHT_JS = "(document.scrollingElement || document.documentElement).scrollHeight"
TOP_JS = "window.scrollTo(0, 0), true"
SNAPSHOT_CALL_JS = "globalThis.__readwell.snapshot({ layout: true }).json"

EVAL_GRACE_S = 10.0

# Requests of these kinds stay open by design and never block settling.
LONG_LIVED = frozenset({"websocket", "eventsource", "media"})


class WorldError(RuntimeError):
    """A script in our world failed (the message is the page's exception text)."""


class World:
    """An isolated world in the page's main frame; recreated when the page navigates itself."""

    def __init__(self, page: Any, deadline: float) -> None:
        self.page = page
        self.deadline = deadline
        self._cdp: Any = None
        self._ctx_id: int | None = None
        self._snapshot_src: str | None = None

    async def _create(self) -> None:
        if self._cdp is None:
            self._cdp = await self.page.context.new_cdp_session(self.page)
        tree = await self._cdp.send("Page.getFrameTree")
        made = await self._cdp.send(
            "Page.createIsolatedWorld", {"frameId": tree["frameTree"]["frame"]["id"], "worldName": "readwell"}
        )
        self._ctx_id = made["executionContextId"]
        await self._eval(OBSERVE_JS)

    async def _eval(self, expression: str) -> Any:
        # a renderer stuck in a script loop never answers: give up at the deadline plus a grace period (the
        # snapshot after a timeout still needs a moment)
        limit = max(0.0, self.deadline - time.monotonic()) + EVAL_GRACE_S
        call = self._cdp.send(
            "Runtime.evaluate",
            {
                "expression": expression,
                "contextId": self._ctx_id,
                "returnByValue": True,
                "awaitPromise": True,
            },
        )
        try:
            r = await asyncio.wait_for(call, limit)
        except TimeoutError:
            raise WorldError("the page stopped responding") from None
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise WorldError(str(d.get("exception", {}).get("description") or d.get("text")))
        return r["result"].get("value")

    async def eval(self, expression: str) -> Any:
        """Evaluate in our world; one retry in a fresh world if the page navigated (its context is gone)."""
        if self._ctx_id is None:
            await self._create()
        try:
            return await self._eval(expression)
        except WorldError:  # the script failed or the page hangs: a new world would not help
            raise
        except Exception:
            await self._create()
            return await self._eval(expression)

    async def snapshot(self) -> str:
        """The extension's snapshot JSON of the page as it is now (snapshot.js loaded unchanged)."""
        if self._snapshot_src is None:
            self._snapshot_src = SNAPSHOT_JS.read_text(encoding="utf-8")
        has = await self.eval("!!(globalThis.__readwell && globalThis.__readwell.snapshot)")
        if not has:
            await self.eval(self._snapshot_src)
        out = await self.eval(SNAPSHOT_CALL_JS)
        if not isinstance(out, str):
            raise WorldError("snapshot returned no JSON")
        return out


class Requests:
    """Requests in flight (by Playwright's events) and the time of the last network activity."""

    def __init__(self, page: Any, stale_ms: int) -> None:
        self.open: dict[Any, float] = {}
        self.last = time.monotonic()
        self.stale_s = stale_ms / 1000
        page.on("request", self._start)
        page.on("requestfinished", self._end)
        page.on("requestfailed", self._end)

    def _start(self, req: Any) -> None:
        if req.resource_type in LONG_LIVED:
            return
        self.open[req] = self.last = time.monotonic()

    def _end(self, req: Any) -> None:
        if self.open.pop(req, None) is not None:
            self.last = time.monotonic()

    def quiet_ms(self) -> float:
        """Milliseconds without network activity; 0 while a (not yet stale) request is open."""
        now = time.monotonic()
        if any(now - t < self.stale_s for t in self.open.values()):
            return 0.0
        return (now - self.last) * 1000


@dataclass
class Settler:
    """Waits for quiet windows within one page's deadline (``time.monotonic`` seconds)."""

    world: World
    requests: Requests
    opts: RenderOptions
    deadline: float

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    async def quiet(self, limit_s: float | None = None) -> bool:
        """True once DOM and network were quiet for ``settle_ms`` and the timers due within
        ``timer_horizon_ms`` at the first quiet moment have fired; False at the deadline or ``limit_s``."""
        end = self.deadline if limit_s is None else min(self.deadline, time.monotonic() + limit_s)
        want = self.opts.settle_ms
        timers_checked = False
        while True:
            dom = float(await self.world.eval(SINCE_MUTATION_JS))
            quiet = min(dom, self.requests.quiet_ms())
            if quiet >= want and timers_checked:
                return True
            if quiet >= want:
                timers_checked = True
                wait_ms = await self._timers_due()
                if wait_ms <= 0:
                    return True
                # let them fire (plus a moment to run), then ask for a quiet window again
                await asyncio.sleep(min(max(0.0, end - time.monotonic()), wait_ms / 1000 + 0.03))
                continue
            left = end - time.monotonic()
            if left <= 0:
                return False
            await asyncio.sleep(min(left, max(0.03, (want - quiet) / 1000)))

    async def _timers_due(self) -> float:
        try:
            return float(await self.world.page.evaluate(TIMER_WAIT_JS, self.opts.timer_horizon_ms) or 0)
        except Exception:  # navigated meanwhile, or the page broke its own globals: nothing to wait for
            return 0.0

    async def scroll(self) -> dict[str, Any]:
        """Scroll a viewport at a time until the height stops growing twice at the bottom, or a cap.

        Lazy images and lists load when they come into view; an infinite list never stops growing, so steps
        and height are capped. Back to the top at the end (sticky headers and "back to top" layouts)."""
        steps = unchanged = 0
        capped = False
        height = int(await self.world.eval(HEIGHT_JS))
        while self.remaining() > 0:
            if steps >= self.opts.max_scroll_steps or height > self.opts.max_scroll_height:
                capped = True
                break
            pos = await self.world.eval(SCROLL_JS)
            steps += 1
            await self.quiet(self.opts.scroll_step_wait_ms / 1000)
            new_height = int(await self.world.eval(HEIGHT_JS))
            if pos["y"] + pos["vh"] >= new_height - 2:  # at the bottom: did the page grow?
                unchanged = unchanged + 1 if new_height <= height else 0
                if unchanged >= 2:
                    break
            else:
                unchanged = 0
            height = max(height, new_height)
        await self.world.eval(TOP_JS)
        return {"steps": steps, "height": height, "capped": capped}
