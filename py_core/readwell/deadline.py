"""A deadline the core keeps itself: checked inside the parse and the pipeline's loops.

Why not a signal, a thread or a subprocess: Pyodide has none of them, and a server thread cannot be killed.
So the work checks the clock itself: ``run_stages`` between stages, and the tree builder, tree walks and
removals through ``tick()``, which reads the clock only every ``STRIDE`` calls (a counter decrement
otherwise). Past the deadline ``check()`` raises :class:`DeadlineExceeded`, which ``extract`` turns into a
result with ``status: "timeout"``; callers never see the exception.

The running deadline lives in a context variable, so threads (``aextract``) and nested calls each see their
own, and code with no deadline pays one ``ContextVar.get`` per walk.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

# Clock reads per tick: 256 ticks are at most a few hundred microseconds of tree work on CPython, so a
# deadline is overrun by far less than a millisecond plus the longest step between two ticks.
STRIDE = 256


class DeadlineExceeded(Exception):
    """Internal: raised by ``check`` past the deadline, caught by ``extract``.

    ``log`` is the removal log so far (set by ``run_stages`` when the pipeline was running), ``stage`` the
    stage that was running: ``"parse"`` for everything before the first stage (parse, readerable verdict,
    copy), a stage name, or ``"render"`` for sanitize, metadata and rendering after the last stage.
    """

    def __init__(self, elapsed_ms: float, limit_ms: float) -> None:
        super().__init__(f"deadline of {limit_ms:g} ms exceeded after {elapsed_ms:.0f} ms")
        self.elapsed_ms = elapsed_ms
        self.limit_ms = limit_ms
        self.stage = "parse"
        self.log: list[Any] = []


class Deadline:
    """A point in time (``limit_ms`` from now) and a cheap way to ask whether it has passed."""

    __slots__ = ("limit_ms", "start", "expires", "clock", "_left", "ctx")

    def __init__(self, limit_ms: float, clock: Callable[[], float] | None = None) -> None:
        clock = clock or time.perf_counter
        self.limit_ms = float(limit_ms)
        self.clock = clock
        self.start = clock()
        self.expires = self.start + self.limit_ms / 1000.0
        self._left = STRIDE
        self.ctx: Any = None  # the pipeline's Context once it runs: its stage and log go into the error

    def expired(self) -> bool:
        return self.clock() >= self.expires

    def check(self) -> None:
        """Raise :class:`DeadlineExceeded` if the deadline has passed."""
        now = self.clock()
        if now >= self.expires:
            exc = DeadlineExceeded((now - self.start) * 1000.0, self.limit_ms)
            if self.ctx is not None:
                exc.stage = self.ctx.stage or "render"
                exc.log = list(self.ctx.log)
            raise exc

    def tick(self, n: int = 1) -> None:
        """Count ``n`` units of work; read the clock once every ``STRIDE`` units."""
        self._left -= n
        if self._left <= 0:
            self._left = STRIDE
            self.check()


_current: ContextVar[Deadline | None] = ContextVar("readwell_deadline", default=None)


def current() -> Deadline | None:
    """The deadline of the extraction running in this context, if any (hot loops fetch it once)."""
    return _current.get()


def check() -> None:
    dl = _current.get()
    if dl is not None:
        dl.check()


def watch(ctx: Any) -> None:
    """Called by ``run_stages``: a timeout from now on reports this context's stage and log so far."""
    dl = _current.get()
    if dl is not None:
        dl.ctx = ctx


def tick(n: int = 1) -> None:
    dl = _current.get()
    if dl is not None:
        dl.tick(n)


@contextmanager
def started(limit_ms: float | None, clock: Callable[[], float] | None = None) -> Iterator[Deadline | None]:
    """Run the block under a deadline of ``limit_ms`` (None: no deadline); ``clock`` for tests.

    A deadline already running in this context is kept (``extract`` starts it before parsing and
    ``extract_document`` must not restart the clock).
    """
    running = _current.get()
    if limit_ms is None or running is not None:
        yield running
        return
    if limit_ms < 0:
        raise ValueError("deadline_ms must be >= 0")
    token = _current.set(Deadline(limit_ms, clock))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


class _CheckedText(io.StringIO):
    """html5lib reads its input in 10 KB chunks through ``read``: each read is a deadline check."""

    def read(self, size: int | None = -1) -> str:
        check()
        return super().read(size)


class _CheckedBytes(io.BytesIO):
    def read(self, size: int | None = -1) -> bytes:
        check()
        return super().read(size)


def checked_input(data: str | bytes) -> Any:
    """``data`` as a stream that checks the deadline on every read, or ``data`` itself with no deadline."""
    if _current.get() is None:
        return data
    return _CheckedBytes(data) if isinstance(data, bytes) else _CheckedText(data)
