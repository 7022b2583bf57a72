"""The cyclic garbage collector is paused while Readwell builds and works on a tree.

Why: an extraction allocates a node, a child list and an attribute dict per element several times over
(parse, the working copy, measures), and almost all of it lives until the run ends. Each allocation counts
toward the collector's next pass, and each pass walks the young objects, all still alive, to find nothing;
the promoted survivors then trigger full collections that walk every live object of the process. On the
181 scrapinghub pages that was about a tenth of the CPU of an extraction. Nothing is lost by pausing: the
trees are released by reference counting when the run ends (``dom.release``), and what little cyclic garbage
a run makes (renderer and bleach objects) is collected at the next pass after it.

The pause is the process's (``gc`` has no per-thread switch): a run resumes the collector only if the
collector was running when the run started, so a caller that disabled it keeps it disabled, and runs in
other threads at worst collect during this one.
"""

from __future__ import annotations

import gc
from types import TracebackType


class paused:  # noqa: N801 (used as a function: ``with gc_pause.paused():``)
    """Run the block with the cyclic collector paused, resuming it afterwards if it was running. A class,
    not a generator: leaving the block allocates nothing after the collector resumes."""

    __slots__ = ("_resume",)

    def __enter__(self) -> None:
        self._resume = gc.isenabled()
        if self._resume:
            gc.disable()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._resume:
            gc.enable()
