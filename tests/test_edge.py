"""The edge handler (build/edge) over real HTTP on 127.0.0.1 in workerd, Node, Deno and Bun: every fixture
gives the JSON CPython gives, and the routes, limits, errors and URL refusals are those of ``readwell serve``.

workerd is the most constrained runtime (no compiling wasm from bytes, no eval): the engine's wasm arrives as
a module workerd compiled, and /healthz counts unhandled rejections (the Emscripten adapter wart gave one per
load before build_edge.mjs precompiled the adapters). Each runtime is started once for this module, plus once
more with a tiny body limit and deadline for 413 and 504, and (workerd, Node, Bun) once with private
addresses allowed and a queue of 1, for fetching 127.0.0.1 pages and the 503. Bun runs the Node entry.
Vercel's edge-runtime is not here: it evaluates one classic script, so it needs a bundled build of its own
(see README "Edge"). Speed figures are in benchmarks/edge.py, not here.
"""

from __future__ import annotations

import contextlib
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

import localserver
import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((ROOT / "fixtures").glob("*.html"))
FIXTURE_RE = re.compile(rb"^(?:\xef\xbb\xbf)?\s*<!--\s*readwell-fixture:\s*(\{.*?\})\s*-->", re.S)
NODE = shutil.which("node")
WORKERD = ROOT / "node_modules" / ".bin" / "workerd"
DENO = ROOT / "node_modules" / ".bin" / "deno"
BUN = ROOT / "node_modules" / ".bin" / "bun"
IN_CI = bool(os.environ.get("CI"))
START_TIMEOUT = 120  # hang guards only
REQUEST_TIMEOUT = 120
RUNTIMES = ("workerd", "node", "deno", "bun")
IGNORED_KEYS = frozenset({"timings"})
EDGE_ENV = (
    "READWELL_TOKEN",
    "READWELL_MAX_BODY",
    "READWELL_DEADLINE_MS",
    "READWELL_QUEUE",
    "READWELL_ALLOW_PRIVATE",
)

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
        return localserver.request(self.port, method, path, body, headers, REQUEST_TIMEOUT)

    def json(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        return localserver.json_request(self.port, method, path, body, REQUEST_TIMEOUT)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def start(
    edge_dir: Path, runtime: str, tmp: Path, capnp: str = "workerd.capnp", **env: str
) -> Iterator[Edge]:
    """Start the handler in `runtime` on a free port of 127.0.0.1; stop it (SIGTERM) afterwards. `capnp`:
    workerd's configuration (workerd-private.capnp lets its network service reach 127.0.0.1)."""
    port = _free_port()
    if runtime == "workerd":
        _need(WORKERD, "workerd (npm devDependency)")
        cmd = [
            str(WORKERD),
            "serve",
            str(edge_dir / capnp),
            "--socket-addr",
            f"http=127.0.0.1:{port}",
        ]
    elif runtime == "deno":
        _need(DENO, "deno (npm devDependency)")
        allow_env = "--allow-env=" + ",".join(EDGE_ENV)
        cmd = [str(DENO), "serve", "--allow-read=.", "--allow-net", allow_env, "--host", "127.0.0.1"]
        cmd += ["--port", str(port)]
        cmd.append("deno.mjs")
    elif runtime == "bun":  # Bun runs the Node entry unchanged (node:http, node:fs are Bun's too)
        _need(BUN, "bun (npm devDependency)")
        cmd = [str(BUN), str(edge_dir / "node.mjs"), "--port", str(port)]
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


# URLs the handler must refuse before any connection, each spelling of each class (readwell.fetch's list).
REFUSED_URLS = [
    ("http://127.0.0.1:1/", "loopback"),
    ("http://2130706433/", "loopback"),  # decimal
    ("http://0177.0.0.1/", "loopback"),  # octal
    ("http://0x7f.1/", "loopback"),  # hex, short form
    ("http://127.1/", "loopback"),
    ("http://[::1]/", "loopback"),
    ("http://[::ffff:127.0.0.1]/", "loopback IPv4 127.0.0.1 inside IPv6"),
    ("http://[64:ff9b::7f00:1]/", "loopback IPv4 127.0.0.1 inside IPv6"),  # NAT64
    ("http://[2002:7f00:1::]/", "loopback IPv4 127.0.0.1 inside IPv6"),  # 6to4
    ("http://0.0.0.0/", "unspecified"),
    ("http://[::]/", "unspecified"),
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://[fe80::1]/", "link-local"),
    ("http://10.1.2.3/", "private"),
    ("http://172.16.0.1/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://[fd00::1]/", "private"),
    ("http://100.64.0.1/", "shared (carrier-grade NAT)"),
    ("http://224.0.0.1/", "multicast"),
    ("http://[ff02::1]/", "multicast"),
    ("http://240.0.0.1/", "reserved"),
    ("http://localhost/", "localhost"),
    ("http://LOCALHOST./", "localhost"),
    ("http://api.localhost/", ".localhost"),
    ("http://printer.local/", ".local"),
    ("http://metadata.google.internal/", ".internal"),
    ("http://intranet/", "single-label"),
    ("ftp://example.org/file", "only http(s)"),
    ("file:///etc/passwd", "only http(s)"),
    ("http://user:pw@example.org/", "credentials"),
]


def test_url_classes_are_refused_before_any_connection(edge: Edge) -> None:
    """Every refused class, in every spelling, as GET ?url= and as POST {"url"}: 422, as serve answers."""
    for url, why in REFUSED_URLS:
        status, data = edge.json("GET", "/extract?" + urlencode({"url": url}))
        assert (status, data["status"]) == (422, 422), (url, data)
        assert why in data["error"], (url, data)
    status, data = edge.json("POST", "/extract", {"url": "http://[::1]:1/", "options": {"selector": "main"}})
    assert status == 422 and "loopback" in data["error"]
    status, data = edge.json("GET", "/extract?url=http%3A%2F%2F127.0.0.1%3A1%2F&no_such_option=1")
    assert status == 422 and "no_such_option" in data["error"]  # options are checked before any fetch
    assert edge.json("GET", "/healthz")[1]["busy"] == 0


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


# --- URL fetching with private addresses allowed, and the bounded queue -------------------------------


class PageServer:
    """Pages on 127.0.0.1 for the edge to fetch: /page (a fixture), /redirect (to /page), /slow (answers only
    once `release` is set: a job that holds the isolate's slot while it downloads)."""

    def __init__(self, page: bytes) -> None:
        import http.server
        import threading

        self.release = threading.Event()
        self.page = page
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                if self.path == "/redirect":
                    self.send_response(302)
                    self.send_header("Location", "/page")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if self.path == "/slow":
                    server.release.wait(timeout=START_TIMEOUT)
                elif self.path != "/page":
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(server.page)))
                self.end_headers()
                self.wfile.write(server.page)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


PAGE_FIXTURE = ROOT / "fixtures" / "core--news-article-basic.html"


@pytest.fixture(scope="module")
def pages() -> Iterator[PageServer]:
    srv = PageServer(PAGE_FIXTURE.read_bytes())
    yield srv
    srv.close()


@pytest.fixture(scope="module", params=("workerd", "node", "bun"))
def private(
    request: pytest.FixtureRequest, edge_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Edge]:
    """READWELL_ALLOW_PRIVATE=1 and a queue of 1; workerd with the network service that reaches 127.0.0.1."""
    env = {"READWELL_ALLOW_PRIVATE": "1", "READWELL_QUEUE": "1"}
    tmp = tmp_path_factory.mktemp("edge-private")
    with start(edge_dir, request.param, tmp, capnp="workerd-private.capnp", **env) as e:
        yield e


def test_a_127_page_is_fetched_only_when_private_addresses_are_allowed(
    private: Edge, edge: Edge, pages: PageServer
) -> None:
    import readwell

    url = pages.base + "/redirect"  # one redirect hop, re-checked, then /page
    status, _, raw = private.request("GET", "/extract?" + urlencode({"url": url}))
    assert status == 200, raw[:300]
    want = readwell.extract(PAGE_FIXTURE.read_bytes(), url=pages.base + "/page").to_dict()
    assert strip_ignored(json.loads(raw)) == strip_ignored(json.loads(json.dumps(want, ensure_ascii=False)))
    status, data = private.json("POST", "/extract", {"url": pages.base + "/page", "options": {"format": "x"}})
    assert status == 422, data  # a bad option is the client's error, fetched or not
    status, data = private.json("GET", "/extract?" + urlencode({"url": pages.base + "/missing"}))
    assert status == 502 and "HTTP 404" in data["error"]
    status, data = edge.json("GET", "/extract?" + urlencode({"url": url}))  # the default: refused
    assert status == 422 and "loopback" in data["error"], data


def test_queue_full_answers_503_with_retry_after(private: Edge, pages: PageServer) -> None:
    """One job runs (a URL that answers only when released), one waits (READWELL_QUEUE=1), the next is 503;
    the state is read from /healthz, never from timing."""
    from concurrent.futures import ThreadPoolExecutor

    def wait_for(key: str, value: int) -> None:
        for _ in range(START_TIMEOUT * 10):
            if private.json("GET", "/healthz")[1][key] == value:
                return
            time.sleep(0.1)
        pytest.fail(f"{private.runtime}: /healthz never showed {key}={value}")

    private.json("GET", "/stages")  # the engine is loaded before the queue is measured
    pages.release.clear()
    with ThreadPoolExecutor(2) as pool:
        try:
            slow = pool.submit(private.request, "GET", "/extract?" + urlencode({"url": pages.base + "/slow"}))
            wait_for("busy", 1)
            queued = pool.submit(private.request, "POST", "/extract", PAGE_FIXTURE.read_bytes())
            wait_for("queued", 1)
            status, headers, raw = private.request("POST", "/extract", b"<p>x</p>")
            assert (status, headers.get("retry-after")) == (503, "1"), raw
            assert raw == serve_error(503, "too many requests in progress; retry shortly")
        finally:
            pages.release.set()
        assert slow.result()[0] == 200 and queued.result()[0] == 200
    health = private.json("GET", "/healthz")[1]
    assert (health["busy"], health["queued"], health["capacity"]) == (0, 0, 2)


def test_workerd_network_refuses_private_addresses_the_handler_let_through(
    edge_dir: Path, tmp_path: Path, pages: PageServer
) -> None:
    """The default workerd.capnp connects to public addresses only, after DNS resolution: with the handler's
    own checks off (READWELL_ALLOW_PRIVATE=1), 127.0.0.1 and a name resolving to it still fail (502)."""
    host = socket.gethostname()
    with start(edge_dir, "workerd", tmp_path, READWELL_ALLOW_PRIVATE="1") as e:
        for url in (pages.base + "/page", f"http://{host}:{pages.httpd.server_address[1]}/page"):
            status, data = e.json("GET", "/extract?" + urlencode({"url": url}))
            assert status == 502 and data["error"].startswith("cannot fetch"), (url, data)
    if not ipaddress_of(host).is_loopback:
        pytest.skip(f"{host} does not resolve to a loopback address here; only the 127.0.0.1 URL was checked")


def ipaddress_of(host: str) -> Any:
    import ipaddress

    return ipaddress.ip_address(socket.gethostbyname(host))


# --- fetch_guard.mjs on its own (Node): classes as readwell.fetch, redirects, caps -----------------------


# Addresses on both sides of every class boundary readwell.fetch knows, IPv4 inside IPv6 included.
GUARD_HOSTS = [
    "0.0.0.0",
    "0.255.255.255",
    "1.0.0.1",
    "8.8.8.8",
    "9.255.255.255",
    "10.0.0.0",
    "10.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.64.0.0",
    "100.127.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "127.0.0.1",
    "127.255.255.255",
    "128.0.0.0",
    "169.253.255.255",
    "169.254.169.254",
    "169.255.0.0",
    "172.15.255.255",
    "172.16.0.0",
    "172.31.255.255",
    "172.32.0.0",
    "192.0.0.8",
    "192.0.2.1",
    "192.168.0.1",
    "192.169.0.0",
    "198.17.255.255",
    "198.18.0.0",
    "198.19.255.255",
    "198.20.0.0",
    "198.51.100.7",
    "203.0.113.9",
    "223.255.255.255",
    "224.0.0.1",
    "239.255.255.255",
    "240.0.0.1",
    "255.255.255.255",
    "93.184.215.14",
    "1.1.1.1",
    "[::]",
    "[::1]",
    "[::2]",
    "[::ffff:7f00:1]",
    "[::ffff:808:808]",
    "[::ffff:a00:1]",
    "[64:ff9b::a00:1]",
    "[64:ff9b::808:808]",
    "[2002:7f00:1::]",
    "[2002:808:808::]",
    "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",
    "[2001:db8::1]",
    "[2001:4860:4860::8888]",
    "[2606:4700:4700::1111]",
    "[2a00:1450:4001::1]",
    "[fe80::1]",
    "[febf::1]",
    "[fec0::1]",
    "[fc00::1]",
    "[fdff::1]",
    "[ff02::1]",
    "[100::1]",
    "[1fff:ffff::1]",
    "[4000::1]",
    "[2001:10::1]",
]


def test_fetch_guard_agrees_with_readwell_fetch_and_rechecks_every_hop(edge_dir: Path) -> None:
    import ipaddress

    from readwell.fetch import refusal

    assert NODE is not None
    proc = subprocess.run(
        [NODE, str(ROOT / "tests" / "edge_guard_check.mjs"), str(edge_dir / "fetch_guard.mjs")],
        input=json.dumps({"hosts": GUARD_HOSTS}),
        capture_output=True,
        text=True,
        cwd=edge_dir,
        timeout=REQUEST_TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    # Every address readwell.fetch refuses, the edge refuses; it may be stricter only in documented ranges.
    stricter = {"192.0.0.8", "192.88.99.1"}
    for host, js in zip(GUARD_HOSTS, out["classes"], strict=True):
        py = refusal(ipaddress.ip_address(host.strip("[]")))
        if py is not None:
            assert js is not None, (host, py)
        elif host not in stricter:
            assert js is None, (host, js)
    assert out["redirect_to_loopback"]["error"] == "FetchRefused"
    assert "loopback" in out["redirect_to_loopback"]["message"]
    assert out["redirect_to_loopback"]["hops"] == ["https://example.org/a"]  # never connected to the 2nd hop
    assert out["redirect_ok"] == {
        "ok": "https://example.org/b",
        "bytes": 8,
        "hops": ["https://example.org/a", "https://example.org/b"],
    }
    assert out["too_many"]["error"] == "FetchFailed" and "more than 5 redirects" in out["too_many"]["message"]
    assert len(out["too_many"]["hops"]) == 6
    assert out["too_big"]["error"] == "FetchFailed" and "larger than 1000 bytes" in out["too_big"]["message"]
    assert out["too_slow"]["error"] == "FetchFailed" and "no answer within" in out["too_slow"]["message"]
    assert out["to_file"]["error"] == "FetchRefused" and "only http(s)" in out["to_file"]["message"]
