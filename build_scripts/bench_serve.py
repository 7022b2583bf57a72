"""Load test for ``readwell serve`` (a benchmark that prints numbers, not an asserted test).

Starts ``readwell serve -j JOBS`` on 127.0.0.1 (or uses ``--url`` of one already running there), then sends
``--requests`` POST /extract requests (the fixtures' HTML, round robin) from ``--concurrency`` keep-alive
clients, stopping by itself after ``--max-seconds`` at the latest. Prints sustained requests/s, latency
p50/p90/p99, every non-200 status and connection error, and the RSS of the server with its workers, sampled
each second (idle, then at 10%, 50% and the end of the run: flat after warm-up means no leak).

    python3 build_scripts/bench_serve.py                  # or: make bench-serve
    python3 build_scripts/bench_serve.py --requests 2000 --concurrency 4
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parent.parent


def tree_rss_kib(pid: int) -> int:
    """RSS of ``pid`` and every process below it (Linux /proc), in KiB."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    pids, frontier = [pid], [pid]
    while frontier:
        frontier = [c for c, p in parents.items() if p in frontier]
        pids.extend(frontier)
    total = 0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def start_server(jobs: int) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "py_core")}
    cmd = [sys.executable, "-m", "readwell", "serve", "--port", "0", "-j", str(jobs), "--access-log", "off"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    if "listening on " not in line:
        proc.kill()
        sys.exit(f"server did not start: {line}{proc.stderr.read()}")
    threading.Thread(target=lambda: [None for _ in proc.stderr or []], daemon=True).start()  # drain
    return proc, line.split("listening on ")[1].split()[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=10_000)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2, help="-j of the server this script starts")
    ap.add_argument("--max-seconds", type=float, default=1200, help="stop sending after this long")
    ap.add_argument("--url", help="an already running server on 127.0.0.1 (its RSS is not measured)")
    a = ap.parse_args()

    pages = [p.read_bytes() for p in sorted((ROOT / "fixtures").glob("*.html"))]
    proc = None
    if a.url:
        base = a.url.rstrip("/")
        if urlsplit(base).hostname not in ("127.0.0.1", "localhost", "::1"):
            sys.exit("this load test only targets 127.0.0.1")
    else:
        proc, base = start_server(a.jobs)
    host, port = urlsplit(base).hostname or "127.0.0.1", urlsplit(base).port or 80

    latencies: list[float] = []
    statuses: dict[int, int] = {}
    errors: list[str] = []
    rss: list[tuple[float, int]] = []
    lock = threading.Lock()
    counter = iter(range(a.requests))
    stop_at = time.monotonic() + a.max_seconds
    done = threading.Event()

    def client() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=120)
        while time.monotonic() < stop_at:
            with lock:
                i = next(counter, None)
            if i is None:
                break
            path = f"/extract?url={quote(f'https://example.org/page/{i}')}"
            t0 = time.perf_counter()
            try:
                conn.request("POST", path, pages[i % len(pages)], {"Content-Type": "text/html"})
                resp = conn.getresponse()
                resp.read()
                status = resp.status
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=120)
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")
                continue
            elapsed = time.perf_counter() - t0
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                latencies.append(elapsed)
        conn.close()

    def sampler() -> None:
        while not done.wait(1.0):
            if proc is not None:
                rss.append((time.monotonic(), tree_rss_kib(proc.pid)))

    if proc is not None:
        rss.append((time.monotonic(), tree_rss_kib(proc.pid)))
    threading.Thread(target=sampler, daemon=True).start()
    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(a.concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    done.set()
    if proc is not None:
        rss.append((time.monotonic(), tree_rss_kib(proc.pid)))
        proc.terminate()
        proc.wait(timeout=60)

    n = len(latencies)
    ms = sorted(x * 1000 for x in latencies)
    q = statistics.quantiles(ms, n=100) if n >= 2 else ms * 99
    print(f"requests: {n} answered of {a.requests} in {wall:.1f} s, concurrency {a.concurrency}, -j {a.jobs}")
    print(f"throughput: {n / wall:.1f} req/s sustained")
    print(f"latency ms: p50 {q[49]:.1f}  p90 {q[89]:.1f}  p99 {q[98]:.1f}  max {ms[-1] if ms else 0:.1f}")
    print(f"statuses: {dict(sorted(statuses.items()))}")
    non_200 = n - statuses.get(200, 0)
    print(
        f"errors: {non_200} non-200 answers, {len(errors)} connection errors {errors[:3] if errors else ''}"
    )
    if rss:
        mib = [r / 1024 for _, r in rss]
        print(
            f"server+workers RSS MiB: idle {mib[0]:.0f}  at 10% {mib[len(mib) // 10]:.0f}  "
            f"at 50% {mib[len(mib) // 2]:.0f}  end {mib[-1]:.0f}  max {max(mib):.0f}"
        )
    return 0 if non_200 == 0 and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
