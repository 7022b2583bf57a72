"""Worker processes for ``readwell serve``: extraction off the event loop, with a hard per-request deadline.

Why processes: extraction is CPU-bound pure Python, so threads would share one core through the GIL;
``-j N`` processes use N cores. Why not ``ProcessPoolExecutor``: a task that passes its deadline cannot be
stopped there, and it would hold its worker until it finished. Here each worker is one process behind a pipe;
a request that passes its deadline gets its worker killed and replaced, so a hostile page costs at most one
deadline of CPU.

The core's cooperative ``deadline_ms`` option makes the kill a backstop rather than the rule: the worker
passes what is left of the request's deadline, and the kill comes only ``KILL_GRACE`` after it.
This module imports no web framework: workers start fast (forkserver, ``readwell`` preloaded).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import multiprocessing.connection
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from .errors import InputError
from .fetch import FETCH_TIMEOUT, FetchFailed, FetchRefused, fetch
from .parse import parse_html
from .serve_request import error_body, extraction_answer

KILL_GRACE = 1.0  # seconds the core gets past the deadline to stop by itself before its worker is killed


@dataclass
class Job:
    """One extraction: HTML given (``html``), or a URL to fetch (``html is None``)."""

    html: str | bytes | None
    url: str | None  # the page's URL: base for links, or what to fetch
    options: dict[str, Any] = field(default_factory=dict)
    encoding: str | None = None  # charset declared with raw HTML bytes
    allow_private: bool = False
    seconds: float = 30.0  # what is left of the request's deadline when the job is sent


class DeadlinePassed(Exception):
    """The request's deadline passed while it waited for a worker or while a worker ran it."""


def run_job(job: Job) -> tuple[int, bytes]:
    """(HTTP status, JSON bytes): the CLI's JSON for a result, or ``{"error", "status"}``. In a worker."""
    deadline_at = time.monotonic() + job.seconds
    try:
        url: str | None
        html: str | bytes
        if job.html is None:
            assert job.url is not None
            timeout = max(min(FETCH_TIMEOUT, job.seconds), 0.001)
            body, encoding, final = fetch(job.url, allow_private=job.allow_private, timeout=timeout)
            html, url = body, final
        else:
            html, encoding, url = job.html, job.encoding, job.url
        status, text = extraction_answer(
            lambda: parse_html(html, encoding), url, dict(job.options), deadline_at
        )
        return status, text.encode()  # strict UTF-8: a lone surrogate is a bug (500)
    except FetchRefused as exc:
        return error_json(422, str(exc))
    except FetchFailed as exc:
        return error_json(502, str(exc))
    except InputError as exc:
        return error_json(422, str(exc))
    except Exception as exc:  # a bug: reported as one line, the worker lives on
        return error_json(500, f"internal error: {type(exc).__name__}: {exc}")


def error_json(status: int, message: str) -> tuple[int, bytes]:
    return status, error_body(status, message).encode()


def _worker_main(conn: multiprocessing.connection.Connection) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the server, which shuts workers down
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        conn.send(run_job(job))


@dataclass(eq=False)  # identity: kept in a set
class _Worker:
    process: Any
    conn: multiprocessing.connection.Connection

    def roundtrip(self, job: Job) -> tuple[int, bytes]:
        self.conn.send(job)
        result: tuple[int, bytes] = self.conn.recv()
        return result

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.conn.close()
        self.process.join(timeout=5)


class WorkerPool:
    """``size`` worker processes; ``run`` waits for a free one (FIFO), all within the request's deadline."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.ctx = multiprocessing.get_context("forkserver")
        self.ctx.set_forkserver_preload(["readwell.serve_pool"])
        self.idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self.busy = 0
        self.replaced = 0  # workers killed at a deadline or lost, and replaced
        self.threads = ThreadPoolExecutor(max_workers=2 * size, thread_name_prefix="readwell-pipe")
        self.workers: set[_Worker] = set()

    def start(self) -> None:
        for _ in range(self.size):
            self.idle.put_nowait(self._spawn())

    def _spawn(self) -> _Worker:
        parent, child = self.ctx.Pipe()
        process = self.ctx.Process(target=_worker_main, args=(child,), daemon=True, name="readwell-worker")
        process.start()
        child.close()
        worker = _Worker(process, parent)
        self.workers.add(worker)
        return worker

    def _replace(self, worker: _Worker) -> _Worker:
        self.workers.discard(worker)
        worker.kill()
        self.replaced += 1
        return self._spawn()

    async def run(self, job: Job, deadline: float) -> tuple[int, bytes]:
        """Run ``job`` before ``deadline`` (a ``time.monotonic()`` value) or raise DeadlinePassed."""
        try:
            worker = await asyncio.wait_for(self.idle.get(), _left(deadline))
        except TimeoutError:
            raise DeadlinePassed from None
        self.busy += 1
        loop = asyncio.get_running_loop()
        try:
            job.seconds = _left(deadline)
            hard = job.seconds + KILL_GRACE
            result = await asyncio.wait_for(loop.run_in_executor(self.threads, worker.roundtrip, job), hard)
        except DeadlinePassed:  # passed before the job was sent: the worker is clean
            raise
        except TimeoutError:
            worker = self._replace(worker)
            raise DeadlinePassed from None
        except (EOFError, OSError):  # the worker died (out of memory, killed): a fresh one takes its place
            worker = self._replace(worker)
            return error_json(500, "internal error: the worker process died")
        except BaseException:  # cancelled mid-job: its answer must not reach the next request
            worker = self._replace(worker)
            raise
        finally:
            self.busy -= 1
            self.idle.put_nowait(worker)
        return result

    def close(self) -> None:
        """Stop every worker (graceful shutdown has already let in-flight requests finish)."""
        for worker in list(self.workers):
            with contextlib.suppress(Exception):
                worker.conn.send(None)
        for worker in list(self.workers):
            worker.process.join(timeout=2)
            worker.kill()
        self.workers.clear()
        self.threads.shutdown(wait=False, cancel_futures=True)


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlinePassed
    return left
