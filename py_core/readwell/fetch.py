"""Fetching a page the user named, without letting the URL turn the fetch against its host (SSRF).

Why not ``urllib.request.urlopen``: it follows redirects anywhere, and it resolves the name again when it
connects, so a name that resolved to a public address when checked can resolve to 127.0.0.1 a moment later
(DNS rebinding). Here every hop (the first URL and each redirect) is:

1. parsed: http and https only, no credentials; a host that ends in a number is an IPv4 address spelled the
   way browsers read it (WHATWG URL: ``2130706433``, ``0177.0.0.1``, ``0x7f.1`` are all 127.0.0.1);
2. resolved once, and every address checked (unless ``allow_private``): loopback, private, link-local (the
   cloud metadata address 169.254.169.254), multicast, reserved, unspecified and shared (CGNAT) addresses are
   refused, in IPv4 and IPv6, including IPv4 addresses carried inside IPv6 (``::ffff:127.0.0.1``, 6to4,
   Teredo, NAT64);
3. connected to a checked address, never the name: the name goes in the Host header and in TLS (SNI, and the
   certificate is verified against it);
4. bounded: redirects (5), body size (25 MiB), and one deadline for the whole fetch (20 s), enforced by a
   watchdog that shuts the socket, so a server that trickles bytes cannot hold it longer.

Only the standard library: the core also runs in Pyodide, which has no sockets (a clear InputError there).
Environment proxies are not used: a proxy would connect to the name itself and defeat the address check.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from .errors import InputError
from .parse import sniff_declared_encoding

MAX_FETCH_BYTES = 25 * 1024 * 1024
FETCH_TIMEOUT = 20.0  # seconds for the whole fetch, redirects included
MAX_REDIRECTS = 5
USER_AGENT = "Readwell/0.1 (+https://example.org/readwell)"
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
DEFAULT_PORTS = {"http": 80, "https": 443}
READ_CHUNK = 64 * 1024

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]

_SHARED_V4 = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052 well-known prefix: the last 32 bits are IPv4

# Address classes refused unless allow_private, in the order they are named in errors. Each is a reason a
# server-side fetch must not reach the address: it is the host itself, its network, or not a unicast host.
_REFUSED: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("unspecified", lambda ip: ip.is_unspecified),  # 0.0.0.0 and :: reach the local host on Linux
    ("loopback", lambda ip: ip.is_loopback),
    ("link-local", lambda ip: ip.is_link_local),  # 169.254.169.254: cloud metadata services
    ("multicast", lambda ip: ip.is_multicast),
    ("private", lambda ip: ip.is_private),
    ("reserved", lambda ip: ip.is_reserved),
    ("site-local", lambda ip: getattr(ip, "is_site_local", False)),  # fec0::/10, deprecated private IPv6
    ("shared (carrier-grade NAT)", lambda ip: ip in _SHARED_V4),
    ("non-global", lambda ip: not ip.is_global),  # anything else IANA marks as not globally reachable
)


class FetchRefused(InputError):
    """The URL, or an address its host resolves to, is one a server must not fetch (see module doc)."""


class FetchFailed(InputError):
    """The URL was fine but the fetch failed: name resolution, connection, HTTP status, size, time.
    A server answers 502 for these, 4xx for the other InputErrors (the client's URL is at fault)."""


@dataclass(frozen=True)
class Target:
    """One hop's parsed URL: what to resolve, what to send, and what to verify TLS against."""

    url: str
    scheme: str
    host: str  # ASCII; an IP literal in canonical form when the URL names an address
    port: int
    path: str  # path and query, percent-encoded ASCII
    literal: IPAddress | None  # set when the host is an IP address (no DNS)


def parse_ipv4_host(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a browser reads in ``host`` (WHATWG "ends in a number"), None for a name.

    Each dot-separated part may be decimal, octal (leading 0) or hex (0x); fewer than four parts fill the
    last one (``127.1``, ``2130706433``). A host ending in a number that is not a valid address is an error,
    as in browsers, rather than a name to resolve (the system resolver would read such spellings its own way).
    """
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    if not (
        last.isdigit() or (last[:2].lower() == "0x" and all(c in "0123456789abcdefABCDEF" for c in last[2:]))
    ):
        return None
    if len(parts) > 4:
        raise InputError(f"invalid IPv4 address in URL: {host!r}")
    numbers = []
    for part in parts:
        try:
            if part[:2].lower() == "0x":
                numbers.append(int(part[2:] or "0", 16))
            elif len(part) > 1 and part.startswith("0"):
                numbers.append(int(part[1:], 8))
            else:
                numbers.append(int(part, 10))
        except ValueError:
            raise InputError(f"invalid IPv4 address in URL: {host!r}") from None
    if any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        raise InputError(f"invalid IPv4 address in URL: {host!r}")
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n << (8 * (3 - i))
    return ipaddress.IPv4Address(value)


def parse_target(url: str) -> Target:
    """Parse and normalise one hop's URL; InputError for anything that is not a plain http(s) URL."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise InputError(f"invalid URL {url!r}: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise InputError(f"only http(s) URLs can be fetched: {url!r}")
    if parts.username is not None or parts.password is not None:
        raise InputError(f"URLs with credentials are not fetched: {url!r}")
    host = parts.hostname or ""
    if not host:
        raise InputError(f"URL has no host: {url!r}")
    literal: IPAddress | None
    if "[" in parts.netloc:  # bracketed IPv6 literal; urlsplit has checked the brackets
        try:
            literal = ipaddress.IPv6Address(host)
        except ValueError:
            raise InputError(f"invalid IPv6 address in URL: {url!r}") from None
        if literal.scope_id:
            raise InputError(f"IPv6 zone identifiers are not fetched: {url!r}")
    else:
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise InputError(f"invalid host name in URL: {url!r}") from None
        literal = parse_ipv4_host(host)
    if literal is not None:
        host = str(literal)
    printable = "".join(chr(c) for c in range(0x21, 0x7F))  # only spaces, controls and non-ASCII get encoded
    path = quote(parts.path or "/", safe=printable)
    if parts.query:
        path += "?" + quote(parts.query, safe=printable)
    return Target(url, scheme, host, port or DEFAULT_PORTS[scheme], path, literal)


def embedded_ipv4(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address carries (mapped, 6to4, Teredo server and client, NAT64)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found = [a for a in (ip.ipv4_mapped, ip.sixtofour) if a is not None]
    if ip.teredo:
        found.extend(ip.teredo)
    if ip in _NAT64:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def refusal(ip: IPAddress) -> str | None:
    """Why a server-side fetch must not connect to ``ip`` (an address class), or None when it may.

    A mapped or NAT64 address is judged by the IPv4 address alone (it reaches exactly that host; Python counts
    the prefixes as reserved); 6to4 and Teredo addresses by both the IPv4 they carry and themselves."""
    if isinstance(ip, ipaddress.IPv6Address) and (ip.ipv4_mapped or ip in _NAT64):
        inner = ip.ipv4_mapped or ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        why = refusal(inner)
        return f"{why} IPv4 {inner} inside IPv6" if why else None
    for inner in embedded_ipv4(ip):
        why = refusal(inner)
        if why:
            return f"{why} IPv4 {inner} inside IPv6"
    for name, test in _REFUSED:
        if test(ip):
            return name
    return None


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for ``host`` (TCP), in its order of preference."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return [str(info[4][0]) for info in infos]


def resolve(target: Target, allow_private: bool, resolver: Resolver) -> list[IPAddress]:
    """Resolve once and check every address: one refused address refuses the host (it may be the one used)."""
    if target.literal is not None:
        addresses: list[IPAddress] = [target.literal]
    else:
        try:
            names = resolver(target.host, target.port)
            addresses = list(dict.fromkeys(ipaddress.ip_address(n.split("%")[0]) for n in names))
        except (OSError, UnicodeError, ValueError) as exc:
            raise FetchFailed(
                f"cannot resolve {target.host}: {getattr(exc, 'strerror', None) or exc}"
            ) from None
        if not addresses:
            raise FetchFailed(f"cannot resolve {target.host}: no address")
    if not allow_private:
        for ip in addresses:
            why = refusal(ip)
            if why:
                shown = "" if target.literal is not None else f" ({target.host} resolves to {ip})"
                raise FetchRefused(f"refusing to fetch {target.url}{shown}: {why} address")
    return addresses


class _PinnedHTTP(http.client.HTTPConnection):
    """HTTP to a checked address; ``host`` (the name) is only sent in the Host header."""

    def __init__(self, host: str, port: int, ip: IPAddress, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.ip = ip

    def connect(self) -> None:
        self.sock = socket.create_connection((str(self.ip), self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to a checked address; the name is sent in SNI and the certificate is verified against it."""

    def __init__(self, host: str, port: int, ip: IPAddress, timeout: float, context: Any) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self.ip = ip

    def connect(self) -> None:
        sock = socket.create_connection((str(self.ip), self.port), self.timeout)
        try:
            self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]
        except BaseException:
            sock.close()
            raise


def _tls_context() -> Any:
    try:
        import ssl  # Pyodide ships ssl separately: imported only for https
    except ImportError:
        raise InputError("https URLs need Python's ssl module, which is not available here") from None
    return ssl.create_default_context()


class _Deadline:
    """One deadline for the whole fetch: per-operation socket timeouts use what is left, and a watchdog shuts
    the socket when it passes (a socket timeout alone restarts with each byte a slow server sends)."""

    def __init__(self, seconds: float, url: str) -> None:
        self.seconds, self.url = seconds, url
        self.end = time.monotonic() + seconds
        self.expired = False

    def left(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0 or self.expired:
            raise self.error()
        return left

    def error(self) -> FetchFailed:
        return FetchFailed(f"cannot fetch {self.url}: no complete answer within {self.seconds:g} s")

    def watch(self, sock: socket.socket) -> threading.Timer:
        def fire() -> None:
            self.expired = True
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        timer = threading.Timer(max(self.end - time.monotonic(), 0.0), fire)
        timer.daemon = True
        timer.start()
        return timer


def _connect(target: Target, addresses: list[IPAddress], deadline: _Deadline) -> http.client.HTTPConnection:
    """A connection to the first checked address that answers."""
    context = _tls_context() if target.scheme == "https" else None
    last: Exception | None = None
    for ip in addresses:
        conn: http.client.HTTPConnection
        if context is not None:
            conn = _PinnedHTTPS(target.host, target.port, ip, deadline.left(), context)
        else:
            conn = _PinnedHTTP(target.host, target.port, ip, deadline.left())
        try:
            conn.connect()
            return conn
        except OSError as exc:
            conn.close()
            last = exc
    raise FetchFailed(f"cannot fetch {target.url}: {last}")


def _read_body(
    resp: http.client.HTTPResponse, sock: socket.socket, max_bytes: int, deadline: _Deadline
) -> bytes:
    length = resp.getheader("Content-Length")
    if length and length.strip().isdigit() and int(length) > max_bytes:
        raise FetchFailed(f"page larger than {max_bytes} bytes: {deadline.url}")
    chunks: list[bytes] = []
    size = 0
    while True:
        sock.settimeout(deadline.left())
        chunk = resp.read1(READ_CHUNK)
        if deadline.expired:  # the watchdog shut the socket: what was read is a truncated page
            raise deadline.error()
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise FetchFailed(f"page larger than {max_bytes} bytes: {deadline.url}")
        chunks.append(chunk)


def _get(
    target: Target, addresses: list[IPAddress], max_bytes: int, deadline: _Deadline
) -> tuple[int, str | None, str | None, bytes]:
    """One GET: (status, Location, Content-Type, body); the body is read only for a final answer."""
    conn = _connect(target, addresses, deadline)
    sock = conn.sock
    assert sock is not None
    timer = deadline.watch(sock)
    try:
        conn.request(
            "GET",
            target.path,
            headers={
                "User-Agent": USER_AGENT,
                "Accept": "text/html,*/*;q=0.5",
                "Accept-Encoding": "identity",
            },
        )
        resp = conn.getresponse()
        if resp.status in REDIRECT_CODES:
            return resp.status, resp.getheader("Location"), None, b""
        if not 200 <= resp.status < 300:
            raise FetchFailed(f"cannot fetch {target.url}: HTTP {resp.status} {resp.reason}".rstrip())
        return resp.status, None, resp.getheader("Content-Type"), _read_body(resp, sock, max_bytes, deadline)
    except (OSError, http.client.HTTPException) as exc:
        if deadline.expired or isinstance(exc, TimeoutError):
            raise deadline.error() from None
        raise FetchFailed(f"cannot fetch {target.url}: {exc or type(exc).__name__}") from None
    finally:
        timer.cancel()
        conn.close()


def fetch(
    url: str,
    *,
    allow_private: bool = False,
    timeout: float = FETCH_TIMEOUT,
    max_bytes: int = MAX_FETCH_BYTES,
    max_redirects: int = MAX_REDIRECTS,
    resolver: Resolver | None = None,
) -> tuple[bytes, str | None, str]:
    """GET ``url`` following redirects: (body, declared encoding, final URL). InputError on any failure,
    :class:`FetchRefused` when a hop's host is or resolves to a refused address (see module doc)."""
    deadline = _Deadline(timeout, url)
    current = url
    for _hop in range(max_redirects + 1):
        target = parse_target(current)
        addresses = resolve(target, allow_private, resolver or system_resolver)
        deadline.left()
        _status, location, ctype, body = _get(target, addresses, max_bytes, deadline)
        if location is None and _status in REDIRECT_CODES:
            raise FetchFailed(f"cannot fetch {current}: redirect without a Location")
        if location is None:
            return body, sniff_declared_encoding(ctype), current
        current = urljoin(current, location.strip())
    raise FetchFailed(f"cannot fetch {url}: more than {max_redirects} redirects")
