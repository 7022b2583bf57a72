"""Run ``readwell serve`` as a real process on 127.0.0.1 (port 0) and talk to it over real HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import localserver
import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

START_TIMEOUT = 60  # hang guard only


@dataclass
class Served:
    proc: subprocess.Popen[str]
    port: int
    access_log: Path

    def request(
        self,
        method: str,
        path: str,
        body: bytes | str | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 120,
    ) -> tuple[int, dict[str, str], bytes]:
        return localserver.request(self.port, method, path, body, headers, timeout)

    def json(self, method: str, path: str, body: Any = None, timeout: float = 120) -> tuple[int, Any]:
        return localserver.json_request(self.port, method, path, body, timeout)

    def log_entries(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.access_log.read_text().splitlines() if line.strip()]


def descendants(pid: int) -> list[int]:
    """Process ids below ``pid`` (Linux /proc)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        kids = [c for c, p in parents.items() if p in frontier]
        found.extend(kids)
        frontier = kids
    return found


@contextlib.contextmanager
def serve(tmp: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """Start ``readwell serve --port 0 ARGS``; stop it with SIGTERM and check it exits cleanly."""
    log = tmp / f"access-{os.getpid()}-{id(args)}.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "readwell", "serve", "--port", "0", "--access-log", str(log), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert proc.stderr is not None
    lines: queue.Queue[str] = queue.Queue()
    stderr_seen: list[str] = []

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            stderr_seen.append(line)
            lines.put(line)
        lines.put("")

    threading.Thread(target=pump, daemon=True).start()
    first = lines.get(timeout=START_TIMEOUT)
    if "listening on http://127.0.0.1:" not in first:
        proc.kill()
        raise AssertionError(f"server did not start: {first}{''.join(stderr_seen)}")
    port = int(first.split("127.0.0.1:")[1].split()[0])
    served = Served(proc, port, log)
    try:
        yield served
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=START_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        noise = [line for line in stderr_seen[1:] if line.strip()]
        assert not any("Traceback" in line for line in noise), "".join(noise)
