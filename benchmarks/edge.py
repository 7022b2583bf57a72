"""The edge handler (build/edge) in workerd, Deno and Node on 127.0.0.1: bundle size, memory after the engine
loads, cold and warm request times. Prints a table: numbers, not assertions (tests/test_edge.py has those).

    python benchmarks/edge.py [--runtimes workerd,deno,node] [--warm 50] [--page PAGE] [--edge DIR]

cold = the first POST /extract of a fresh process (engine load + extraction), measured by the client;
load = the engine's own load time (/healthz engine_load_ms); warm = median and p90 of `--warm` more requests
of the same page; all fixtures = one pass over fixtures/*.html, total seconds. RSS of the runtime's process
(Linux /proc) after the warm requests; wasm heap = Pyodide's linear memory.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
EDGE = ROOT / "build" / "edge"
BIN = ROOT / "node_modules" / ".bin"
PAGE = ROOT / "fixtures" / "core--news-article-basic.html"
ENV_NAMES = "READWELL_TOKEN,READWELL_MAX_BODY,READWELL_DEADLINE_MS"


def command(runtime: str, port: int) -> list[str]:
    if runtime == "workerd":
        return [str(BIN / "workerd"), "serve", "workerd.capnp", "--socket-addr", f"http=127.0.0.1:{port}"]
    if runtime == "deno":
        allow = ["--allow-read=.", f"--allow-env={ENV_NAMES}"]
        return [str(BIN / "deno"), "serve", *allow, "--host", "127.0.0.1", "--port", str(port), "deno.mjs"]
    return ["node", "node.mjs", "--port", str(port)]


def request(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        conn.request(method, path, body=body)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def rss_mib(pid: int) -> float:
    """RSS of the process and its children (deno and workerd start no children; npm shims are exec'd)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            me = int(stat.parent.name)
            if me == pid or int(fields[1]) == pid:
                total += int(Path(f"/proc/{me}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue
    return total / 2**20


def measure(runtime: str, warm: int, page: Path, edge: Path) -> dict[str, object]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "DENO_NO_UPDATE_CHECK": "1"}
    started = time.perf_counter()
    proc = subprocess.Popen(
        command(runtime, port), cwd=edge, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(1200):
            try:
                if request(port, "GET", "/healthz")[0] == 200:
                    break
            except OSError:
                time.sleep(0.05)
        up = time.perf_counter() - started
        html = page.read_bytes()
        path = "/extract?url=" + quote("https://example.org/news/river-health")
        t0 = time.perf_counter()
        status, _ = request(port, "POST", path, html)
        cold = time.perf_counter() - t0
        assert status == 200, f"{runtime}: first request answered {status}"
        times = []
        for _ in range(warm):
            t0 = time.perf_counter()
            request(port, "POST", path, html)
            times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for fixture in sorted((ROOT / "fixtures").glob("*.html")):
            request(port, "POST", "/extract", fixture.read_bytes())
        all_fixtures = time.perf_counter() - t0
        health = json.loads(request(port, "GET", "/healthz")[1])
        times.sort()
        return {
            "runtime": runtime,
            "listening_s": up,
            "cold_ms": cold * 1000,
            "load_ms": health.get("engine_load_ms"),
            "snapshot": health.get("from_snapshot"),
            "warm_median_ms": statistics.median(times) * 1000,
            "warm_p90_ms": times[int(len(times) * 0.9) - 1] * 1000,
            "all_fixtures_s": all_fixtures,
            "wasm_heap_mib": (health.get("wasm_heap_bytes") or 0) / 2**20,
            "rss_mib": rss_mib(proc.pid),
            "unhandled_rejections": health.get("unhandled_rejections"),
        }
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def bundle(edge: Path) -> str:
    manifest = json.loads((edge / "edge-manifest.json").read_text())
    snap = manifest["files"].get("snapshot.bin", {"size": 0, "gzip": 0})
    b = manifest["bundle"]
    mb = 1e6
    wasm = gzip.compress((edge / "pyodide" / "pyodide.asm.wasm").read_bytes(), 9)
    return (
        f"bundle (workerd modules): {b['bytes'] / mb:.1f} MB, gzip {b['gzip'] / mb:.1f} MB; "
        "without the snapshot "
        f"{(b['bytes'] - snap['size']) / mb:.1f} MB, gzip {(b['gzip'] - snap['gzip']) / mb:.1f} MB "
        f"(snapshot gzip {snap['gzip'] / mb:.1f} MB, pyodide.asm.wasm gzip {len(wasm) / mb:.1f} MB; "
        f"{manifest['adapters']} precompiled adapters)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runtimes", default="workerd,deno,node")
    ap.add_argument("--warm", type=int, default=50)
    ap.add_argument("--page", type=Path, default=PAGE)
    ap.add_argument("--edge", type=Path, default=EDGE, help="a build_edge.mjs output (say, --no-snapshot)")
    a = ap.parse_args()
    edge = a.edge.resolve()
    if not (edge / "edge-manifest.json").is_file():
        print("build/edge is missing: run `make build`", file=sys.stderr)
        return 2
    print(bundle(edge))
    cols = ["runtime", "listening_s", "cold_ms", "load_ms", "snapshot", "warm_median_ms", "warm_p90_ms"]
    cols += ["all_fixtures_s", "wasm_heap_mib", "rss_mib", "unhandled_rejections"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for runtime in a.runtimes.split(","):
        row = measure(runtime, a.warm, a.page, edge)
        cells = [f"{row[c]:.1f}" if isinstance(row[c], float) else str(row[c]) for c in cols]
        print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
