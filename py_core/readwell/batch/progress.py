"""Progress of a batch run: pages written, pages/s and an ETA from the share of input bytes consumed.

The ETA is by bytes because a WARC's record count is unknown until it is read; bytes are known upfront for
every input. tqdm draws the bar when installed (the ``batch`` extra); without it a plain line is printed
every ``PLAIN_EVERY_S`` seconds. tqdm's monitor thread is switched off: the runner forks workers, and a
process that forks should hold no threads.
"""

from __future__ import annotations

import time
from typing import Any, TextIO

PLAIN_EVERY_S = 5.0


class Progress:
    def __init__(self, total_bytes: int, enabled: bool, stream: TextIO) -> None:
        self.total = max(total_bytes, 1)
        self.enabled = enabled
        self.stream = stream
        self.start = time.monotonic()
        self.last_plain = self.start
        self.bytes = 0
        self.pages = 0
        self.bar: Any = None
        if not enabled:
            return
        try:
            import tqdm  # type: ignore[import-untyped]
        except ImportError:
            return
        tqdm.tqdm.monitor_interval = 0
        self.bar = tqdm.tqdm(
            total=self.total,
            file=stream,
            unit="B",
            unit_scale=True,
            bar_format="{percentage:3.0f}%|{bar}| {n_fmt}B/{total_fmt}B [{elapsed}<{remaining}{postfix}]",
            smoothing=0.1,
        )

    def rate(self) -> float:
        elapsed = time.monotonic() - self.start
        return self.pages / elapsed if elapsed > 0 else 0.0

    def advance(self, nbytes: int, pages: int) -> None:
        self.bytes += nbytes
        self.pages = pages
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(nbytes)
            self.bar.set_postfix_str(f"{pages} pages, {self.rate():.1f} pages/s", refresh=False)
            return
        now = time.monotonic()
        if now - self.last_plain >= PLAIN_EVERY_S:
            self.last_plain = now
            self.stream.write(self.plain_line() + "\n")
            self.stream.flush()

    def plain_line(self) -> str:
        share = min(1.0, self.bytes / self.total)
        elapsed = time.monotonic() - self.start
        eta = elapsed * (1 - share) / share if share > 0 else 0.0
        return (
            f"readwell batch: {self.pages} pages, {self.rate():.1f} pages/s, {share:.0%} of input, "
            f"ETA {int(eta) // 60}:{int(eta) % 60:02d}"
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
