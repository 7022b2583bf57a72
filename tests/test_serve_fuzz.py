"""Malformed requests against a real ``readwell serve`` (fixed seed, bounded count): bad JSON, wrong types,
broken HTTP, huge headers, slow bodies. Every answer is a 4xx (or a 200 when a mutation happens to stay
valid), never a 5xx, the server never prints a traceback, and it still answers /healthz at the end."""

from __future__ import annotations

import json
import random
import socket
from collections.abc import Iterator

import pytest
from servelib import Served, serve

SEED = 20261130
VALID = {
    "html": "<article><h1>T</h1><p>" + "Some words here. " * 30 + "</p></article>",
    "url": "https://example.org/a",
}
TYPE_SWAPS = [None, 0, -1, 1.5, True, "", "x", [], ["x"], {}, {"a": 1}, "\ud800", "a" * 5000]
OPTION_NAMES = ["selector", "disable", "debug", "front_matter", "min_article_chars", "char_threshold", "nope"]
# (char_threshold is no longer an option: it checks the unknown-option path like "nope")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(tmp_path_factory.mktemp("fuzz"), "-j", "1", "--deadline", "3", "--max-body", "100000") as s:
        yield s


def raw(served: Served, data: bytes, timeout: float = 60) -> bytes:
    """Send raw bytes and read until the answer's head is complete (or the server closes). No half-close:
    uvicorn takes a client's EOF as the end of the connection and would not answer."""
    with socket.create_connection(("127.0.0.1", served.port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
        except OSError:  # the server may answer and close before all was sent (413, 400)
            pass
        answer = b""
        while b"\r\n\r\n" not in answer:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            answer += chunk
    return answer


def status_of(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    return int(answer[9:12])


def post(path: str, body: bytes, ctype: str = "application/json", extra: str = "") -> bytes:
    head = (
        f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n{extra}"
    )
    return head.encode() + b"Connection: close\r\n\r\n" + body


def mutate_json(rng: random.Random) -> bytes:
    doc: dict[str, object] = dict(VALID)
    choice = rng.randrange(5)
    if choice == 0:  # a field of the wrong type
        doc[rng.choice(["html", "url", "options"])] = rng.choice(TYPE_SWAPS)
    elif choice == 1:  # options of the wrong types
        doc["options"] = {
            rng.choice(OPTION_NAMES): rng.choice(TYPE_SWAPS) for _ in range(rng.randrange(1, 4))
        }
    elif choice == 2:  # a top level that is not an object
        return json.dumps(rng.choice(TYPE_SWAPS)).encode()
    data = bytearray(json.dumps(doc).encode())
    if choice == 3:  # byte flips
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    if choice == 4:  # truncation
        del data[rng.randrange(len(data)) :]
    return bytes(data)


def test_mutated_json_bodies(server: Served) -> None:
    rng = random.Random(SEED)
    seen: dict[int, int] = {}
    for _ in range(150):
        status = status_of(raw(server, post("/extract", mutate_json(rng))))
        seen[status] = seen.get(status, 0) + 1
        assert status == 200 or 400 <= status < 500, status
    assert seen.get(400, 0) > 50  # the mutations mostly break the request (the fuzz is not vacuous)


def test_mutated_query_options(server: Served) -> None:
    rng = random.Random(SEED + 1)
    values = ["", "1", "true", "maybe", "-5", "9" * 30, "%00", "%ff", "%F0%9F%98%80", "a%20b", "[]"]
    for _ in range(60):
        query = "&".join(
            f"{rng.choice(OPTION_NAMES)}={rng.choice(values)}" for _ in range(rng.randrange(1, 4))
        )
        status = status_of(raw(server, post(f"/extract?{query}", b"<p>hello</p>", "text/html")))
        assert status == 200 or 400 <= status < 500, (query, status)


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GARBAGE\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256)),  # a TLS hello on the HTTP port
        b"GET /\x00 HTTP/1.1\r\nHost: t\r\n\r\n",
        b"POST /extract HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n",
        b"POST /extract HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n",
        b"POST /extract HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
        b"POST /extract HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
        b"POST /extract HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\nabc",
        b"GET /extract?url=" + b"%" * 1000 + b" HTTP/1.1\r\nHost: t\r\n\r\n",
        post("/extract", b"x" * 200_000, "text/html"),  # over --max-body
        post("/extract", b'{"html": "\xc3\x28"}'),  # invalid UTF-8 inside JSON
        post("/extract", b"", "text/html"),
        b"POST /extract HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{",
    ],
    ids=lambda b: repr(b[:30]),
)
def test_broken_http(server: Served, request_bytes: bytes) -> None:
    assert 400 <= status_of(raw(server, request_bytes)) < 500


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n", 431),
        (
            b"GET /healthz HTTP/1.1\r\nHost: t\r\n"
            + b"".join(b"X-%d: v\r\n" % i for i in range(500))
            + b"\r\n",
            431,
        ),
        (b"GET /healthz?" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: t\r\n\r\n", 414),
        (
            b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 15_000 + b"\r\n\r\n",
            200,
        ),  # under the limit
    ],
    ids=["huge-header", "many-headers", "long-target", "big-but-allowed"],
)
def test_header_and_target_limits(server: Served, request_bytes: bytes, status: int) -> None:
    assert status_of(raw(server, request_bytes)) == status


def test_slow_body_gets_408_and_others_are_served_meanwhile(server: Served) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as slow:
        slow.sendall(
            b"POST /extract HTTP/1.1\r\nHost: t\r\nContent-Type: text/html\r\nContent-Length: 500\r\n\r\n<p>"
        )
        assert server.request("GET", "/healthz")[0] == 200  # the slow client holds no worker
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = slow.recv(4096)
            if not chunk:
                break
            answer += chunk
    assert status_of(answer) == 408


def test_still_healthy(server: Served) -> None:
    status, data = server.json("GET", "/healthz")
    assert status == 200 and data["workers_replaced"] == 0
    html = VALID["html"]
    assert server.json("POST", "/extract", {"html": html})[0] == 200
