"""readwell.fetch: the SSRF guard refuses each address class, connects only to the address it checked, and
bounds redirects, size and time. Every connection goes to 127.0.0.1: where a test needs a host that looks
public, the resolver is mocked and the socket opener maps that stand-in address to the local server (and fails
the test on any other address), so nothing leaves the machine."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import readwell
from readwell import fetch as fetch_mod
from readwell.errors import InputError
from readwell.fetch import FetchRefused, fetch, parse_ipv4_host, parse_target

PAGE = b"<html><head><title>Local</title></head><body><article><p>" + b"Words here. " * 40 + b"</p></article>"
PUBLIC_STANDIN = "93.184.216.34"  # looks public to the guard; the patched opener maps it to 127.0.0.1


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str]]

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        self.seen.append((self.path, self.headers.get("Host", "")))
        path, _, query = self.path.partition("?")
        if path == "/page":
            self._send(200, PAGE, "text/html; charset=iso-8859-1")
        elif path == "/redirect":
            self.send_response(302)
            self.send_header("Location", query.removeprefix("to="))
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/loop":
            self.send_response(301)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/big":
            self._send(200, b"x" * 5000, "text/html")
        elif path == "/big-chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for _ in range(5):
                self.wfile.write(b"3e8\r\n" + b"y" * 1000 + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/slow":  # headers at once, then one byte every 0.2 s for up to 60 s
            self.send_response(200)
            self.send_header("Content-Length", "300")
            self.end_headers()
            with contextlib.suppress(OSError):
                for _ in range(300):
                    self.wfile.write(b"z")
                    self.wfile.flush()
                    time.sleep(0.2)
        else:
            self._send(404, b"missing", "text/plain")

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def local_server(tls: ssl.SSLContext | None = None) -> Iterator[tuple[int, list[tuple[str, str]]]]:
    """A server on 127.0.0.1: yields (port, requests seen as (path, Host header))."""
    seen: list[tuple[str, str]] = []
    handler = type("Handler", (_Handler,), {"seen": seen})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    if tls is not None:
        httpd.socket = tls.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1], seen
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def server() -> Iterator[tuple[int, list[tuple[str, str]]]]:
    with local_server() as s:
        yield s


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Route connections to PUBLIC_STANDIN to 127.0.0.1; any other address fails. Returns the log of
    (address, port) the fetcher asked to connect to."""
    connected: list[tuple[str, int]] = []
    real = socket.create_connection

    def opener(address: tuple[str, int], timeout: float | None = None, *a: Any, **k: Any) -> socket.socket:
        connected.append(address)
        ip, port = address
        if ip == PUBLIC_STANDIN:
            return real(("127.0.0.1", port), timeout)
        if ip == "127.0.0.1":
            return real(address, timeout)
        raise AssertionError(f"the test would have connected to {address}")

    monkeypatch.setattr(fetch_mod.socket, "create_connection", opener)
    return connected


def resolver_for(table: dict[str, list[str]], calls: list[str]) -> Any:
    def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[host]

    return resolve


# --- refused classes -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("[::1]", "loopback"),
        ("2130706433", "loopback"),  # decimal
        ("0177.0.0.1", "loopback"),  # octal
        ("0x7f.1", "loopback"),  # hex, short form
        ("127.1", "loopback"),
        ("[::ffff:127.0.0.1]", "loopback IPv4 127.0.0.1 inside IPv6"),
        ("[::ffff:7f00:1]", "loopback IPv4 127.0.0.1 inside IPv6"),
        ("[2002:7f00:1::]", "loopback IPv4 127.0.0.1 inside IPv6"),  # 6to4
        ("[64:ff9b::a9fe:a9fe]", "link-local IPv4 169.254.169.254 inside IPv6"),  # NAT64
        ("169.254.169.254", "link-local"),  # cloud metadata
        ("[fe80::1]", "link-local"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("[fc00::1]", "private"),
        ("100.64.0.1", "shared (carrier-grade NAT)"),
        ("224.0.0.251", "multicast"),
        ("[ff02::1]", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("0", "unspecified"),
        ("[::]", "unspecified"),
        ("240.0.0.1", "private"),  # reserved class E; Python files it under is_private
        ("255.255.255.255", "private"),
    ],
)
def test_refused_address_classes(server: tuple[int, list[Any]], host: str, why: str) -> None:
    port, seen = server
    with pytest.raises(FetchRefused, match=f": {re.escape(why)} address$"):
        fetch(f"http://{host}:{port}/page")
    assert seen == []  # refused before connecting


def test_hostname_resolving_to_private_address_is_refused(standin: list[Any]) -> None:
    calls: list[str] = []
    resolver = resolver_for(
        {"intranet.example": ["10.0.0.5"], "mixed.example": [PUBLIC_STANDIN, "192.168.0.7"]}, calls
    )
    with pytest.raises(FetchRefused, match=r"intranet\.example resolves to 10\.0\.0\.5\): private address"):
        fetch("http://intranet.example/page", resolver=resolver)
    # one bad address among good ones refuses the host: the connection could go to any of them
    with pytest.raises(FetchRefused, match=r"resolves to 192\.168\.0\.7"):
        fetch("http://mixed.example/page", resolver=resolver)
    assert standin == []  # nothing was connected to


def test_localhost_name_is_refused(server: tuple[int, list[Any]]) -> None:
    port, seen = server
    with pytest.raises(FetchRefused, match="loopback address"):
        fetch(f"http://localhost:{port}/page")  # the real resolver: localhost is loopback everywhere
    assert seen == []


def test_redirect_to_loopback_is_refused(server: tuple[int, list[Any]], standin: list[Any]) -> None:
    port, seen = server
    calls: list[str] = []
    resolver = resolver_for({"public.example": [PUBLIC_STANDIN]}, calls)
    for target in (f"http://127.0.0.1:{port}/page", f"http://2130706433:{port}/page", "http://[::1]/page"):
        seen.clear()
        with pytest.raises(FetchRefused, match="loopback"):
            fetch(f"http://public.example:{port}/redirect?to={target}", resolver=resolver)
        assert [p for p, _ in seen] == [f"/redirect?to={target}"]  # the second hop never happened


def test_connects_to_the_checked_address_once_resolved(
    server: tuple[int, list[Any]], standin: list[Any]
) -> None:
    """DNS rebinding: the name is resolved once per hop and the socket goes to that address; the name is
    only in the Host header. A resolver that answered differently on a second lookup would not be asked."""
    port, seen = server
    calls: list[str] = []
    answers = iter([[PUBLIC_STANDIN], ["127.0.0.1"]])

    def rebinding(host: str, p: int) -> list[str]:
        calls.append(host)
        return next(answers)

    body, encoding, final = fetch(f"http://public.example:{port}/page", resolver=rebinding)
    assert body == PAGE and encoding == "iso-8859-1" and final == f"http://public.example:{port}/page"
    assert calls == ["public.example"]
    assert standin == [(PUBLIC_STANDIN, port)]
    assert seen == [("/page", f"public.example:{port}")]


def test_redirect_hops_are_each_resolved_and_checked(
    server: tuple[int, list[Any]], standin: list[Any]
) -> None:
    port, seen = server
    calls: list[str] = []
    resolver = resolver_for({"a.example": [PUBLIC_STANDIN], "b.example": [PUBLIC_STANDIN]}, calls)
    body, _, final = fetch(
        f"http://a.example:{port}/redirect?to=http://b.example:{port}/page", resolver=resolver
    )
    assert body == PAGE and final == f"http://b.example:{port}/page"
    assert calls == ["a.example", "b.example"]
    assert [h for _, h in seen] == [f"a.example:{port}", f"b.example:{port}"]


# --- allowed path and limits (allow_private on the local server) ----------------------------------------


def test_allow_private_fetches_local_server(server: tuple[int, list[Any]]) -> None:
    port, seen = server
    body, encoding, final = fetch(f"http://127.0.0.1:{port}/page", allow_private=True)
    assert body == PAGE and encoding == "iso-8859-1" and final == f"http://127.0.0.1:{port}/page"
    # a browser's spelling of the same address reaches the same server
    body, _, _ = fetch(f"http://2130706433:{port}/redirect?to=/page", allow_private=True)
    assert body == PAGE
    assert seen[-1] == ("/page", f"127.0.0.1:{port}")


def test_extract_url_allows_private_by_default_and_refuses_on_request(server: tuple[int, list[Any]]) -> None:
    port, _ = server
    url = f"http://127.0.0.1:{port}/page"
    assert readwell.extract_url(url).title == "Local"
    with pytest.raises(FetchRefused):
        readwell.extract_url(url, allow_private=False)
    with pytest.raises(FetchRefused):
        asyncio.run(readwell.aextract_url(url, allow_private=False))


def test_redirect_cap(server: tuple[int, list[Any]]) -> None:
    port, seen = server
    with pytest.raises(InputError, match="more than 3 redirects"):
        fetch(f"http://127.0.0.1:{port}/loop", allow_private=True, max_redirects=3)
    assert len(seen) == 4


@pytest.mark.parametrize("to", ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1:6379/_x"])
def test_redirect_to_other_scheme_is_refused(server: tuple[int, list[Any]], to: str) -> None:
    port, _ = server
    with pytest.raises(InputError, match="only http"):
        fetch(f"http://127.0.0.1:{port}/redirect?to={to}", allow_private=True)


@pytest.mark.parametrize("path", ["/big", "/big-chunked"])
def test_size_cap(server: tuple[int, list[Any]], path: str) -> None:
    port, _ = server
    with pytest.raises(InputError, match="larger than 1000 bytes"):
        fetch(f"http://127.0.0.1:{port}{path}", allow_private=True, max_bytes=1000)
    body, _, _ = fetch(f"http://127.0.0.1:{port}{path}", allow_private=True, max_bytes=5000)
    assert len(body) == 5000


def test_deadline_covers_a_trickling_body(server: tuple[int, list[Any]]) -> None:
    """Each byte arrives well within a socket timeout; only the whole-fetch deadline stops it. The server
    would take 60 s; the fetch must give up (no timing asserted, pytest's run is the hang guard)."""
    port, _ = server
    with pytest.raises(InputError, match="no complete answer within 1 s"):
        fetch(f"http://127.0.0.1:{port}/slow", allow_private=True, timeout=1.0)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.org/x",
        "javascript:alert(1)",
        "http://",
        "http://user:pass@example.org/",
        "http://[::1/",
        "http://example.org:99999/",
        "http://256.0.0.1/",
        "http://1.2.3.4.5/",
        "http://[fe80::1%25eth0]/",
    ],
)
def test_malformed_urls_are_input_errors(url: str) -> None:
    with pytest.raises(InputError):
        fetch(url, allow_private=True)


def test_unresolvable_host_is_input_error() -> None:
    with pytest.raises(InputError, match="cannot resolve nowhere.invalid"):
        fetch("http://nowhere.invalid/", resolver=resolver_for({}, []))


def test_ipv4_spellings_read_as_browsers_do() -> None:
    assert {
        str(parse_ipv4_host(h)) for h in ("2130706433", "0177.0.0.1", "0x7f.0.0.1", "127.1", "0x7f000001")
    } == {"127.0.0.1"}
    assert parse_ipv4_host("example.org") is None
    assert parse_ipv4_host("1.2.3.0x1g") is None  # not a number: a name
    assert parse_target("http://[::1]:8080/a b?q=é").path == "/a%20b?q=%C3%A9"
    assert parse_target("https://BÜCHER.example/").host == "xn--bcher-kva.example"


# --- TLS: connected to the address, verified against the name --------------------------------------------


def _make_cert(tmp: Path, name: str) -> tuple[Path, Path]:
    key, cert = tmp / f"{name}.key", tmp / f"{name}.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={name}",
         "-addext", f"subjectAltName=DNS:{name}", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_https_sends_sni_and_verifies_the_name(
    tmp_path: Path, standin: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = _make_cert(tmp_path, "public.example")
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)
    sni: list[str | None] = []
    server_ctx.sni_callback = lambda sock, name, ctx: sni.append(name)  # type: ignore[assignment,func-returns-value]
    client_ctx = ssl.create_default_context(cafile=str(cert))
    monkeypatch.setattr(fetch_mod, "_tls_context", lambda: client_ctx)
    resolver = resolver_for({"public.example": [PUBLIC_STANDIN], "other.example": [PUBLIC_STANDIN]}, [])
    with local_server(tls=server_ctx) as (port, seen):
        body, _, _ = fetch(f"https://public.example:{port}/page", resolver=resolver)
        assert body == PAGE
        assert sni == ["public.example"] and seen == [("/page", f"public.example:{port}")]
        # the same address under another name: the certificate does not match, nothing is fetched
        with pytest.raises(InputError, match="cannot fetch .*(certificate|hostname)"):
            fetch(f"https://other.example:{port}/page", resolver=resolver)
        assert len(seen) == 1
