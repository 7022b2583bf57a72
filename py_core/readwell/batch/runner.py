"""``readwell batch``'s engine: worker processes, output in input order, resume, progress, summary (CPython).

Why our own small pool instead of ``multiprocessing.Pool``/``ProcessPoolExecutor``: when a worker dies
(killed by the OOM killer, a segfault in a C extension) those either hang or fail every pending task. Here
each worker holds exactly one record at a time, so a dead worker costs only that record (``crashed``) and
is replaced. Records are written in input order (a reorder buffer keyed by sequence number), so the output
is byte-identical whatever ``-j`` (with ``timings=False``: ``elapsed_ms`` is the only field that varies).
Each line is flushed as written, so an interrupted run leaves a valid prefix (at most one partial line,
dropped on ``--resume``), and resuming appends exactly the lines the interrupted run did not write.

A watchdog backs the in-process deadline: a worker that holds a record past ``2 x deadline + 30 s`` (stuck
in C code the deadline cannot see) is killed and the record marked ``timeout``.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, TextIO

from ..errors import InputError
from . import empty_record, extract_record, normalize_options, options_hash
from .progress import Progress
from .readers import Item, Tally, read_inputs, total_bytes
from .writers import JsonlWriter, ParquetWriter, Writer, done_ids

WATCHDOG_FACTOR, WATCHDOG_GRACE_S = 2.0, 30.0
PARENT_POLL_S = 1.0  # how often a worker checks that its parent still lives


@dataclass
class Summary:
    counts: dict[str, int] = field(default_factory=dict)
    written: int = 0
    resumed: int = 0
    skipped_non_html: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        rate = self.written / self.seconds if self.seconds > 0 else 0.0
        parts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items(), key=lambda kv: -kv[1]))
        extra = f"; {self.resumed} already done (--resume)" if self.resumed else ""
        if self.skipped_non_html:
            extra += f"; {self.skipped_non_html} non-HTML WARC responses skipped"
        return (
            f"readwell batch: {self.written} records in {self.seconds:.1f} s ({rate:.1f} pages/s): "
            f"{parts or 'nothing to do'}{extra}"
        )


def _exit_with_parent(parent: int) -> None:
    """Exit the worker once its parent is gone (killed by the OOM killer or ``kill -9``).

    Why a polling thread and not EOF on the pipe: with fork, a later worker inherits the parent's end of the
    earlier workers' pipes, so a worker's ``recv`` may never see EOF; and a worker busy on a long page would
    finish it first. The worker is reparented when its parent dies, so a changed parent id is the signal."""
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent:
            os._exit(0)


def _worker_main(conn: Connection, options: dict[str, Any], parent: int) -> None:
    """Worker loop: one record in, one output dict out, until the parent sends None or goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    opts = normalize_options(options)
    digest = options_hash(opts)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        seq, rec = msg
        out = extract_record(rec, opts, digest)
        try:
            conn.send((seq, out))
        except (BrokenPipeError, OSError):  # the parent is gone (interrupted run): nothing to report to
            return


def _context() -> Any:
    """fork where the platform has it (fast start, the parent keeps no threads), else spawn."""
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


class _Worker:
    def __init__(self, ctx: Any, options: dict[str, Any]) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, options, os.getpid()), daemon=True)
        self.proc.start()
        child.close()
        self.task: tuple[int, dict[str, Any]] | None = None
        self.since = 0.0

    def give(self, seq: int, rec: dict[str, Any]) -> None:
        self.task = (seq, rec)
        self.since = time.monotonic()
        self.conn.send((seq, rec))

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def run(
    inputs: list[str],
    out_path: str,
    jobs: int = 1,
    options: dict[str, Any] | None = None,
    resume: bool = False,
    timings: bool = True,
    progress: bool = True,
    stream: TextIO | None = None,
) -> Summary:
    """Extract every record of ``inputs`` into ``out_path`` (.jsonl, or .parquet with pyarrow)."""
    if jobs < 1:
        raise InputError("-j must be at least 1")
    options = dict(options or {})
    opts = normalize_options(options)  # bad options fail here, before any worker starts
    digest = options_hash(opts)
    parquet = out_path.lower().endswith(".parquet")
    if parquet and resume:
        raise InputError("--resume works with JSONL output only")
    skip = done_ids(out_path) if resume else set()
    tally = Tally()
    items = read_inputs(inputs, tally)  # checks the inputs exist before the output is touched
    first = next(items, None)
    writer: Writer = ParquetWriter(out_path) if parquet else JsonlWriter(out_path, append=resume)
    bar = Progress(total_bytes(inputs), enabled=progress, stream=stream or sys.stderr)
    summary = Summary()
    started = time.monotonic()
    try:
        _drive(_chain(first, items), jobs, options, opts, digest, skip, writer, bar, summary, timings)
    finally:
        writer.close()
        bar.close()
    summary.seconds = time.monotonic() - started
    summary.skipped_non_html = tally.skipped_non_html
    return summary


def _chain(first: Item | None, rest: Iterator[Item]) -> Iterator[Item]:
    if first is not None:
        yield first
        yield from rest


def _key(rec_id: Any) -> str:
    return json.dumps(rec_id, sort_keys=True)


def _drive(
    items: Iterator[Item],
    jobs: int,
    options: dict[str, Any],
    opts: dict[str, Any],
    digest: str,
    skip: set[str],
    writer: Writer,
    bar: Progress,
    summary: Summary,
    timings: bool,
) -> None:
    ctx = _context()
    workers = [_Worker(ctx, options) for _ in range(jobs)]
    done: dict[int, dict[str, Any]] = {}
    sizes: dict[int, int] = {}
    next_seq = next_write = 0
    exhausted = False
    deadline_ms = opts.get("deadline_ms")
    watchdog = None if deadline_ms is None else deadline_ms / 1000 * WATCHDOG_FACTOR + WATCHDOG_GRACE_S

    def emit() -> None:
        nonlocal next_write
        while next_write in done:
            out = done.pop(next_write)
            if not timings:
                out["elapsed_ms"] = None
            writer.write(out)
            summary.written += 1
            summary.counts[out["status"]] = summary.counts.get(out["status"], 0) + 1
            bar.advance(sizes.pop(next_write, 0), summary.written)
            next_write += 1

    try:
        while True:
            for w in workers:
                while w.task is None and not exhausted:
                    item = next(items, None)
                    if item is None:
                        exhausted = True
                        break
                    rec = item.record
                    if _key(rec.get("id")) in skip:
                        summary.resumed += 1
                        bar.advance(item.nbytes, summary.written)
                        continue
                    seq, next_seq = next_seq, next_seq + 1
                    sizes[seq] = item.nbytes
                    if "read_error" in rec:
                        done[seq] = empty_record(
                            rec.get("id"), rec.get("url"), "error", rec["read_error"], digest
                        )
                    else:
                        w.give(seq, rec)
            emit()
            busy = [w for w in workers if w.task is not None]
            if not busy:
                if exhausted:
                    break
                continue
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=1.0)
            for i, w in enumerate(workers):
                if w.task is None:
                    continue
                if w.conn in ready:
                    try:
                        seq, out = w.conn.recv()
                    except (EOFError, OSError):
                        workers[i] = _replace(ctx, options, w, done, digest, "crashed")
                        continue
                    done[seq] = out
                    w.task = None
                elif w.proc.sentinel in ready or not w.proc.is_alive():
                    workers[i] = _replace(ctx, options, w, done, digest, "crashed")
                elif watchdog is not None and time.monotonic() - w.since > watchdog:
                    workers[i] = _replace(ctx, options, w, done, digest, "timeout")
            emit()
    finally:
        for w in workers:
            if w.task is not None:
                w.proc.kill()
            w.stop()


def _replace(
    ctx: Any, options: dict[str, Any], w: _Worker, done: dict[int, dict[str, Any]], digest: str, status: str
) -> _Worker:
    """Record the lost record of a dead (or hung) worker and start a fresh worker in its place."""
    assert w.task is not None
    seq, rec = w.task
    if w.proc.is_alive():  # hung past the watchdog
        w.proc.kill()
    w.proc.join()
    code = w.proc.exitcode
    if status == "timeout":
        why = "worker killed by the watchdog: the in-process deadline did not stop it"
    elif code is not None and code < 0:
        why = f"worker killed by signal {signal.Signals(-code).name}"
    else:
        why = f"worker exited with code {code}"
    done[seq] = empty_record(rec.get("id"), rec.get("url"), status, why, digest)
    w.task = None
    w.conn.close()
    return _Worker(ctx, options)


def default_jobs() -> int:
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1, 8))
