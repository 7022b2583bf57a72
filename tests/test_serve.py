"""``readwell serve`` through real HTTP on 127.0.0.1: the CLI's JSON byte for byte, each limit's status,
errors as JSON, the bearer token, the access log and a graceful shutdown. Timing is never asserted: the
deadline test uses a page that takes far longer than the 2 s deadline (tens of seconds), and timeouts are hang
guards."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import localserver
import pytest
import readwell
from readwell.cli import render
from servelib import Served, descendants, serve

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PAGES = ["core--news-article-basic.html", "quality--comment-thread-larger-than-article.html"]
BASE = "https://example.org/news/story"


def cli_json(html: bytes | str, url: str | None, **options: Any) -> bytes:
    return render(readwell.extract(html, url=url, **options).to_dict(), "json").encode()


def heavy_page() -> bytes:
    """Tens of seconds of extraction on any machine this runs on (measured ~35 s on a busy 2-core box)."""
    divs = "".join(
        f"<div class=c{i % 7}><p>Sentence number {i} with some words, commas, and more.</p>"
        f"<a href=/x{i}>link {i}</a></div>"
        for i in range(20000)
    )
    return f"<html><body>{divs}</body></html>".encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(tmp_path_factory.mktemp("serve"), "-j", "2", "--max-body", "65536", "--deadline", "120") as s:
        yield s


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One worker, no queue, 2 s deadline, local URLs allowed: for 503, 504, 408 and fetching."""
    args = ("-j", "1", "--queue", "0", "--deadline", "2", "--max-body", "4000000", "--allow-private")
    with serve(tmp_path_factory.mktemp("tight"), *args) as s:
        yield s


@pytest.mark.parametrize("name", PAGES)
def test_raw_and_json_posts_answer_the_clis_json(server: Served, name: str) -> None:
    html = (FIXTURES / name).read_bytes()
    expected = cli_json(html, BASE)
    status, headers, body = server.request(
        "POST", f"/extract?url={quote(BASE)}", html, {"Content-Type": "text/html; charset=utf-8"}
    )
    assert (status, headers["content-type"]) == (200, "application/json")
    assert body == expected
    status, _, body = server.request(
        "POST",
        "/extract",
        json.dumps({"html": html.decode(), "url": BASE}),
        {"Content-Type": "application/json"},
    )
    assert (status, body) == (200, expected)


def test_options_in_json_and_query(server: Served) -> None:
    html = (FIXTURES / PAGES[0]).read_bytes()
    expected = cli_json(html, BASE, disable=["remove_by_pattern"], front_matter=True)
    options = {"disable": ["remove_by_pattern"], "front_matter": True}
    status, _, body = server.request(
        "POST",
        "/extract",
        json.dumps({"html": html.decode(), "url": BASE, "options": options}),
        {"Content-Type": "application/json"},
    )
    assert (status, body) == (200, expected)
    query = f"/extract?url={quote(BASE)}&disable=remove_by_pattern&front_matter=true"
    status, _, body = server.request("POST", query, html, {"Content-Type": "text/html"})
    assert (status, body) == (200, expected)
    assert expected != cli_json(html, BASE)  # the options changed the answer


def test_not_found_is_200_with_found_false(server: Served) -> None:
    status, data = server.json("POST", "/extract", {"html": "<p>hi</p>"})
    assert status == 200 and data["found"] is False


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ("{bad", 400, "invalid JSON"),
        ("[1, 2]", 400, "must be an object"),
        ('"<p>x</p>"', 400, "must be an object"),
        ('{"html": 3}', 400, '"html" must be a string'),
        ('{"url": ["x"]}', 400, '"url" must be a string'),
        ("{}", 400, 'give "html"'),
        ('{"html": "<p>x</p>", "extra": 1}', 400, "unknown field(s): extra"),
        ('{"html": "x", "options": []}', 400, '"options" must be a JSON object'),
        ('{"html": "x", "options": {"debug": "yes"}}', 400, 'option "debug" must be bool'),
        ('{"html": "x", "options": {"min_article_chars": true}}', 400, "must be int"),
        ('{"html": "x", "options": {"disable": [1]}}', 400, "list of strings"),
        ('{"html": "x", "options": {"colour": "red"}}', 422, "unknown option(s): colour"),
        ('{"html": "x", "options": {"disable": ["nope"]}}', 422, "unknown stage(s): nope"),
        ('{"url": "file:///etc/passwd"}', 422, "only http(s)"),
        ('{"url": "http://127.0.0.1:9/"}', 422, "loopback address"),
        ('{"url": "http://[::1]/"}', 422, "loopback address"),
        ('{"url": "http://2130706433/"}', 422, "loopback address"),
        ('{"url": "http://169.254.169.254/latest/meta-data/"}', 422, "link-local address"),
        (b'{"html": "\xff\xfe"}', 400, "invalid JSON"),
        ("[" * 30000 + "]" * 30000, 400, "invalid JSON"),  # RecursionError in json.loads
    ],
    ids=lambda v: str(v)[:40] if isinstance(v, str | bytes) else None,
)
def test_bad_json_requests(server: Served, body: str | bytes, status: int, message: str) -> None:
    got, headers, raw = server.request("POST", "/extract", body, {"Content-Type": "application/json"})
    data = json.loads(raw)
    assert (got, headers["content-type"], data["status"]) == (status, "application/json", status)
    assert message in data["error"]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/extract", 400),
        ("GET", "/extract?url=gopher://example.org/", 422),
        ("POST", "/extract?debug=maybe", 400),
        ("POST", "/extract?min_article_chars=x", 400),
        ("GET", "/nowhere", 404),
        ("DELETE", "/extract", 405),
        ("POST", "/stages", 405),
    ],
)
def test_routing_and_query_errors_are_json(server: Served, method: str, path: str, status: int) -> None:
    got, headers, raw = server.request(method, path, b"<p>x</p>" if method == "POST" else None)
    assert (got, headers["content-type"], json.loads(raw)["status"]) == (status, "application/json", status)


def test_empty_raw_body_is_400(server: Served) -> None:
    status, data = server.json("POST", "/extract")
    assert status == 400 and "empty body" in data["error"]


def test_body_limit_413_with_and_without_length(server: Served) -> None:
    big = b"<p>" + b"x" * 70000 + b"</p>"
    status, _, raw = server.request("POST", "/extract", big, {"Content-Type": "text/html"})
    assert status == 413 and "65536" in json.loads(raw)["error"]

    def chunks() -> Iterator[bytes]:
        for _ in range(20):
            yield b"<p>" + b"y" * 5000 + b"</p>"

    status, headers, raw = server.request("POST", "/extract", chunks(), {"Content-Type": "text/html"})  # type: ignore[arg-type]
    assert status == 413  # no Content-Length: http.client sends it chunked, the server counts


def test_stages_and_healthz(server: Served) -> None:
    status, data = server.json("GET", "/stages")
    assert status == 200 and [s["name"] for s in data["stages"]] == list(readwell.STAGE_NAMES)
    status, data = server.json("GET", "/healthz")
    assert status == 200 and data["status"] == "ok" and data["workers"] == 2 and data["capacity"] == 10


def test_access_log_is_json_lines(server: Served) -> None:
    server.request("GET", "/healthz?secret=1")
    server.request("GET", "/nowhere")
    time.sleep(0.2)  # the log line is written after the response is sent (not a timing assertion)
    entries = server.log_entries()
    assert {"ts", "client", "method", "path", "status", "bytes", "ms"} <= set(entries[-1])
    assert [(e["path"], e["status"]) for e in entries[-2:]] == [("/healthz", 200), ("/nowhere", 404)]
    assert all("secret" not in json.dumps(e) for e in entries)  # query strings are not logged


def test_bearer_token(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-token\n")
    with serve(tmp_path, "-j", "1", "--token-file", str(token_file)) as s:
        status, headers, raw = s.request("POST", "/extract", "<p>x</p>")
        assert (status, headers.get("www-authenticate")) == (401, "Bearer")
        assert s.request("GET", "/stages", headers={"Authorization": "Bearer wrong"})[0] == 401
        assert s.request("GET", "/stages", headers={"Authorization": "Basic s3cret-token"})[0] == 401
        assert s.request("GET", "/stages", headers={"Authorization": "Bearer s3cret-token"})[0] == 200
        status, _, _ = s.request("POST", "/extract", "<p>x</p>", {"Authorization": "bearer s3cret-token"})
        assert status == 200
        assert s.request("GET", "/healthz")[0] == 200  # health checks need no token


def test_fetch_url_and_ssrf_guard(server: Served, tight: Served) -> None:
    html = (FIXTURES / PAGES[0]).read_bytes()
    with localserver.serve({"/a.html": (html, "text/html; charset=utf-8")}) as base:
        url = f"{base}/a.html"
        status, data = server.json("GET", f"/extract?url={quote(url)}")
        assert status == 422 and "loopback address" in data["error"]  # private addresses refused by default
        status, _, body = tight.request("GET", f"/extract?url={quote(url)}")  # --allow-private
        assert (status, body) == (200, render(readwell.extract_url(url).to_dict(), "json").encode())
        status, data = tight.json("POST", "/extract", {"url": f"{base}/missing.html"})
        assert status == 502 and "HTTP 404" in data["error"]


def test_deadline_504_queue_503_and_recovery(tight: Served) -> None:
    results: dict[str, Any] = {}

    def slow() -> None:
        results["slow"] = tight.request("POST", "/extract", heavy_page(), {"Content-Type": "text/html"})

    thread = threading.Thread(target=slow)
    thread.start()
    for _ in range(600):  # wait until the one worker is busy (hang guard: 60 s)
        if tight.json("GET", "/healthz")[1]["busy"] == 1:
            break
        time.sleep(0.1)
    status, headers, raw = tight.request("POST", "/extract", "<p>x</p>", {"Content-Type": "text/html"})
    assert (status, headers.get("retry-after")) == (503, "1") and json.loads(raw)["status"] == 503
    thread.join(timeout=120)
    status, _, raw = results["slow"]
    assert status == 504 and "deadline" in json.loads(raw)["error"]
    health = tight.json("GET", "/healthz")[1]
    assert health["workers_replaced"] in (0, 1)  # the core's deadline stopped it, or the backstop kill did
    html = (FIXTURES / PAGES[0]).read_bytes()
    status, _, body = tight.request("POST", f"/extract?url={quote(BASE)}", html)
    assert (status, body) == (200, cli_json(html, BASE))  # the replacement serves


def test_slow_body_is_408(tight: Served) -> None:
    import socket

    with socket.create_connection(("127.0.0.1", tight.port), timeout=60) as sock:
        sock.sendall(
            b"POST /extract HTTP/1.1\r\nHost: x\r\nContent-Type: text/html\r\nContent-Length: 1000\r\n\r\n<p>"
        )
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408 ")


def test_graceful_shutdown_finishes_in_flight_request(tmp_path: Path) -> None:
    """SIGTERM while a fetch is in flight (the page trickles for ~1.5 s): the request still gets its 200,
    then the server exits and its workers are gone."""
    import http.server
    import socketserver

    html = (FIXTURES / PAGES[0]).read_bytes()
    started = threading.Event()

    class Trickle(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(html)))
            self.end_headers()
            started.set()
            for i in range(0, len(html), len(html) // 15 + 1):
                self.wfile.write(html[i : i + len(html) // 15 + 1])
                self.wfile.flush()
                time.sleep(0.1)

        def log_message(self, *a: Any) -> None:
            pass

    page = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Trickle)
    threading.Thread(target=page.serve_forever, args=(0.05,), daemon=True).start()
    url = f"http://127.0.0.1:{page.server_address[1]}/a.html"
    try:
        with serve(tmp_path, "-j", "1", "--allow-private") as s:
            result: dict[str, Any] = {}
            t = threading.Thread(
                target=lambda: result.update(r=s.request("GET", f"/extract?url={quote(url)}"))
            )
            t.start()
            assert started.wait(60)
            children = descendants(s.proc.pid)
            assert len(children) >= 2  # forkserver and the worker (and the resource tracker)
            s.proc.send_signal(signal.SIGTERM)
            t.join(timeout=60)
            # uvicorn re-raises the signal once shut down, so the exit status says "terminated by SIGTERM"
            assert s.proc.wait(timeout=60) in (0, -signal.SIGTERM)
            for _ in range(100):  # hang guard: the workers go with the server
                if not any(Path(f"/proc/{pid}").exists() for pid in children):
                    break
                time.sleep(0.1)
            assert not any(Path(f"/proc/{pid}").exists() for pid in children)
            status, _, body = result["r"]
            assert (status, body) == (200, render(readwell.extract_url(url).to_dict(), "json").encode())
    finally:
        page.shutdown()
        page.server_close()
