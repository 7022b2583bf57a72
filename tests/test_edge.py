"""The edge handler (build/edge) over real HTTP on 127.0.0.1 in workerd, Node and Deno: every fixture gives
the JSON CPython gives, and the routes, limits and errors are those of ``readwell serve``.

workerd is the most constrained runtime (no compiling wasm from bytes, no eval): the engine's wasm arrives as
a module workerd compiled, and /healthz counts unhandled rejections (the Emscripten adapter wart gave one per
load before build_edge.mjs precompiled the adapters). Each runtime is started once for this module, plus once
more with a tiny body limit and deadline for 413 and 504. Speed figures are in benchmarks/edge.py, not here.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((ROOT / "fixtures").glob("*.html"))
FIXTURE_RE = re.compile(rb"^(?:\xef\xbb\xbf)?\s*<!--\s*readwell-fixture:\s*(\{.*?\})\s*-->", re.S)
NODE = shutil.which("node")
WORKERD = ROOT / "node_modules" / ".bin" / "workerd"
DENO = ROOT / "node_modules" / ".bin" / "deno"
IN_CI = bool(os.environ.get("CI"))
START_TIMEOUT = 120  # hang guards only
REQUEST_TIMEOUT = 120
RUNTIMES = ("workerd", "node", "deno")
IGNORED_KEYS = frozenset({"timings"})

pytestmark = pytest.mark.node


def _need(tool: Path | str | None, what: str) -> None:
    if tool is None or not Path(tool).exists():
        if IN_CI:
            pytest.fail(f"{what} is not installed (CI must have it: build_scripts/setup.sh, npm ci)")
        pytest.skip(f"{what} is not installed")


@pytest.fixture(scope="module")
def edge_dir() -> Path:
    """build/edge, built (or found up to date) the way `make build` does it."""
    _need(NODE, "node")
    assert NODE is not None
    for script in ("build_engine.mjs", "build_edge.mjs"):
        proc = subprocess.run(
            [NODE, str(ROOT / "build_scripts" / script), "--quiet"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, f"{script} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return ROOT / "build" / "edge"


@dataclass
class Edge:
    runtime: str
    proc: subprocess.Popen[bytes]
    port: int

    def request(
        self, method: str, path: str, body: bytes | str | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
        finally:
            conn.close()

    def json(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        status, _, raw = self.request(method, path, None if body is None else json.dumps(body), headers)
        return status, json.loads(raw)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def start(edge_dir: Path, runtime: str, tmp: Path, **env: str) -> Iterator[Edge]:
    """Start the handler in `runtime` on a free port of 127.0.0.1; stop it (SIGTERM) afterwards."""
    port = _free_port()
    if runtime == "workerd":
        _need(WORKERD, "workerd (npm devDependency)")
        cmd = [
            str(WORKERD),
            "serve",
            str(edge_dir / "workerd.capnp"),
            "--socket-addr",
            f"http=127.0.0.1:{port}",
        ]
    elif runtime == "deno":
        _need(DENO, "deno (npm devDependency)")
        allow_env = "--allow-env=READWELL_TOKEN,READWELL_MAX_BODY,READWELL_DEADLINE_MS"
        cmd = [str(DENO), "serve", "--allow-read=.", allow_env, "--host", "127.0.0.1", "--port", str(port)]
        cmd.append("deno.mjs")
    else:
        cmd = [str(NODE), str(edge_dir / "node.mjs"), "--port", str(port)]
    log = tmp / f"{runtime}-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=edge_dir,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "DENO_NO_UPDATE_CHECK": "1", **env},
        )
    edge = Edge(runtime, proc, port)
    try:
        for _ in range(START_TIMEOUT * 10):
            assert proc.poll() is None, f"{runtime} exited: {log.read_text(errors='replace')[-3000:]}"
            with contextlib.suppress(OSError):
                if edge.request("GET", "/healthz")[0] == 200:
                    break
            time.sleep(0.1)
        else:
            pytest.fail(f"{runtime} did not answer within {START_TIMEOUT} s")
        yield edge
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module", params=RUNTIMES)
def edge(
    request: pytest.FixtureRequest, edge_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Edge]:
    with start(edge_dir, request.param, tmp_path_factory.mktemp("edge")) as e:
        yield e


@pytest.fixture(scope="module", params=RUNTIMES)
def tight(
    request: pytest.FixtureRequest, edge_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Edge]:
    env = {"READWELL_MAX_BODY": "65536", "READWELL_DEADLINE_MS": "1", "READWELL_TOKEN": "s3cret-token"}
    with start(edge_dir, request.param, tmp_path_factory.mktemp("edge-tight"), **env) as e:
        yield e


def fixture_call(path: Path) -> tuple[str | None, dict[str, Any]]:
    m = FIXTURE_RE.match(path.read_bytes())
    meta = json.loads(m.group(1)) if m else {}
    return meta.get("url"), dict(meta.get("options") or {})


def strip_ignored(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_ignored(v) for k, v in value.items() if k not in IGNORED_KEYS}
    if isinstance(value, list):
        return [strip_ignored(v) for v in value]
    return value


def query_of(url: str | None, options: dict[str, Any]) -> str:
    pairs: list[tuple[str, str]] = [("url", url)] if url else []
    for name, value in options.items():
        values = value if isinstance(value, list) else [value]
        pairs += [(name, str(v).lower() if isinstance(v, bool) else str(v)) for v in values]
    return "?" + urlencode(pairs) if pairs else ""


def serve_error(status: int, message: str) -> bytes:
    return (json.dumps({"error": message, "status": status}) + "\n").encode()


# --- parity: every fixture, raw HTML bytes posted as `serve` takes them ------------------------------------


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_parity(edge: Edge, path: Path) -> None:
    import readwell

    url, options = fixture_call(path)
    data = path.read_bytes()
    status, headers, raw = edge.request("POST", "/extract" + query_of(url, options), data)
    assert status == 200, raw[:500]
    assert headers["content-type"] == "application/json"
    expected = json.loads(
        json.dumps(readwell.extract(data, url=url, **options).to_dict(), ensure_ascii=False)
    )
    assert strip_ignored(json.loads(raw)) == strip_ignored(expected)


def test_json_body_matches_the_cli_json(edge: Edge) -> None:
    """JSON {html, url, options} in, the CLI's JSON text out (indent 2, UTF-8), timings aside."""
    import readwell
    from readwell.cli import render

    path = next(p for p in FIXTURES if fixture_call(p)[1].get("selector"))
    url, options = fixture_call(path)
    html = path.read_text(encoding="utf-8")
    status, _, raw = edge.request(
        "POST",
        "/extract",
        json.dumps({"html": html, "url": url, "options": options}),
        {"Content-Type": "application/json"},
    )
    want = render(readwell.extract(html, url=url, **options).to_dict(), "json")
    timings = re.compile(r'"timings": \{.*?\n  \}', re.S)
    assert status == 200
    assert timings.sub("", raw.decode("utf-8")) == timings.sub("", want)


# --- routes and errors, as `serve` answers them ------------------------------------------------------------


def test_stages_and_health(edge: Edge) -> None:
    from readwell.pipeline import STAGES

    status, data = edge.json("GET", "/stages")
    assert status == 200
    assert data == {"stages": [{"name": s.name, "summary": s.summary} for s in STAGES]}
    status, health = edge.json("GET", "/healthz")
    assert status == 200 and health["status"] == "ok" and health["engine"] == "loaded"
    assert health["from_snapshot"] is True  # build/edge ships the snapshot; the engine must have used it
    assert health["unhandled_rejections"] == 0, f"{edge.runtime}: a rejection went unhandled while loading"


def test_bad_requests_get_serve_errors(edge: Edge) -> None:
    from readwell.serve_request import HTTPError, json_request

    cases: list[bytes] = [b"{not json", b"[1]", b'{"html": 3}', b'{"html": "<p>x</p>", "extra": 1}']
    cases += [b'{"html": "<p>x</p>", "options": {"favor": true}}', b'{"html": "<p>x</p>", "options": []}']
    for body in cases:
        try:
            json_request(body)
        except HTTPError as exc:
            want = (exc.status, serve_error(exc.status, exc.message))
        else:
            raise AssertionError(f"serve accepts {body!r}")
        status, _, raw = edge.request("POST", "/extract", body, {"Content-Type": "application/json"})
        assert (status, raw) == want, body
    status, _, raw = edge.request("POST", "/extract", b"")
    assert status == 400 and b"empty body" in raw
    status, _, raw = edge.request("POST", "/extract?no_such_option=1", b"<p>x</p>")
    assert status == 422 and json.loads(raw)["status"] == 422
    assert edge.request("GET", "/nowhere")[:1] == (404,)
    status, headers, _ = edge.request("DELETE", "/extract")
    assert status == 405 and headers["allow"] == "GET, POST"
    status, _, raw = edge.request("GET", "/extract")
    assert status == 400 and json.loads(raw)["error"] == "GET /extract needs ?url="


def test_url_fetching_is_refused_with_501(edge: Edge) -> None:
    """No SSRF-safe fetching on the edge (no resolver to check addresses with): refused, never tried."""
    status, data = edge.json("GET", "/extract?url=http%3A%2F%2F127.0.0.1%3A1%2F")
    assert status == 501 and "does not fetch" in data["error"]
    status, data = edge.json("POST", "/extract", {"url": "http://169.254.169.254/latest/"})
    assert status == 501 and data["status"] == 501


def test_oversized_heads_are_refused(edge: Edge) -> None:
    status, _, raw = edge.request("GET", "/stages?" + "a" * 9000)
    assert status == 414 and json.loads(raw)["status"] == 414
    headers = {f"x-h{i}": "v" for i in range(120)}
    status, _, raw = edge.request("GET", "/stages", headers=headers)
    assert status == 431 and json.loads(raw)["status"] == 431


# --- limits: 64 KiB body, 1 ms deadline (thousands of elements take far longer), bearer token ---------


def test_token_body_limit_and_deadline(tight: Edge) -> None:
    auth = {"Authorization": "Bearer s3cret-token"}
    status, headers, raw = tight.request("POST", "/extract", b"<p>x</p>")
    assert (status, headers.get("www-authenticate")) == (401, "Bearer")
    assert tight.request("POST", "/extract", b"<p>x</p>", {"Authorization": "Bearer wrong"})[0] == 401
    assert tight.request("GET", "/healthz")[0] == 200  # never needs the token
    status, _, raw = tight.request("POST", "/extract", b"x" * 65537, auth)
    assert (status, raw) == (413, serve_error(413, "body larger than 65536 bytes"))
    heavy = (
        "<html><body>" + "<div><p>Some words in a paragraph here.</p></div>" * 1200 + "</body></html>"
    ).encode()
    assert len(heavy) < 65536
    status, _, raw = tight.request("POST", "/extract", heavy, auth)
    assert status == 504 and "deadline" in json.loads(raw)["error"], raw[:300]
    assert tight.request("GET", "/stages", headers=auth)[0] == 200  # the isolate lives on
    assert tight.json("GET", "/healthz")[1]["unhandled_rejections"] == 0
